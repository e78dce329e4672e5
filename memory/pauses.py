"""Pausing a memory: a paused entry stays stored but out of every recall until the member
resumes it or its pause ends: recall treats it as active from its end, and
`memory_pause_expire_due`, run by a job every five minutes, writes the resumption. A
pause changes whether a memory is used, not what it states, so its revision keeps the
entry's `updated_at`.
"""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from iris_site.audit.events import Actor, member_chain_lock
from iris_site.errors import Conflict, InvalidInput
from iris_site.services import member_lock
from memory.enums import (
    EntryAuditAction,
    Lifecycle,
    SuppressionReason,
)
from memory.models import (
    MemoryEntry,
)
from memory.revisions import entry_lock, revision_append
from memory.selectors import ensure_no_pending_clear


def _member_change(entry: MemoryEntry) -> None:
    """A member's change to one of their memories: under the member lock, and refused
    while a full clear waits (409 `clear-pending`: what is hidden stays as it was, so a
    cancel brings back exactly that)."""
    member_lock(member_id=entry.member_id)
    ensure_no_pending_clear(member_id=entry.member_id)


@transaction.atomic
def memory_pause(
    *, entry: MemoryEntry, actor: Actor, ends_at: datetime | None = None
) -> MemoryEntry:
    _member_change(entry)
    entry = entry_lock(entry)
    now = timezone.now()
    if entry.lifecycle != Lifecycle.ACTIVE:
        raise Conflict("Only an active memory can be paused.", code="not-active")
    if ends_at is not None and ends_at <= now:
        raise InvalidInput(fields={"ends_at": ["Must be in the future."]})
    entry.lifecycle = Lifecycle.PAUSED
    entry.suppression_reason = SuppressionReason.USER_PAUSE
    entry.suppression_started_at = now
    entry.suppression_ends_at = ends_at
    entry.suppression_notes = ""
    revision_append(entry, action=EntryAuditAction.PAUSED, actor=actor, now=now, restated=False)
    return entry


@transaction.atomic
def memory_resume(*, entry: MemoryEntry, actor: Actor) -> MemoryEntry:
    _member_change(entry)
    return _resumed(entry, actor=actor)


def _resumed(entry: MemoryEntry, *, actor: Actor) -> MemoryEntry:
    entry = entry_lock(entry)
    if entry.lifecycle != Lifecycle.PAUSED:
        raise Conflict("Only a paused memory can be resumed.", code="not-paused")
    entry.lifecycle = Lifecycle.ACTIVE
    entry.suppression_reason = ""
    entry.suppression_started_at = None
    entry.suppression_ends_at = None
    revision_append(
        entry, action=EntryAuditAction.RESUMED, actor=actor, now=timezone.now(), restated=False
    )
    return entry


def memory_pause_expire_due(*, now: datetime | None = None, member_id=None) -> int:
    """Resume every timed pause that has ended (only ``member_id``'s, when given), each
    as `memory_resume` does, a revision by the system (a pause ends when it said, a full
    clear waiting or not). Idempotent: an entry resumed, re-paused or forgotten meanwhile
    is left as it is. Returns how many were resumed."""
    now = now or timezone.now()
    due = MemoryEntry.objects.filter(lifecycle=Lifecycle.PAUSED, suppression_ends_at__lte=now)
    if member_id is not None:
        due = due.filter(member_id=member_id)
    resumed = 0
    for entry_id, owner in due.order_by().values_list("pk", "member_id"):
        with transaction.atomic():
            member_chain_lock(owner)  # before the row, as every writer (`entry_lock`)
            # Re-checked under the row lock: a pause the member renewed since stands.
            entry = due.select_for_update().filter(pk=entry_id).first()
            if entry is not None:
                _resumed(entry, actor=Actor.system("pause-expired"))
                resumed += 1
    return resumed
