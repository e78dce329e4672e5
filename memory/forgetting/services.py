"""Forgetting as the member and the jobs ask for it: one memory, a category, every mention
of a person, sensitive interactions, the consent-withdrawal cascade, the full clear (request,
cancel, purge after its grace window) and the purge of tombstones. Each ends in the one
erasure service (`memory.forgetting.erasure.memory_erase`).
"""

import uuid
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from consent.enums import BaseConsentType
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.errors import Conflict
from iris_site.models import User
from iris_site.services import member_lock
from memory.enums import (
    Lifecycle,
    Origin,
    is_sensitive_category,
)
from memory.forgetting.erasure import memory_erase
from memory.forgetting.shredding import member_keys_shred_due
from memory.forgetting.stores import ExtentKind
from memory.models import (
    ConversationTurn,
    MemoryClearRequest,
    MemoryEntry,
)
from memory.revisions import POLICY_ID, entry_lock
from memory.selectors import (
    memory_pending_clear,
)
from memory.signals import member_content_clear

FULL_CLEAR_GRACE = timedelta(days=7)


# Why the erasure runs, as its audit and its stores' audit events name it.
FORGET_REASON = "forget"
RETENTION_REASON = "retention"


def entry_forget(
    entry: MemoryEntry,
    *,
    actor: Actor,
    now: datetime,
    reason: str = RETENTION_REASON,
    fingerprint: bool = False,
    earlier_wordings: bool = False,
) -> None:
    """Forget one entry through the erasure service: tombstoned, its text erased from
    every content store in the caller's transaction. `earlier_wordings`: the member
    forgets the fact, so the entries it superseded (its earlier wordings) go too."""
    memory_erase(
        member_id=entry.member_id,
        entry_ids=[entry.pk],
        actor=actor,
        reason=reason,
        fingerprint=fingerprint,
        earlier_wordings=earlier_wordings,
        now=now,
    )


@transaction.atomic
def memory_tombstone(*, entry: MemoryEntry, actor: Actor) -> MemoryEntry:
    """The member forgets one memory: its text, and that of every earlier wording of the
    fact (the entries it superseded), is erased everywhere now, a fingerprint keeps it
    from coming back by itself, and the tombstones keep ids and times only."""
    # The member lock before the row lock, in the order `memory_remember` takes them.
    member_lock(member_id=entry.member_id)
    entry = entry_lock(entry)
    entry_forget(
        entry,
        actor=actor,
        now=timezone.now(),
        reason=FORGET_REASON,
        fingerprint=True,
        earlier_wordings=True,
    )
    entry.refresh_from_db()
    return entry


def entries_forget(
    entries, *, actor: Actor, reason: str = FORGET_REASON, fingerprint: bool = False
) -> list[uuid.UUID]:
    """Forget these entries (one erasure per member); returns the ids tombstoned now.
    A tombstone that still holds text (forgotten before erasure was immediate) is
    erased too."""
    due: dict = {}
    for member_id, pk in (
        entries.filter(~Q(lifecycle=Lifecycle.TOMBSTONED) | Q(erased_digest=""))
        .order_by("pk")
        .values_list("member_id", "pk")
    ):
        due.setdefault(member_id, []).append(pk)
    ids: list[uuid.UUID] = []
    for member_id, entry_ids in due.items():
        ids += memory_erase(
            member_id=member_id,
            entry_ids=entry_ids,
            actor=actor,
            reason=reason,
            fingerprint=fingerprint,
        ).tombstoned_ids
    return ids


@transaction.atomic
def memory_forget_category(*, member: User, category: str, actor: Actor) -> list[uuid.UUID]:
    """Forget every memory of one category, and summaries derived from them."""
    # The category's extent: its entries, and whatever else of the category is tied to
    # no entry (short-term rows), even when no entry of it is left.
    entries = MemoryEntry.objects.filter(member=member, category=category).filter(
        ~Q(lifecycle=Lifecycle.TOMBSTONED) | Q(erased_digest="")
    )
    ids = list(
        memory_erase(
            member_id=member.pk,
            entry_ids=entries.order_by("pk").values_list("pk", flat=True),
            actor=actor,
            reason=FORGET_REASON,
            fingerprint=True,
            kind=ExtentKind.CATEGORY,
            categories=[category],
        ).tombstoned_ids
    )
    ids += derived_summaries_forget(
        member_id=member.pk, source_ids=ids, actor=actor, fingerprint=True
    )
    audit_event_append(
        action=AuditAction.MEMORY_CATEGORY_FORGOTTEN,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={"category": category, "tombstoned_count": len(ids)},
    )
    return ids


