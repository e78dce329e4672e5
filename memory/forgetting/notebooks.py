"""A notebook's lifecycle as memory sees it: open, closed, deleted. Each end erases the
notebook's memory through the one erasure service (`memory_erase`, extent `scope` with
the notebook's id), so what a closed or deleted notebook leaves is what any forget
leaves: tombstones with ids, timestamps and a keyed digest, no text.

- **Open**: no `NotebookClosure` row. Surfaces and the member write notebook memory.
- **Delete** (`notebook_delete`): the notebook's memory, and summaries made from it,
  is erased now. Deleting a deleted notebook is a 404.
- **Close** (`notebook_close`): from that commit no new memory is written to the
  notebook (every write path refuses with 409 `notebook-closed`: `notebook_ensure_open`,
  called by `memory.services.memory_remember` under the member lock). What it holds stays
  readable until the retention sweep runs after `NOTEBOOK_CLOSE_GRACE`
  (`notebooks_erase_due`), which erases it and marks the notebook deleted. Re-closing a
  closed notebook returns the closure as it is.
- A deleted notebook stays closed to writes: its id names a notebook that is gone.

A notebook is known to memory by its memory: closing or deleting one of which the member
has no memory (or another member's) is a 404.

What the extent reaches: the notebook's entries (`scope_kind` notebook, this
`notebook_id`) and the `summarized-from-session` summaries whose provenance names one of
them; every store then erases what belongs to those entries or repeats their text (the
turns they cite, short-term rows pointing at them, the term index, recall records...).
Conversation turns and short-term rows carry no notebook id (a turn names its session, a
short-term row a research task, agent run or session), so `Erasure.notebooks` covers no
row of theirs by itself: they go only when tied to or repeating a notebook entry.
Deleting a notebook is not the member asking Iris to forget its facts, so no fingerprints
are kept: the same fact may be written again elsewhere.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.crypto import keyed_digest
from iris_site.errors import Conflict, NotFound
from iris_site.models import User
from iris_site.services import member_lock
from memory.enums import Lifecycle, Origin, ScopeKind
from memory.forgetting.erasure import memory_erase
from memory.forgetting.stores import ExtentKind
from memory.models import MemoryEntry, NotebookClosure
from memory.revisions import POLICY_ID

# The notebook envelope (`memory.policy.retention`, action `delete`) has no age limit:
# notebook memory lives as long as its notebook. A closed notebook's memory is erased
# this long after the close, so a mistaken close can still be read back and exported.
NOTEBOOK_CLOSE_GRACE = timedelta(days=30)

DELETE_REASON = "notebook-delete"
CLOSED_REASON = "notebook-closed"
SWEEP_ACTOR = Actor.system("notebook-lifecycle")


@dataclass(frozen=True, slots=True)
class NotebookEnd:
    """What a close or delete did: the closure, and (a delete) the entries erased."""

    closure: NotebookClosure
    erased_ids: tuple[uuid.UUID, ...] = ()


def _notebook_entries(member_id, notebook_id: str):
    return MemoryEntry.objects.filter(
        member_id=member_id, scope_kind=ScopeKind.NOTEBOOK, notebook_id=notebook_id
    )


def notebook_known(*, member_id, notebook_id: str) -> bool:
    """Whether the member has (or had) memory in this notebook, or closed it."""
    return (
        _notebook_entries(member_id, notebook_id).exists()
        or NotebookClosure.objects.filter(member_id=member_id, notebook_id=notebook_id).exists()
    )


def notebook_ensure_open(*, member_id, notebook_id: str) -> None:
    """The write path's check (under the member lock the close takes too): a closed or
    deleted notebook takes no new memory, 409 `notebook-closed`."""
    if NotebookClosure.objects.filter(member_id=member_id, notebook_id=notebook_id).exists():
        raise Conflict(
            "This notebook is closed: nothing new is remembered in it.", code="notebook-closed"
        )


def _doomed_ids(member_id, notebook_id: str) -> list[str]:
    """The notebook's entries that still hold text, and the summaries made from any of
    its entries (a summary names each source entry in its provenance)."""
    notebook = {
        str(pk) for pk in _notebook_entries(member_id, notebook_id).values_list("pk", flat=True)
    }
    summaries = {
        str(pk)
        for pk, chain in MemoryEntry.objects.filter(
            member_id=member_id, origin=Origin.SUMMARIZED_FROM_SESSION
        ).values_list("pk", "provenance_chain")
        if any(isinstance(link, dict) and link.get("ref") in notebook for link in chain or ())
    }
    pending = MemoryEntry.objects.filter(member_id=member_id, pk__in=notebook | summaries).exclude(
        lifecycle=Lifecycle.TOMBSTONED, erased_digest__gt=""
    )
    return sorted(str(pk) for pk in pending.values_list("pk", flat=True))


@transaction.atomic
def memory_forget_notebook(
    *,
    member: User,
    notebook_id: str,
    actor: Actor,
    reason: str = DELETE_REASON,
    now: datetime | None = None,
) -> list[uuid.UUID]:
    """Erase a notebook's memory (and summaries made from it) through `memory_erase`,
    extent `scope` with this notebook; returns the ids tombstoned now. Idempotent: a
    second run finds nothing holding text and erases nothing."""
    member_lock(member_id=member.pk)
    report = memory_erase(
        member_id=member.pk,
        entry_ids=_doomed_ids(member.pk, notebook_id),
        actor=actor,
        reason=reason,
        kind=ExtentKind.SCOPE,
        notebooks=[notebook_id],
        now=now,
    )
    ids = list(report.tombstoned_ids)
    audit_event_append(
        action=AuditAction.MEMORY_NOTEBOOK_FORGOTTEN,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={"tombstoned_count": len(ids), "entry_ids": sorted(str(i) for i in ids)[:1000]},
    )
    return ids


def _closure(member_id, notebook_id: str) -> NotebookClosure | None:
    return (
        NotebookClosure.objects.select_for_update()
        .filter(member_id=member_id, notebook_id=notebook_id)
        .first()
    )


@transaction.atomic
def notebook_close(
    *, member: User, notebook_id: str, actor: Actor, now: datetime | None = None
) -> tuple[NotebookClosure, bool]:
    """Close a notebook: no new writes from now, its memory erased by the sweep after
    `NOTEBOOK_CLOSE_GRACE`. Returns the closure and whether this call closed it (a
    closed notebook's closure comes back unchanged). 404: unknown or deleted."""
    member_lock(member_id=member.pk)
    closure = _closure(member.pk, notebook_id)
    if closure is not None:
        if closure.state == NotebookClosure.State.DELETED:
            raise NotFound()
        return closure, False
    if not _notebook_entries(member.pk, notebook_id).exists():
        raise NotFound()
    now = now or timezone.now()
    closure = NotebookClosure.objects.create(
        member=member,
        notebook_id=notebook_id,
        state=NotebookClosure.State.CLOSED,
        closed_at=now,
        erase_after=now + NOTEBOOK_CLOSE_GRACE,
    )
    audit_event_append(
        action=AuditAction.MEMORY_NOTEBOOK_CLOSED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={
            "closure_id": str(closure.pk),
            # A caller-chosen id: the chain keeps only its keyed digest.
            "notebook_id_digest": keyed_digest(f"notebook:{notebook_id}"),
            "erase_after": closure.erase_after.isoformat(),
            "entry_count": _notebook_entries(member.pk, notebook_id)
            .exclude(lifecycle=Lifecycle.TOMBSTONED)
            .count(),
        },
    )
    return closure, True


def _erase_and_mark_deleted(
    *, member: User, notebook_id: str, closure: NotebookClosure | None, actor, reason, now
) -> NotebookEnd:
    ids = memory_forget_notebook(
        member=member, notebook_id=notebook_id, actor=actor, reason=reason, now=now
    )
    if closure is None:
        closure = NotebookClosure(member=member, notebook_id=notebook_id, closed_at=now)
    closure.state = NotebookClosure.State.DELETED
    closure.erase_after = min(closure.erase_after, now) if closure.erase_after else now
    closure.erased_at = now
    closure.save()
    audit_event_append(
        action=AuditAction.MEMORY_NOTEBOOK_DELETED,
        policy_id=POLICY_ID,
        actor=actor,
        severity=Severity.WARNING,
        target_member_id=member.pk,
        payload={
            "closure_id": str(closure.pk),
            # A caller-chosen id: the chain keeps only its keyed digest.
            "notebook_id_digest": keyed_digest(f"notebook:{notebook_id}"),
            "reason": reason,
            "erased_count": len(ids),
        },
    )
    return NotebookEnd(closure=closure, erased_ids=tuple(ids))


@transaction.atomic
def notebook_delete(
    *, member: User, notebook_id: str, actor: Actor, now: datetime | None = None
) -> NotebookEnd:
    """Delete a notebook: its memory is erased now (open or closed before). 404: unknown,
    or deleted already."""
    member_lock(member_id=member.pk)
    closure = _closure(member.pk, notebook_id)
    if closure is not None and closure.state == NotebookClosure.State.DELETED:
        raise NotFound()
    if closure is None and not _notebook_entries(member.pk, notebook_id).exists():
        raise NotFound()
    return _erase_and_mark_deleted(
        member=member,
        notebook_id=notebook_id,
        closure=closure,
        actor=actor,
        reason=DELETE_REASON,
        now=now or timezone.now(),
    )


def notebooks_erase_due(*, now: datetime) -> int:
    """The retention sweep's step: erase the memory of every notebook closed for longer
    than its grace (`erase_after` passed), and mark it deleted. Each in its own
    transaction, re-read under the row lock after the member lock; idempotent. Returns
    how many notebooks were erased."""
    erased = 0
    due = NotebookClosure.objects.filter(
        state=NotebookClosure.State.CLOSED, erase_after__lte=now
    ).order_by("erase_after", "pk")
    for pk, member_id in due.values_list("pk", "member_id"):
        with transaction.atomic():
            member_lock(member_id=member_id)
            closure = due.select_for_update().filter(pk=pk).first()
            if closure is None:  # deleted or erased since the listing
                continue
            _erase_and_mark_deleted(
                member=User.objects.get(pk=member_id),
                notebook_id=closure.notebook_id,
                closure=closure,
                actor=SWEEP_ACTOR,
                reason=CLOSED_REASON,
                now=now,
            )
            erased += 1
    return erased
