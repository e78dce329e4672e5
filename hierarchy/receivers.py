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


# Memory changes made in bulk, with no entry saved, known by the audit event each
# appends in its own transaction (memory.dsar, memory.services).
_BULK_ENTRY_CHANGES = frozenset(
    {"memory.entries.held", "memory.entries.released", "memory.entries.purged"}
)


@receiver(post_save, sender="hierarchy.AuditEvent", dispatch_uid="hierarchy.bulk_entry_change")
def bulk_entry_change(sender, instance, created, **kwargs) -> None:
    """Held, released or purged entries end the member's cached bundles once committed."""
    if created and instance.action in _BULK_ENTRY_CHANGES and instance.target_member_id:
        member_id = instance.target_member_id
        transaction.on_commit(lambda: bundle_invalidate(member_id))


@receiver(consent_ended, dispatch_uid="hierarchy.consent_ended")
def consent_ended_cascade(sender, *, member_id, consent_type: str, **kwargs) -> None:
    """A withdrawn `category:<c>` (or `data_processing`) consent ends that working memory
    now rather than at its TTL. Cached bundles need nothing here: their key carries the
    member's consent state (`hierarchy.bundle_cache`), so any consent event, a grant as
    much as a withdrawal, already leads to a new one."""
    stm_consent_cascade(member_id=member_id, consent_type=consent_type)
