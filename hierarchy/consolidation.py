"""STM → LTM consolidation, by its three paths (seed 004):

1. explicit (T5): `stm_consolidate` — through the consent-checked `memory_remember` and
   the session → profile promotion rule; paired `memory.entry.created` +
   `hierarchy.stm.consolidated` events; 409 when already consolidated.
2. age-triggered: `stm_age_consolidation_run` — the hourly scan of rows expiring within
   15 minutes; the v1 policy drops them (`hierarchy.stm.expired`); idempotent through
   `warn_emitted_at`.
3. signal-triggered: `stm_signal_stamp` — when an entry becomes active, opted-in rows
   that reference it are stamped with it (`hierarchy.stm.signal_triggered`).
"""

import logging
from dataclasses import dataclass
from datetime import datetime

import pydantic
from django.db import transaction
from django.utils import timezone

from hierarchy import metrics
from hierarchy.enums import StmScopeKind, StmTrigger
from hierarchy.models import ShortTermMemory
from hierarchy.stm import POLICY_ID, json_contains_id, stm_audit, stm_content, stm_visible
from hierarchy.stm_policy import AGE_TRIGGER_WINDOW, age_decision, default_target_scope
from hierarchy.transitions import Tier, transition_check
from iris_site.api.exceptions import pydantic_fields
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import ActorType, Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.refusals import WriteKind, refusal_payload
from iris_site.errors import Conflict, DomainError, InvalidInput, NotFound, PolicyRefusal
from iris_site.models import User
from memory.access.gate import Reader
from memory.access.origins import evaluate_origin
from memory.contracts import MemoryWriteRequest
from memory.enums import Origin, ProvenanceKind, ScopeKind
from memory.policy.conflicts import evaluate_session_profile_promotion
from memory.services import memory_remember

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ConsolidationInput:
    """What the caller says about the long-term entry; the body is the row's content."""

    explicit: bool = True
    scope: dict | None = None
    subject: str | None = None
    origin: str = Origin.MODEL_INFERRED
    confidence: float | None = None
    # The member's turns the row came from (turn ids): `session-turn` provenance, the only
    # way a surface may consolidate a row as the member's own word (`memory.access.origins`).
    turns: tuple[str, ...] = ()
    # Present only to be refused: an existing entry is never rewritten in place.
    entry_id: str | None = None


@dataclass(frozen=True, slots=True)
class ConsolidationResult:
    row: ShortTermMemory
    entry_id: str
    created: bool
    conflict_rule: str | None
    promotion_reason: str | None


def _occurrences(row: ShortTermMemory) -> int:
    """How often the member's working memory held this same fact (promotion rule)."""
    if not row.content_digest:
        return 1
    return ShortTermMemory.objects.filter(
        member_id=row.member_id, content_digest=row.content_digest
    ).count()


def _write_request(row: ShortTermMemory, given: ConsolidationInput, body: str):
    scope = dict(given.scope or default_target_scope(row.scope_kind, row.scope_id))
    # A `user_id` is the row's member (filled in below); one naming anyone else is
    # refused by the contract (400), never silently swapped for the row's member.
    kind = scope.get("kind")
    provenance = (
        ProvenanceKind.PROFILE_PROMOTION
        if kind == ScopeKind.PROFILE
        else ProvenanceKind.INFERENCE_BATCH
    )
    data = {
        "scope": scope,
        "category": row.category,
        "body": body,
        "origin": given.origin,
        "provenance": [
            {
                "kind": provenance,
                "ref": f"short-term:{row.pk}",
                "captured_at": row.created_at.isoformat(),
            },
            *(
                {
                    "kind": ProvenanceKind.SESSION_TURN,
                    "ref": str(turn),
                    "captured_at": row.created_at.isoformat(),
                }
                for turn in given.turns
            ),
        ],
    }
    if given.subject:
        data["subject"] = given.subject
    if given.confidence is not None:
        data["confidence"] = given.confidence
    try:
        return MemoryWriteRequest.model_validate(data, context={"user_id": row.member_id})
    except pydantic.ValidationError as exc:
        raise InvalidInput(
            "The consolidation input is invalid.", fields=pydantic_fields(exc)
        ) from exc