def derived_summaries_forget(
    *, member_id, source_ids, actor: Actor, fingerprint: bool = False
) -> list[uuid.UUID]:
    """Summaries whose provenance names any of these entries go with them."""
    if not source_ids:
        return []
    refs = {str(i) for i in source_ids}
    derived = [
        e.pk
        for e in MemoryEntry.objects.filter(
            member_id=member_id, origin=Origin.SUMMARIZED_FROM_SESSION
        ).exclude(lifecycle=Lifecycle.TOMBSTONED)
        if any(link.get("ref") in refs for link in e.provenance_chain)
    ]
    return entries_forget(
        MemoryEntry.objects.filter(pk__in=derived), actor=actor, fingerprint=fingerprint
    )


CLEAR_REASON = "full-clear"


@transaction.atomic
def memory_clear_request(*, member: User, actor: Actor, grace: timedelta = FULL_CLEAR_GRACE):
    """Full clear, step one. From this commit nothing of the member's is recalled or
    served (the read gate withholds everything but continuation tokens on a pending
    clear, and this event moves the bundle generation on in every process) and nothing
    new is stored: every write path refuses with 409 `clear-pending`
    (`ensure_no_pending_clear`, under the member lock taken here too). Short-term memory
    is erased now. Long-term memory and the turn log are only hidden, unchanged: a cancel
    within `grace` brings back exactly what was there; after it, `memory_clear_purge_due`
    erases everything the member then has, and their keys once that commits
    (`memory.forgetting.shredding`: a backup taken before no longer opens for them)."""
    member_lock(member_id=member.pk)
    if memory_pending_clear(member_id=member.pk) is not None:
        raise Conflict("A full clear is already pending.", code="clear-pending")
    now = timezone.now()
    ids = list(
        MemoryEntry.objects.filter(member=member)
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .values_list("pk", flat=True)
    )
    request = MemoryClearRequest.objects.create(
        member=member,
        entry_ids=[str(i) for i in ids],
        requested_at=now,
        purge_after=now + grace,
    )
    audit_event_append(
        action=AuditAction.MEMORY_CLEAR_REQUESTED,
        policy_id=POLICY_ID,
        actor=actor,
        severity=Severity.WARNING,
        target_member_id=member.pk,
        payload={"clear_id": str(request.pk), "entry_count": len(ids)},
    )
    member_content_clear.send(sender=MemoryClearRequest, member_id=member.pk, reason=CLEAR_REASON)
    return request


@transaction.atomic
def memory_clear_cancel(*, member: User, actor: Actor) -> MemoryClearRequest:
    """Cancel a pending full clear within its grace window: what was hidden is back as it
    was (nothing was changed, only hidden); the short-term memory erased at the request
    is not. Re-read under the row lock, so a cancel never overwrites a purge."""
    pending = memory_pending_clear(member_id=member.pk)
    request = (
        MemoryClearRequest.objects.select_for_update()
        .filter(pk=pending.pk, state=MemoryClearRequest.State.PENDING)
        .first()
        if pending is not None
        else None
    )
    if request is None:
        raise Conflict("No full clear is pending.", code="no-clear-pending")
    request.state = MemoryClearRequest.State.CANCELLED
    request.finished_at = timezone.now()
    request.save(update_fields=["state", "finished_at"])
    audit_event_append(
        action=AuditAction.MEMORY_CLEAR_CANCELLED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={"clear_id": str(request.pk)},
    )
    return request


def memory_purge_entries(*, member_id, entry_ids, reason: str) -> int:
    """Erase entries, every revision of them and everything derived from them for good,
    through the erasure service; the audit keeps only ids. Callers: the full clear's purge
    and the data-rights delete."""
    report = memory_erase(
        member_id=member_id,
        entry_ids=entry_ids,
        actor=Actor.system(reason),
        reason=reason,
        purge=True,
    )
    return len(report.entry_ids)


