"""The hierarchy's answers to memory and consent signals (hierarchy sits above both)."""

import logging

from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from consent.signals import consent_ended
from hierarchy.bundle_cache import bundle_generation_bump
from hierarchy.consolidation import stm_signal_stamp
from hierarchy.freshness_job import reconfirm_request_resolve
from hierarchy.stm import stm_consent_cascade, stm_purge_member
from iris_site.audit.actions import AuditAction, names_of
from memory.enums import Lifecycle
from memory.signals import member_content_clear, reconfirm_settled

logger = logging.getLogger(__name__)


@receiver(pre_save, sender="memory.MemoryEntry", dispatch_uid="hierarchy.entry_saving")
def entry_saving(sender, instance, update_fields=None, **kwargs) -> None:
    """Is this save the entry *becoming* active (created active, a draft confirmed, a
    pause resumed)? Read from the stored row before it is overwritten: an edit, a
    confirmation or any other save of an entry that is already active is not."""
    instance._becomes_active = instance.lifecycle == Lifecycle.ACTIVE and (
        instance._state.adding
        or (
            (update_fields is None or "lifecycle" in update_fields)
            and not sender.objects.filter(pk=instance.pk, lifecycle=Lifecycle.ACTIVE).exists()
        )
    )


@receiver(post_save, sender="memory.MemoryEntry", dispatch_uid="hierarchy.entry_saved")
def entry_saved(sender, instance, **kwargs) -> None:
    """An entry becoming active stamps the opted-in short-term rows that reference it
    (signal-triggered consolidation).

    Runs after commit, in its own transaction: a failure here never undoes the memory
    write, and the age-triggered path still covers rows the stamp missed.
    """
    if not instance.__dict__.pop("_becomes_active", False):
        return
    member_id, entry_id = instance.member_id, instance.pk

    def after_commit() -> None:
        try:
            stm_signal_stamp(member_id=member_id, entry_id=entry_id)
        except Exception:
            logger.exception("signal-triggered consolidation failed for entry %s", entry_id)

    transaction.on_commit(after_commit)


# Events the read paths append (a bundle's own resolve among them): they change nothing
# a bundle returns, and moving the generation on for them would end the cache on every
# read. Any other event about a member may change what its bundles return.
_READS = names_of(
    (
        AuditAction.HIERARCHY_BUNDLE_RESOLVED,
        AuditAction.MEMORY_RECALL_RESOLVED,
        AuditAction.HIERARCHY_STM_READ,
    )
)


@receiver(post_save, sender="iris_site.AuditEvent", dispatch_uid="hierarchy.member_changed")
def member_changed(sender, instance, created, **kwargs) -> None:
    """Every change to a member's content ends their cached bundles, in every process.

    The audit chain is where no change is missed: every write appends its event in the
    transaction that makes the change (an entry's revision, bulk holds, releases and
    purges, short-term writes, deletions, expiry and anonymisation, consent events, a
    full clear, off the record), so the bump commits with the data it is about, or not
    at all. It runs inside `audit_event_append`, under the chain's lock: bumping from an
    entry's own save instead, before its event, deadlocks on PostgreSQL against a writer
    that holds the chain's lock and waits for this row (`bundle_generation_bump`).
    """
    if created and instance.target_member_id and instance.action not in _READS:
        bundle_generation_bump(instance.target_member_id)


@receiver(consent_ended, dispatch_uid="hierarchy.consent_ended")
def consent_ended_cascade(sender, *, member_id, consent_type: str, **kwargs) -> None:
    """A withdrawn `category:<c>` (or `data_processing`) consent ends that working memory
    now rather than at its TTL."""
    stm_consent_cascade(member_id=member_id, consent_type=consent_type)


@receiver(member_content_clear, dispatch_uid="hierarchy.member_content_clear")
def member_content_clear_stm(sender, *, member_id, reason: str, **kwargs) -> None:
    """A full clear's request erases the member's working memory at once, in its
    transaction."""
    stm_purge_member(member_id=member_id, reason=reason)


@receiver(reconfirm_settled, dispatch_uid="hierarchy.reconfirm_settled")
def reconfirm_settled_resolve(sender, member_id, entry_id, answer, **kwargs) -> None:
    """The member answered "Is this still true?": the freshness job's request is closed in
    the answer's transaction."""
    reconfirm_request_resolve(member_id=member_id, entry_id=entry_id, answer=answer)