def _member_asked(given: ConsolidationInput) -> bool:
    """Is this the member's explicit request? Only when it quotes the member: the write is
    `user-stated` with their turns as provenance, which `memory_remember` then checks
    (turns the member spoke, saying what the row says). A caller's `explicit` alone is the
    caller's wish, not the member's, exactly as on the memories endpoint."""
    return given.explicit and given.origin == Origin.USER_STATED and bool(given.turns)


def _promotion(row: ShortTermMemory, write, given: ConsolidationInput):
    """Working memory reaching the profile is a promotion: the member's quoted request, or
    seen 3+ times."""
    if write.scope.kind != ScopeKind.PROFILE:
        return None
    decision = evaluate_session_profile_promotion(
        explicit=_member_asked(given), occurrences=_occurrences(row), requested=True
    )
    if not decision.allowed:
        raise PolicyRefusal(
            f"Promotion to the profile refused ({decision.reason}: "
            f"{decision.occurrences} of {decision.threshold} occurrences).",
            code=decision.reason,
        )
    return decision.reason


def _service_consumer(actor: Actor) -> str | None:
    return (actor.role or None) if actor.type == ActorType.SERVICE else None


def _refusal_audit(
    row_id,
    member_id,
    *,
    actor: Actor,
    trigger: str,
    error: DomainError,
    consumer: str | None = None,
    scope_kind: str | None = None,
) -> None:
    """The consolidation refusal keeps its own action (and the T5 fields) but carries the
    payload shape of `memory.write.refused`, so the dashboard's refusal counter counts
    both as one (`hierarchy.metrics.REFUSAL_ACTIONS`)."""
    audit_event_append(
        action=AuditAction.HIERARCHY_STM_CONSOLIDATION_REFUSED,
        policy_id=POLICY_ID,
        actor=actor,
        severity=Severity.WARNING,
        target_member_id=member_id,
        payload={
            **refusal_payload(
                write=WriteKind.CONSOLIDATE,
                reason=error.code,
                status=error.status_code,
                consumer=consumer,
                scope_kind=scope_kind,
            ),
            "stm_id": str(row_id),
            "trigger": trigger,
            "transition": "t5",
        },
    )


def stm_consolidate(
    *,
    stm_id,
    actor: Actor,
    given: ConsolidationInput | None = None,
    consumer: str | None = None,
    member_id=None,
    reader: Reader | None = None,
    trigger: str = StmTrigger.EXPLICIT,
    now: datetime | None = None,
) -> ConsolidationResult:
    """T5: graduate one row into long-term memory, exactly once.

    The row is locked for the whole write, so concurrent calls queue and all but the
    first find it consolidated (409). A refusal by the consent gate, the scope policy or
    the promotion rule leaves the row as it was and is audited with its reason.

    With `reader` (a service client), a row the read gate withholds from it is
    `NotFound`, decided under the lock before anything else, so neither the answer nor
    the chain tells that it exists; and the target kind must be one the client may write
    (403 `consumer-not-allowed-for-scope`).
    """
    given = given or ConsolidationInput()
    if given.entry_id:
        transition_check(Tier.LTM, Tier.LTM, "rewrite")  # always raises: fail closed
    transition = transition_check(Tier.STM, Tier.LTM, "consolidate")
    now = now or timezone.now()
    target_kind = None
    try:
        with transaction.atomic():
            rows = ShortTermMemory.objects.select_for_update()
            if member_id is not None:
                rows = rows.filter(member_id=member_id)
            row = rows.filter(pk=stm_id).first()
            if row is None or (reader is not None and not stm_visible(row, reader=reader, now=now)):
                raise NotFound()
            if row.consolidated_to is not None:
                raise Conflict(
                    f"This row was already consolidated into {row.consolidated_to}.",
                    code="already-consolidated",
                )
            if row.anonymized_at is not None or row.ttl_expires <= now:
                raise Conflict("This short-term row has expired.", code="stm-expired")
            body = stm_content(row)
            if not body:
                raise Conflict("This row's content cannot be read.", code="stm-unreadable")
            write = _write_request(row, given, body)
            target_kind = write.scope.kind
            if reader is not None:
                # As on the memories endpoint: the client's own write kinds, narrowing included.
                reader.capabilities.require_write_kind(write.scope.kind)
            promotion_reason = _promotion(row, write, given)
            member = User.objects.get(pk=row.member_id)
            session = row.scope_id if row.scope_kind == StmScopeKind.USER_SESSION else ""
            result = memory_remember(
                member=member,
                write=write,
                actor=actor,
                consumer=consumer,
                session_id=session,
                promoted=promotion_reason,
                now=now,
            )
            row.consolidated_to = result.entry.pk
            row.consolidation_trigger = trigger
            row.consolidated_at = now
            row.save(update_fields=["consolidated_to", "consolidation_trigger", "consolidated_at"])
            stm_audit(
                AuditAction.HIERARCHY_STM_CONSOLIDATED,
                row=row,
                actor=actor,
                transition=transition,
                trigger=trigger,
                entry_id=str(result.entry.pk),
                outcome=result.outcome,
                target_scope_kind=write.scope.kind,
                promotion_reason=promotion_reason,
                occurred_at=now,
            )
    except DomainError as exc:
        # A policy said no (422) or the surface may not write there (403): the row stays
        # as it was and the refusal is on the chain with its reason.
        if exc.status_code in (403, 422):
            _refusal_audit(
                stm_id,
                member_id_of(stm_id),
                actor=actor,
                trigger=trigger,
                error=exc,
                consumer=consumer or _service_consumer(actor),
                scope_kind=target_kind,
            )
        raise
    metrics.increment("memory.stm.consolidated", trigger=trigger, scope_kind=row.scope_kind)
    metrics.increment("memory.ltm.consolidation", trigger=trigger, scope_kind=row.scope_kind)
    return ConsolidationResult(
        row=row,
        entry_id=str(row.consolidated_to),
        created=result.created,
        conflict_rule=result.conflict_rule,
        promotion_reason=promotion_reason,
    )


