"""The hierarchy's answers to memory and consent signals (hierarchy sits above both)."""

import logging

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from consent.signals import consent_ended
from hierarchy.bundle_cache import bundle_invalidate
from hierarchy.consolidation import stm_signal_stamp
from hierarchy.stm import stm_consent_cascade
from memory.enums import Lifecycle

logger = logging.getLogger(__name__)


@receiver(post_save, sender="memory.MemoryEntry", dispatch_uid="hierarchy.entry_saved")
def entry_saved(sender, instance, **kwargs) -> None:
    """Any entry write invalidates the member's bundles; an active entry stamps the
    opted-in short-term rows that reference it (signal-triggered consolidation).

    Runs after commit, in its own transaction: a failure here never undoes the memory
    write, and the age-triggered path still covers rows the stamp missed.
    """
    member_id, entry_id, active = instance.member_id, instance.pk, instance.lifecycle

    def after_commit() -> None:
        bundle_invalidate(member_id)
        if active != Lifecycle.ACTIVE:
            return
        try:
            stm_signal_stamp(member_id=member_id, entry_id=entry_id)
        except Exception:
            logger.exception("signal-triggered consolidation failed for entry %s", entry_id)

    transaction.on_commit(after_commit)


@receiver(consent_ended, dispatch_uid="hierarchy.consent_ended")
def consent_ended_cascade(sender, *, member_id, consent_type: str, **kwargs) -> None:
    """A withdrawn `category:<c>` (or `data_processing`) consent ends that working memory
    now rather than at its TTL; bundles are invalidated for any consent change."""
    bundle_invalidate(member_id)
    stm_consent_cascade(member_id=member_id, consent_type=consent_type)
