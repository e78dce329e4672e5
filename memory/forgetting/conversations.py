"""Forget a conversation: one session of the member's, through the one erasure service
with the `conversation` extent.

What goes (`memory_forget_conversation`), in one erasure under the member lock:

- every turn of the session (the turn store erases rows of the extent's sessions
  whatever they hold), and every short-term row of that user session (likewise);
- the entries whose provenance is only that conversation: the session's own memory
  (entries whose `session_id` is this session: session, scene and pose memory of it, and
  the summaries compaction made of its turns), and every other entry each of whose
  provenance links is a turn of this session or an entry already going (a summary of
  them, a fact drawn from its turns only);
- with them, whatever every store holds of those entries (term index, recall records,
  notices, revisions...), and keyed fingerprints so no surface re-creates them by itself.

What stays: an entry that also cites another conversation (or any source other than
this one), and what the member stated in their profile (`user-stated` or
`user-confirmed` profile memory) even when it was said in this conversation: that is
their word about themselves, not the conversation's. Their provenance link to the
erased turn remains an id with nothing behind it, as after compaction.

The erased entries stay as tombstones (ids, timestamps, a keyed digest); the turns and
short-term rows are gone. A second forget of the same conversation finds nothing left
and is a `NotFound`, as is a session of which the member has nothing (another member's,
or unknown): the answer never says whether someone else has such a session.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.crypto import keyed_digest
from iris_site.errors import NotFound
from iris_site.models import User
from iris_site.services import member_lock
from memory.enums import Lifecycle, Origin, ProvenanceKind, ScopeKind
from memory.forgetting.erasure import memory_erase, memory_erasure_residue
from memory.forgetting.stores import SHORT_TERM_MEMORY, ExtentKind
from memory.models import ConversationTurn, MemoryEntry
from memory.revisions import POLICY_ID

REASON = "conversation-forget"
TURN_STORE = "conversation-turns"
# The member's own word about themselves: kept even when said in the conversation.
MEMBER_PROFILE_ORIGINS = frozenset({Origin.USER_STATED, Origin.USER_CONFIRMED})


@dataclass(frozen=True, slots=True)
class ConversationForgotten:
    """What forgetting a conversation erased (counts; the audit keeps the same)."""

    session_id: str
    turns: int
    short_term_rows: int
    entries: int


def _only_from(chain: Iterable, *, turns: set[str], doomed: set[str]) -> bool:
    """Whether every provenance link names this conversation: one of its turns, or an
    entry going with it. No link at all says nothing about where it came from."""
    links = [link for link in chain or () if isinstance(link, dict)]
    if not links:
        return False
    for link in links:
        ref = str(link.get("ref", ""))
        if link.get("kind") == ProvenanceKind.SESSION_TURN:
            if ref not in turns:
                return False
        elif ref not in doomed:
            return False
    return True


def conversation_entry_ids(*, member_id, session_id: str) -> list[str]:
    """The member's entries whose provenance is only this conversation (see the module
    docstring), sorted; tombstones that hold no text any more are left out."""
    turns = {
        str(pk)
        for pk in ConversationTurn.objects.filter(
            member_id=member_id, session_id=session_id
        ).values_list("pk", flat=True)
    }
    rows = list(
        MemoryEntry.objects.filter(member_id=member_id).values_list(
            "pk", "session_id", "scope_kind", "origin", "provenance_chain"
        )
    )
    doomed = {str(pk) for pk, session, *_ in rows if session == session_id}
    candidates = [
        (str(pk), chain)
        for pk, session, kind, origin, chain in rows
        if str(pk) not in doomed
        and not (kind == ScopeKind.PROFILE and origin in MEMBER_PROFILE_ORIGINS)
    ]
    # A summary of summaries: repeat until nothing more joins.
    changed = True
    while changed:
        changed = False
        for pk, chain in candidates:
            if pk not in doomed and _only_from(chain, turns=turns, doomed=doomed):
                doomed.add(pk)
                changed = True
    holding = MemoryEntry.objects.filter(member_id=member_id, pk__in=doomed).exclude(
        lifecycle=Lifecycle.TOMBSTONED, erased_digest__gt=""
    )
    return sorted(str(pk) for pk in holding.values_list("pk", flat=True))


@transaction.atomic
def memory_forget_conversation(
    *, member: User, session_id: str, actor: Actor
) -> ConversationForgotten:
    """Forget one conversation of the member's everywhere (see the module docstring).
    `NotFound` when nothing of the member's is left of it."""
    member_lock(member_id=member.pk)
    entry_ids = conversation_entry_ids(member_id=member.pk, session_id=session_id)
    if not entry_ids and not memory_erasure_residue(
        member_id=member.pk,
        entry_ids=(),
        texts=(),
        purge=False,
        kind=ExtentKind.CONVERSATION,
        sessions=[session_id],
    ):
        raise NotFound()
    report = memory_erase(
        member_id=member.pk,
        entry_ids=entry_ids,
        actor=actor,
        reason=REASON,
        fingerprint=True,
        kind=ExtentKind.CONVERSATION,
        sessions=[session_id],
    )
    result = ConversationForgotten(
        session_id=session_id,
        turns=report.counts.get(TURN_STORE, 0),
        short_term_rows=report.counts.get(SHORT_TERM_MEMORY, 0),
        entries=len(report.entry_ids),
    )
    audit_event_append(
        action=AuditAction.MEMORY_CONVERSATION_FORGOTTEN,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={
            # A caller-chosen id: the chain keeps only its keyed digest.
            "session_id_digest": keyed_digest(f"session:{session_id}"),
            "turn_count": result.turns,
            "short_term_count": result.short_term_rows,
            "entry_count": result.entries,
            "entry_ids": list(report.entry_ids[:1000]),
        },
    )
    return result