def member_id_of(stm_id):
    return ShortTermMemory.objects.filter(pk=stm_id).values_list("member_id", flat=True).first()


@dataclass(frozen=True, slots=True)
class ConsolidationPreview:
    """What `--apply` would do, without doing it (the CLI's dry run)."""

    stm_id: str
    member_id: str
    target_scope: dict
    category: str
    sensitive: bool
    origin: str
    already_consolidated_to: str | None
    refusal: str | None


def stm_consolidation_preview(
    *,
    stm_id,
    given: ConsolidationInput | None = None,
    writer: str = ActorType.SYSTEM,
    now: datetime | None = None,
) -> ConsolidationPreview:
    given = given or ConsolidationInput()
    if given.entry_id:
        transition_check(Tier.LTM, Tier.LTM, "rewrite")
    row = ShortTermMemory.objects.filter(pk=stm_id).first()
    if row is None:
        raise NotFound()
    refusal = None
    scope = dict(given.scope or default_target_scope(row.scope_kind, row.scope_id))
    now = now or timezone.now()
    if row.anonymized_at is not None or row.ttl_expires <= now:
        refusal = "stm-expired"
    elif row.consolidated_to is None:
        try:
            write = _write_request(row, given, stm_content(row) or "-")
            _promotion(row, write, given)
        except DomainError as exc:
            refusal = exc.code
        else:
            # Who applies it may assert only its own origins (`memory.access.origins`); the row
            # quotes no turn unless the input names some.
            decision = evaluate_origin(
                writer=writer,
                origin=given.origin,
                scope_kind=write.scope.kind,
                member_turns=len(given.turns),
            )
            refusal = None if decision.allowed else decision.code
    return ConsolidationPreview(
        stm_id=str(row.pk),
        member_id=str(row.member_id),
        target_scope=scope,
        category=row.category,
        sensitive=row.sensitive,
        origin=given.origin,
        already_consolidated_to=str(row.consolidated_to) if row.consolidated_to else None,
        refusal=refusal,
    )


# --- age-triggered ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgeRunReport:
    scanned: int = 0
    dropped: int = 0
    unknown_kind: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"scanned": self.scanned, "dropped": self.dropped, "unknown_kind": self.unknown_kind}


