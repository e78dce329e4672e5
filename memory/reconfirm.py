"""Re-confirmation ("Is this still true?"): an inferred memory asked back to the member, and
their answer settled (confirmed, corrected or forgotten).
"""

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.errors import Conflict, InvalidInput
from iris_site.services import member_lock
from memory.enums import (
    EntryAuditAction,
    Lifecycle,
    Origin,
)
from memory.forgetting.services import FORGET_REASON, entry_forget
from memory.models import (
    MemoryEntry,
    MemoryNotice,
)
from memory.policy import storage
from memory.revisions import POLICY_ID, entry_lock, revision_append
from memory.selectors import ensure_no_pending_clear
from memory.signals import reconfirm_settled

# --- Re-confirmation ("Is this still true?") ------------------------------------------------

# What a re-confirmation may be asked about, and confirmed: an inference the member never
# confirmed (a model's, or an operator copilot's note about them).
RECONFIRMABLE_ORIGINS = frozenset({Origin.MODEL_INFERRED, Origin.OPERATOR_COPILOT})


class ReconfirmAnswer:
    CONFIRM = "confirm"
    FORGET = "forget"
    CHOICES = (CONFIRM, FORGET)


def reconfirm_settle(entry: MemoryEntry, *, state: str, actor: Actor, now: datetime) -> None:
    """Close the entry's open re-confirmation notice (if any), tell the layer above that
    queued it, and audit (ids only)."""
    updated = MemoryNotice.objects.filter(
        entry_id=entry.pk, kind=MemoryNotice.Kind.RECONFIRM, state=MemoryNotice.State.OPEN
    ).update(state=state, answered_at=now)
    if not updated:
        return
    reconfirm_settled.send(
        sender=MemoryNotice, member_id=entry.member_id, entry_id=entry.pk, answer=state
    )
    audit_event_append(
        action=AuditAction.MEMORY_RECONFIRM_ANSWERED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=entry.member_id,
        target_tenant_id=entry.tenant_id,
        payload={"entry_id": str(entry.pk), "answer": state},
        occurred_at=now,
    )


def memory_reconfirm_ask(
    *, member_id, entry_id, now: datetime | None = None
) -> MemoryNotice | None:
    """Ask the member "Is this still true?" about an active inference: one open notice per
    entry (idempotent: the open one is returned). None when the entry is gone, no longer
    active, or no longer an inference."""
    entry = MemoryEntry.objects.filter(
        pk=entry_id,
        member_id=member_id,
        lifecycle=Lifecycle.ACTIVE,
        origin__in=sorted(RECONFIRMABLE_ORIGINS),
    ).first()
    if entry is None:
        return None
    kind, open_ = MemoryNotice.Kind.RECONFIRM, MemoryNotice.State.OPEN
    existing = MemoryNotice.objects.filter(entry=entry, kind=kind, state=open_).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return MemoryNotice.objects.create(
                member_id=member_id, kind=kind, entry=entry, created_at=now or timezone.now()
            )
    except IntegrityError:  # a concurrent ask created it first
        return MemoryNotice.objects.get(entry=entry, kind=kind, state=open_)


@transaction.atomic
def memory_reconfirm_answer(*, notice: MemoryNotice, answer: str, actor: Actor) -> MemoryNotice:
    """The member answers "Is this still true?": `confirm` makes the inference their
    confirmed word (origin user-confirmed, its confidence, freshness reset by the new
    revision); `forget` forgets it through the erasure service (which removes the notice:
    the returned notice is the answered one, not stored). Edit goes through `memory_edit`,
    which settles the notice too. A notice is answered once (409 `notice-answered`)."""
    if answer not in ReconfirmAnswer.CHOICES:
        raise InvalidInput(fields={"answer": [f"One of: {', '.join(ReconfirmAnswer.CHOICES)}."]})
    member_lock(member_id=notice.member_id)
    ensure_no_pending_clear(member_id=notice.member_id)
    notice = MemoryNotice.objects.select_for_update().get(pk=notice.pk)
    if notice.kind != MemoryNotice.Kind.RECONFIRM:
        raise Conflict("This question is not a re-confirmation.", code="not-a-reconfirm")
    if notice.state != MemoryNotice.State.OPEN:
        raise Conflict("This question was already answered.", code="notice-answered")
    entry = entry_lock(notice.entry)
    now = timezone.now()
    if answer == ReconfirmAnswer.CONFIRM:
        if entry.origin in RECONFIRMABLE_ORIGINS:
            entry.origin = Origin.USER_CONFIRMED
            entry.confidence = storage.confidence_for_origin(Origin.USER_CONFIRMED)
            revision_append(entry, action=EntryAuditAction.CONFIRMED, actor=actor, now=now)
        reconfirm_settle(entry, state=MemoryNotice.State.CONFIRMED, actor=actor, now=now)
        notice.refresh_from_db()
        return notice
    reconfirm_settle(entry, state=MemoryNotice.State.FORGOTTEN, actor=actor, now=now)
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
