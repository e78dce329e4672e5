"""The member's open questions that an assistant surface may ask them.

Iris asks rather than decides silently: an open `memory.MemoryNotice` is such a question,
either a conflict question ("you mentioned X earlier — should I update?", the proposal
held as a draft until the member answers) or a re-confirmation of a stale inference.
The member answers in their own memory pages (`/api/v1/me/notices/…`); a surface may
only list the questions, to ask them in conversation.

A surface sees a question only when the read gate lets it see the memory asked about
and the proposal (`hierarchy.question_policy`, pure). What the gate withholds is counted
by reason, never named, and every read is audited with ids and counts only.
"""

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from hierarchy.question_policy import question_reason
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from memory.access.capabilities import Capabilities
from memory.access.gate import Reader, ReaderKind
from memory.models import MemoryEntry, MemoryNotice
from memory.recall.store import CANDIDATE_COLUMNS, candidate_of
from memory.selectors import member_read_state

POLICY_ID = "iris.hierarchy.questions.v1"
MAX_QUESTIONS = 20  # the newest; a surface asks a few at a time


@dataclass(frozen=True, slots=True)
class QuestionRead:
    questions: list[MemoryNotice]  # visible to the reader, newest first
    withheld: dict[str, int]  # by the gate's reason


def _items(entry_ids) -> dict:
    rows = MemoryEntry.objects.filter(pk__in=entry_ids).values_list(*CANDIDATE_COLUMNS, named=True)
    return {str(row.id): candidate_of(row).as_item() for row in rows}


def open_questions_read(
    *,
    member_id,
    capabilities: Capabilities,
    context: str,
    actor: Actor,
    now: datetime | None = None,
) -> QuestionRead:
    """The member's open questions the calling surface may ask, through the read gate.
    `context` has been checked against `capabilities` (else the API's 403)."""
    now = now or timezone.now()
    reader = Reader(
        kind=ReaderKind.SERVICE,
        member_id=str(member_id),
        capabilities=capabilities,
        context=context,
    )
    state = member_read_state(member_id=member_id, now=now)
    notices = list(
        # Every open question, a pending clear's included: the read gate withholds them
        # and counts each by its reason (`memory_notice_list` is the member's own view).
        MemoryNotice.objects.filter(member_id=member_id, state=MemoryNotice.State.OPEN)
        .select_related("proposed_entry")
        .order_by("-created_at", "-id")[:MAX_QUESTIONS]
    )
    items = _items({n.entry_id for n in notices} | {n.proposed_entry_id for n in notices} - {None})
    visible, withheld = [], {}
    for notice in notices:
        proposal = items[str(notice.proposed_entry_id)] if notice.proposed_entry_id else None
        reason = question_reason(items[str(notice.entry_id)], proposal, reader, state, now)
        if reason is None:
            visible.append(notice)
        else:
            withheld[reason] = withheld.get(reason, 0) + 1
    audit_event_append(
        action=AuditAction.HIERARCHY_QUESTIONS_READ,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member_id,
        payload={
            "context": context,
            "notice_ids": [str(notice.pk) for notice in visible],
            "question_count": len(visible),
            "withheld_counts": withheld,
        },
        occurred_at=now,
    )
    return QuestionRead(questions=visible, withheld=withheld)
