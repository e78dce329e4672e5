"""The conversation turn log surfaces append to; `session-turn` provenance points here."""

from django.db import transaction
from django.utils import timezone

from consent.selectors import opt_outs_active
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.refusals import WriteKind, audit_write_refused
from iris_site.errors import DomainError, PolicyRefusal
from iris_site.models import User
from iris_site.services import member_lock
from memory.access.gate import kind_opted_out
from memory.controls import surface_pause_check
from memory.enums import ScopeKind
from memory.forgetting import fingerprints
from memory.models import ConversationTurn
from memory.policy.redaction import redact_pii_from_text
from memory.recall.context import neighbour_context_refresh
from memory.selectors import ensure_no_pending_clear, memory_off_the_record

POLICY_ID = "iris.memory.turns.v1"


def conversation_turn_append(
    *,
    member: User,
    session_id: str,
    speaker: str,
    text: str,
    consumer: str,
    actor: Actor,
    redact_pii: bool = False,
) -> ConversationTurn:
    """Append one turn; with `redact_pii`, emails, phones, cards and addresses become
    tokens before anything is stored; a person the member had Iris forget is written as
    `fingerprints.FORGOTTEN_PERSON`, whatever the surface asked. A refusal (off the
    record, a pending clear) is audited as `memory.write.refused` after the write rolled
    back."""
    try:
        return _turn_append(
            member=member,
            session_id=session_id,
            speaker=speaker,
            text=text,
            consumer=consumer,
            actor=actor,
            redact_pii=redact_pii,
        )
    except DomainError as exc:
        audit_write_refused(
            exc, write=WriteKind.TURN, actor=actor, member_id=member.pk, consumer=consumer
        )
        raise


@transaction.atomic
def _turn_append(
    *,
    member: User,
    session_id: str,
    speaker: str,
    text: str,
    consumer: str,
    actor: Actor,
    redact_pii: bool,
) -> ConversationTurn:
    if memory_off_the_record(member_id=member.pk, session_id=session_id):
        raise PolicyRefusal("Off the record: nothing is remembered right now.", code="paused")
    kinds: list[str] = []
    if redact_pii:
        redaction = redact_pii_from_text(text)
        text = redaction.text
        kinds = sorted({str(kind) for kind in redaction.tokens.values()})
    # One writer per member decides the next position.
    member_lock(member_id=member.pk)
    ensure_no_pending_clear(member_id=member.pk)
    surface_pause_check(member_id=member.pk, consumer=consumer)
    # The turn log is the member's conversation history: an opt-out of it (or of memory
    # altogether) keeps every turn out, read under the lock `opt_out_record` takes.
    if kind_opted_out(ScopeKind.SESSION, opt_outs_active(member_id=member.pk)):
        raise PolicyRefusal(
            "The member turned off conversation history; see their scope policies.",
            code="scope-suppressed",
        )
    # A person the member had Iris forget is not logged back in by name.
    text, forgotten = fingerprints.names_redact(member_id=member.pk, text=text)
    if forgotten:
        kinds = sorted({*kinds, fingerprints.FORGOTTEN_PERSON_KIND})
    last = (
        ConversationTurn.objects.filter(member=member, session_id=session_id)
        .order_by("-sequence")
        .values_list("sequence", flat=True)
        .first()
    )
    turn = ConversationTurn(
        member=member,
        session_id=session_id,
        sequence=(last or 0) + 1,
        speaker=speaker,
        consumer=consumer,
        text=text,
        redacted_kinds=kinds,
        created_at=timezone.now(),
    )
    turn.save(force_insert=True)
    # Entries anchored just before this turn gain it as neighbour context.
    neighbour_context_refresh(member_id=member.pk, session_id=session_id, positions=[turn.sequence])
    audit_event_append(
        action=AuditAction.MEMORY_TURN_APPENDED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={
            "turn_id": str(turn.pk),
            "sequence": turn.sequence,
            "speaker": speaker,
            "redacted_kinds": kinds,
        },
    )
    return turn
