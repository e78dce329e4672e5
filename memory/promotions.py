"""Telling the member when Iris decided for them (issue 47, item 4): a memory Iris put into
"About you" on its own (the session → profile rule's third occurrence, or a short-term
consolidation that reached it without the member's quoted word) opens a promotion notice.
The member keeps it, edits it (`memory_edit` settles the notice) or forgets it; each answer
is on the audit chain with ids and the choice, never the words.
"""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.errors import Conflict, InvalidInput
from iris_site.services import member_lock
from memory.enums import EntryAuditAction, Origin, PromotionReason, ScopeKind
from memory.forgetting.services import FORGET_REASON, entry_forget
from memory.models import MemoryEntry, MemoryNotice
from memory.policy import storage
from memory.revisions import POLICY_ID, entry_lock, revision_append
from memory.selectors import ensure_no_pending_clear

# The promotions Iris made on its own: the member's explicit request is no news to them.
AUTOMATIC_PROMOTIONS = frozenset({PromotionReason.REPEATED_OCCURRENCE_THRESHOLD_MET})
# What keeping it makes the member's word about an inference.
CONFIRMABLE_ORIGINS = frozenset(
    {Origin.MODEL_INFERRED, Origin.OPERATOR_COPILOT, Origin.SUMMARIZED_FROM_SESSION}
)


class PromotionAnswer:
    KEEP = "keep"
    FORGET = "forget"
    CHOICES = (KEEP, FORGET)


def promotion_notice_open(entry: MemoryEntry, *, promotion: str | None, now: datetime):
    """Open a promotion notice for `entry` when Iris put it into "About you" on its own;
    None otherwise (the member asked, or it went elsewhere)."""
    if promotion not in AUTOMATIC_PROMOTIONS or entry.scope_kind != ScopeKind.PROFILE:
        return None
    return MemoryNotice.objects.create(
        member_id=entry.member_id,
        kind=MemoryNotice.Kind.PROMOTION,
        entry=entry,
        rule=promotion,
        created_at=now,
    )


def _audit(notice: MemoryNotice, entry: MemoryEntry, *, answer: str, actor: Actor, now) -> None:
    audit_event_append(
        action=AuditAction.MEMORY_PROMOTION_ANSWERED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=entry.member_id,
        target_tenant_id=entry.tenant_id,
        payload={"notice_id": str(notice.pk), "entry_id": str(entry.pk), "answer": answer},
        occurred_at=now,
    )


def promotion_settle(entry: MemoryEntry, *, state: str, actor: Actor, now: datetime) -> None:
    """Close the entry's open promotion notice (an edit or a confirmation on the memory
    page answers it too) and audit the answer (ids only)."""
    for notice in MemoryNotice.objects.select_for_update().filter(
        entry_id=entry.pk, kind=MemoryNotice.Kind.PROMOTION, state=MemoryNotice.State.OPEN
    ):
        notice.state, notice.answered_at = state, now
        notice.save(update_fields=["state", "answered_at"])
        _audit(notice, entry, answer=state, actor=actor, now=now)


@transaction.atomic
def memory_promotion_answer(*, notice: MemoryNotice, answer: str, actor: Actor) -> MemoryNotice:
    """The member answers "Iris added this to About you": `keep` leaves it there (an
    inference becomes their confirmed word); `forget` forgets it everywhere (the erasure
    removes the notice: the returned notice is the answered one, not stored). Editing goes
    through `memory_edit`. Answered once (409 `notice-answered`)."""
    if answer not in PromotionAnswer.CHOICES:
        raise InvalidInput(fields={"answer": [f"One of: {', '.join(PromotionAnswer.CHOICES)}."]})
    member_lock(member_id=notice.member_id)
    ensure_no_pending_clear(member_id=notice.member_id)
    notice = MemoryNotice.objects.select_for_update().get(pk=notice.pk)
    if notice.kind != MemoryNotice.Kind.PROMOTION:
        raise Conflict("This notice is not about a promotion.", code="not-a-promotion")
    if notice.state != MemoryNotice.State.OPEN:
        raise Conflict("This question was already answered.", code="notice-answered")
    entry = entry_lock(notice.entry)
    now = timezone.now()
    if answer == PromotionAnswer.KEEP:
        if entry.origin in CONFIRMABLE_ORIGINS:
            entry.origin = Origin.USER_CONFIRMED
            entry.confidence = storage.confidence_for_origin(Origin.USER_CONFIRMED)
            revision_append(entry, action=EntryAuditAction.CONFIRMED, actor=actor, now=now)
        promotion_settle(entry, state=MemoryNotice.State.KEPT, actor=actor, now=now)
        notice.refresh_from_db()
        return notice
    promotion_settle(entry, state=MemoryNotice.State.FORGOTTEN, actor=actor, now=now)
    entry_forget(
        entry,
        actor=actor,
        now=now,
        reason=FORGET_REASON,
        fingerprint=True,
        earlier_wordings=True,
    )
    notice.state, notice.answered_at = MemoryNotice.State.FORGOTTEN, now
    notice.entry = MemoryEntry.objects.get(pk=entry.pk)
    return notice