def memory_tombstone_purge_due(*, now: datetime | None = None) -> int:
    """Erase the text of tombstones that still hold it: entries forgotten before a forget
    erased the text at once. Idempotent; a no-op once every tombstone is erased."""
    legacy = MemoryEntry.objects.filter(lifecycle=Lifecycle.TOMBSTONED, erased_digest="")
    if now is not None:
        legacy = legacy.filter(updated_at__lte=now)
    count = legacy.count()
    entries_forget(legacy, actor=Actor.system("tombstone-purge"), reason="tombstone-purge")
    return count


def _clear_purge(request: MemoryClearRequest) -> dict[str, int]:
    """Erase everything the member has now, not only what was there at the request,
    through the erasure service: every entry and revision whatever its lifecycle, what
    every content store holds of them, and (`everything`) what no entry is tied to: the
    whole turn log and short-term memory."""
    member_id = request.member_id
    turn_count = ConversationTurn.objects.filter(member_id=member_id).count()
    report = memory_erase(
        member_id=member_id,
        entry_ids=MemoryEntry.objects.filter(member_id=member_id).values_list("pk", flat=True),
        actor=Actor.system(CLEAR_REASON),
        reason=CLEAR_REASON,
        purge=True,
        everything=True,
    )
    return {"purged_entry_count": len(report.entry_ids), "purged_turn_count": turn_count}


def memory_clear_purge_due(*, now: datetime | None = None) -> int:
    """Purge every full clear whose grace window has passed (`_clear_purge`), each in one
    transaction under the member lock, so no write lands between the erasure and the
    clear's end. Idempotent. Returns how many entries were erased."""
    now = now or timezone.now()
    purged = 0
    for request in MemoryClearRequest.objects.filter(
        state=MemoryClearRequest.State.PENDING, purge_after__lte=now
    ):
        with transaction.atomic():
            locked = MemoryClearRequest.objects.select_for_update().get(pk=request.pk)
            if locked.state != MemoryClearRequest.State.PENDING:
                continue
            member_lock(member_id=locked.member_id)
            counts = _clear_purge(locked)
            locked.state = MemoryClearRequest.State.PURGED
            locked.finished_at = now
            locked.save(update_fields=["state", "finished_at"])
            audit_event_append(
                action=AuditAction.MEMORY_CLEAR_PURGED,
                policy_id=POLICY_ID,
                actor=Actor.system(CLEAR_REASON),
                severity=Severity.WARNING,
                target_member_id=locked.member_id,
                payload={"clear_id": str(locked.pk), **counts},
            )
            purged += counts["purged_entry_count"]
    # Keys an earlier erasure kept (held content) or failed to destroy go once nothing of
    # their member is sealed any more (`memory.forgetting.shredding`).
    member_keys_shred_due()
    return purged


@transaction.atomic
def memory_forget_sensitive_interactions(*, member: User, actor: Actor) -> list[uuid.UUID]:
    """Forget every memory of a sensitive interaction with someone (whatever its
    category), and summaries derived from them: what `multi-actor-sensitive` covered."""
    entries = MemoryEntry.objects.filter(member=member, sensitive_interaction=True)
    ids = entries_forget(entries, actor=actor, fingerprint=True)
    ids += derived_summaries_forget(
        member_id=member.pk, source_ids=ids, actor=actor, fingerprint=True
    )
    audit_event_append(
        action=AuditAction.MEMORY_SENSITIVE_INTERACTIONS_FORGOTTEN,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={"tombstoned_count": len(ids)},
    )
    return ids


@transaction.atomic
def memory_consent_cascade(*, member_id, consent_type: str) -> list[uuid.UUID]:
    """A withdrawn or expired `category:<c>` consent forgets that category's memory; a
    withdrawn `multi-actor-sensitive` forgets every sensitive interaction with someone.

    Under the member lock `memory_remember` reads consent and writes under, so a write
    racing the withdrawal is either refused or committed before this looks, and forgotten.
    """
    actor = Actor.system("consent-cascade")
    if consent_type == BaseConsentType.MULTI_ACTOR_SENSITIVE:
        member_lock(member_id=member_id)
        return memory_forget_sensitive_interactions(
            member=User.objects.get(pk=member_id), actor=actor
        )
    category = consent_type.removeprefix("category:")
    if category == consent_type or not is_sensitive_category(category):
        return []
    member_lock(member_id=member_id)
    return memory_forget_category(
        member=User.objects.get(pk=member_id), category=category, actor=actor
    )