def _job_event(action: AuditAction, actor: Actor, severity: str = Severity.INFO, **payload) -> None:
    audit_event_append(
        action=action,
        policy_id=POLICY_ID,
        actor=actor,
        severity=severity,
        payload=payload,
    )


def stm_age_consolidation_run(*, now: datetime | None = None) -> AgeRunReport:
    """The hourly scan: rows expiring within 15 minutes get the v1 policy (drop), each
    exactly once — the `warn_emitted_at` stamp is set by a conditional update, so a
    re-run or a concurrent run never emits twice."""
    now = now or timezone.now()
    actor = Actor.system("stm-consolidation-job")
    _job_event(AuditAction.HIERARCHY_CONSOLIDATION_JOB_STARTED, actor)
    scanned = dropped = unknown = 0
    try:
        due = ShortTermMemory.objects.filter(
            ttl_expires__gt=now,
            ttl_expires__lte=now + AGE_TRIGGER_WINDOW,
            warn_emitted_at=None,
            consolidated_to=None,
            anonymized_at=None,
        ).order_by("ttl_expires", "id")
        for row in due.iterator():
            scanned += 1
            decision = age_decision(row.scope_kind)
            with transaction.atomic():
                stamped = ShortTermMemory.objects.filter(
                    pk=row.pk, warn_emitted_at=None, consolidated_to=None
                ).update(warn_emitted_at=now)
                if not stamped:
                    continue
                stm_audit(
                    AuditAction.HIERARCHY_STM_EXPIRED,
                    row=row,
                    actor=actor,
                    transition=transition_check(Tier.STM, Tier.STM, "expire"),
                    trigger=StmTrigger.AGE_TRIGGERED,
                    action_detail=decision.action_detail,
                    policy=decision.policy,
                    occurred_at=now,
                )
            metrics.increment(
                "memory.stm.expired", scope_kind=row.scope_kind, reason=decision.reason
            )
            if decision.reason == "unknown_kind":
                unknown += 1
            else:
                dropped += 1
    except Exception as exc:
        logger.exception("stm consolidation job failed")
        _job_event(
            AuditAction.HIERARCHY_CONSOLIDATION_JOB_FAILED,
            actor,
            Severity.CRITICAL,
            scanned=scanned,
            error=type(exc).__name__.lower(),
        )
        raise
    report = AgeRunReport(scanned=scanned, dropped=dropped, unknown_kind=unknown)
    _job_event(AuditAction.HIERARCHY_CONSOLIDATION_JOB_COMPLETED, actor, **report.as_dict())
    return report


# --- signal-triggered ------------------------------------------------------------------------


def stm_signal_stamp(*, member_id, entry_id, now: datetime | None = None) -> int:
    """An entry became active: stamp the opted-in, unconsolidated rows that reference it."""
    now = now or timezone.now()
    transition = transition_check(Tier.STM, Tier.LTM, "consolidate")
    actor = Actor.system("stm-signal-watcher")
    stamped = 0
    waiting = ShortTermMemory.objects.filter(
        member_id=member_id,
        consolidate_on_critic_promote=True,
        consolidated_to=None,
        anonymized_at=None,
        **json_contains_id("related_entry_ids", entry_id),
    )
    # Most entries are referenced by no waiting row: one plain read says so, and only
    # when some are does a transaction lock them (and read them again, under the lock).
    if not waiting.exists():
        return 0
    with transaction.atomic():
        for row in waiting.select_for_update():
            row.consolidated_to = entry_id
            row.consolidation_trigger = StmTrigger.SIGNAL_TRIGGERED
            row.consolidated_at = now
            row.save(update_fields=["consolidated_to", "consolidation_trigger", "consolidated_at"])
            stm_audit(
                AuditAction.HIERARCHY_STM_SIGNAL_TRIGGERED,
                row=row,
                actor=actor,
                transition=transition,
                trigger=StmTrigger.SIGNAL_TRIGGERED,
                signal="entry_promoted_to_active",
                entry_id=str(entry_id),
                occurred_at=now,
            )
            metrics.increment(
                "memory.stm.consolidated",
                trigger=StmTrigger.SIGNAL_TRIGGERED,
                scope_kind=row.scope_kind,
            )
            stamped += 1
    return stamped
