"""Writes of the inspection regime. `inspection_transition` is the only way a request moves.

Every step appends an `InspectionEvent` and the canonical episodic audit event
(`inspection.request.transitioned`, policy `iris.inspection.state_machine.v1`) in
the same transaction. Refused attempts (an illegal transition, someone else's request, a
read outside `granted`) are recorded too, in their own transaction, and then raised.
"""

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pydantic
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.selectors import consent_active, consent_event_list
from inspection import policy
from inspection.enums import (
    InspectionState,
    NoticeState,
    ReadKind,
    ReasonCode,
    ReplayItemStatus,
)
from inspection.models import (
    InspectionEvent,
    InspectionNotice,
    InspectionRequest,
    InspectionSnapshotItem,
)
from inspection.selectors import (
    inspection_grants_due,
    inspection_notices_pending,
    inspection_snapshot_items,
    inspection_target_member,
    inspection_undecided_due,
    member_tenant_ids,
)
from iris_site import operator_links
from iris_site.api.exceptions import pydantic_fields
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append, iso
from iris_site.audit.policy import MAX_LIST_LENGTH, TOKEN_RE
from iris_site.audit.refusals import WriteKind, audit_write_refused
from iris_site.errors import Conflict, DomainError, InvalidInput, NotPermitted
from iris_site.hooks import open_data_rights_request_exists
from iris_site.models import User
from iris_site.operators import operators_linked
from memory.contracts import SCOPE_KEY_ADAPTER, MemoryWriteRequest, scope_key
from memory.enums import Origin, ScopeKind
from memory.policy.scopes import ADMIN_CONSUMER
from memory.selectors import memory_entry_list, memory_revision_list
from memory.services import RememberResult, memory_remember

_S = InspectionState
ACTION_TRANSITION = AuditAction.INSPECTION_REQUEST_TRANSITIONED
ACTION_TRANSITION_REJECTED = AuditAction.INSPECTION_REQUEST_TRANSITION_REJECTED
ACTION_SNAPSHOT_PINNED = AuditAction.INSPECTION_SNAPSHOT_PINNED
ACTION_READ = AuditAction.INSPECTION_SNAPSHOT_READ
ACTION_READ_REFUSED = AuditAction.INSPECTION_SNAPSHOT_READ_REFUSED
ACTION_NOTICE_QUEUED = AuditAction.INSPECTION_NOTICE_QUEUED
ACTION_NOTICE_DELIVERED = AuditAction.INSPECTION_NOTICE_DELIVERED
ACTION_COPILOT_NOTE = AuditAction.INSPECTION_COPILOT_NOTE_ADDED
ACTION_COPILOT_NOTE_REFUSED = AuditAction.INSPECTION_COPILOT_NOTE_REFUSED
MAX_JUSTIFICATION_LENGTH = 2000
MAX_INCIDENT_REF_LENGTH = 128


@dataclass(frozen=True, slots=True)
class Windows:
    decision: timedelta
    grant: timedelta
    notice: timedelta


def windows() -> Windows:
    """The regime's time limits; settings `IRIS_INSPECTION_{DECISION,GRANT,NOTICE}_HOURS`
    override the defaults (72 h, 24 h, 72 h)."""

    def hours(name: str, default: timedelta) -> timedelta:
        value = getattr(settings, name, None)
        return default if value is None else timedelta(hours=float(value))

    return Windows(
        decision=hours("IRIS_INSPECTION_DECISION_HOURS", policy.DECISION_WINDOW),
        grant=hours("IRIS_INSPECTION_GRANT_HOURS", policy.GRANT_TIME_BOX),
        notice=hours("IRIS_INSPECTION_NOTICE_HOURS", policy.NOTICE_WINDOW),
    )


# --- Shared pieces ------------------------------------------------------------------------


def _profile(operator: User):
    """The acting operator's role and binding; people without one cannot take part."""
    profile = getattr(operator, "operator_profile", None) if operator.is_operator else None
    if profile is None:
        raise NotPermitted("Only operators with a role may take part in inspections.")
    return profile


def _actor(operator: User | None, system_role: str) -> Actor:
    return Actor.of(operator) if operator is not None else Actor.system(system_role)


UNVERIFIED_REF = "Not signed by the incident system for this member."


def _incident_ref_verifies(ref: str, member_id) -> bool:
    key = (settings.INCIDENT_SIGNING_KEY or "").encode()
    return bool(ref) and policy.incident_ref_verifies(ref, key=key, member_id=member_id)


def _verified_incident_ref(raw: str | None, *, member_id) -> str:
    """A given reference must verify for this member (docs/design.md "Four eyes")."""
    ref = _normalise_incident_ref(raw)
    if ref and not _incident_ref_verifies(ref, member_id):
        raise InvalidInput(
            "The incident reference does not verify.",
            code="incident-ref-unverified",
            fields={"signed_incident_ref": [UNVERIFIED_REF]},
        )
    return ref


def _open_dsar(request_id: uuid.UUID | None, *, member_id) -> uuid.UUID | None:
    if request_id is not None and not open_data_rights_request_exists(
        member_id=member_id, request_id=request_id
    ):
        raise InvalidInput(
            "No open data-rights request of this member has this id.",
            fields={"dsar_request_id": ["Name an open data-rights request of this member."]},
        )
    return request_id


def _normalise_incident_ref(raw: str | None) -> str:
    """A signed incident reference is an identifier from the incident system, kept in
    lowercase token form so it may travel in audit payloads."""
    if raw is None or not raw.strip():
        return ""
    ref = raw.strip().lower()
    if len(ref) > MAX_INCIDENT_REF_LENGTH or not TOKEN_RE.match(ref):
        raise InvalidInput(
            fields={
                "signed_incident_ref": [
                    "An incident identifier: letters, digits and . _ : - / only, "
                    f"at most {MAX_INCIDENT_REF_LENGTH} characters."
                ]
            }
        )
    return ref


def _base_payload(inspection: InspectionRequest) -> dict:
    return {
        "inspection_id": str(inspection.pk),
        "operator_id": str(inspection.operator_id),
        "role": inspection.operator_role,
        "scope_kind": inspection.scope_kind,
        "include_sensitive": inspection.include_sensitive,
        "path": inspection.path or None,
    }


def _audit(
    action: str,
    inspection: InspectionRequest,
    *,
    actor: Actor,
    now: datetime,
    severity: str = Severity.INFO,
    **payload,
):
    return audit_event_append(
        action=action,
        policy_id=policy.POLICY_ID,
        actor=actor,
        severity=severity,
        target_member_id=inspection.member_id,
        target_tenant_id=inspection.target_tenant_id,
        payload={**_base_payload(inspection), **payload},
        occurred_at=now,
    )


def _record_step(
    inspection: InspectionRequest,
    *,
    from_state: str,
    actor: Actor,
    now: datetime,
    reason_code: str = "",
    seen: list[tuple[str, str]] | None = None,
    **payload,
) -> InspectionEvent:
    """The canonical audit event for one step, then the step itself."""
    extra = dict(payload)
    chunks: list[list[tuple[str, str]]] = []
    if seen is not None:
        # Payload lists are bounded; a very large snapshot continues in further events.
        chunks = [seen[i : i + MAX_LIST_LENGTH] for i in range(0, len(seen), MAX_LIST_LENGTH)]
        first = chunks[0] if chunks else []
        extra |= {
            "seen_count": len(seen),
            "seen_entry_ids": [e for e, _ in first],
            "seen_revision_ids": [r for _, r in first],
            "seen_parts": max(1, len(chunks)),
        }
    audit = _audit(
        ACTION_TRANSITION,
        inspection,
        actor=actor,
        now=now,
        severity=Severity.WARNING if inspection.state == _S.DENIED else Severity.INFO,
        from_state=from_state or None,
        to_state=inspection.state,
        reason_code=reason_code or None,
        **extra,
    )
    for part, chunk in enumerate(chunks[1:], start=2):
        _audit(
            ACTION_SNAPSHOT_PINNED,
            inspection,
            actor=actor,
            now=now,
            part=part,
            seen_entry_ids=[e for e, _ in chunk],
            seen_revision_ids=[r for _, r in chunk],
        )
    event = InspectionEvent(
        inspection=inspection,
        member_id=inspection.member_id,
        sequence=InspectionEvent.objects.filter(inspection=inspection).count() + 1,
        from_state=from_state,
        to_state=inspection.state,
        reason_code=reason_code,
        actor_type=actor.type,
        actor_id=actor.id,
        actor_role=actor.role,
        seen_count=len(seen) if seen is not None else None,
        audit_event_id=audit.pk,
        occurred_at=now,
    )
    event.save(force_insert=True)
    return event


def _refuse_recorded(record: Callable[[], None], error: DomainError) -> DomainError:
    """Record a refused attempt in its own transaction, so raising does not undo it."""
    with transaction.atomic():
        record()
    return error


# --- Opening ------------------------------------------------------------------------------


@transaction.atomic
def inspection_open(
    *,
    operator: User,
    member_id,
    scope: dict,
    justification: str,
    include_sensitive: bool = False,
    signed_incident_ref: str | None = None,
    dsar_request_id: uuid.UUID | None = None,
    now: datetime | None = None,
) -> InspectionRequest:
    """Open a request to inspect one scope of one member's memory, with a justification.

    A member outside the operator's tenant is a 404; nothing is visible until the request
    has gone down an entry path and through the policy gate. An incident reference or a
    data-rights request named here must already check out (verified signature; an open
    request of this member).
    """
    profile = _profile(operator)
    now = now or timezone.now()
    member = inspection_target_member(operator=operator, member_id=member_id)
    text = (justification or "").strip()
    if not text or len(text) > MAX_JUSTIFICATION_LENGTH:
        raise InvalidInput(
            fields={"justification": [f"Say why, in 1 to {MAX_JUSTIFICATION_LENGTH} characters."]}
        )
    raw_scope = dict(scope or {})
    raw_scope.setdefault("user_id", str(member.pk))
    try:
        parsed = SCOPE_KEY_ADAPTER.validate_python(raw_scope)
    except pydantic.ValidationError as exc:
        raise InvalidInput(
            "The scope is not a valid memory scope key.",
            fields={f"scope.{k}": v for k, v in pydantic_fields(exc).items()},
        ) from exc
    inspection = InspectionRequest(
        id=uuid.uuid4(),
        operator=operator,
        operator_role=profile.role,
        operator_tenant_id=profile.tenant_id,
        member=member,
        target_tenant_id=parsed.tenant_id if parsed.kind == ScopeKind.TENANT else None,
        scope=parsed.model_dump(mode="json"),
        scope_kind=parsed.kind,
        scope_key=scope_key(parsed),
        include_sensitive=include_sensitive,
        state=_S.REQUESTED,
        justification=text,
        signed_incident_ref=_verified_incident_ref(signed_incident_ref, member_id=member.pk),
        dsar_request_id=_open_dsar(dsar_request_id, member_id=member.pk),
        created_at=now,
        decide_by=now + windows().decision,
        updated_at=now,
    )
    inspection.full_clean()
    inspection.save(force_insert=True)
    _record_step(
        inspection,
        from_state="",
        actor=Actor.of(operator),
        now=now,
        has_signed_incident_ref=bool(inspection.signed_incident_ref),
    )
    return inspection


# --- Transitions --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TransitionResult:
    inspection: InspectionRequest
    event: InspectionEvent
    seen_entry_ids: tuple[str, ...] = ()
    gate_explanation: str = ""


@dataclass(frozen=True, slots=True)
class _Candidate:
    entry_id: str
    revision_id: str
    content: dict
    sensitive: bool


def _candidates(inspection: InspectionRequest, *, now: datetime | None = None) -> list[_Candidate]:
    """What a grant would pin now: the live (not forgotten) entries of the scope, at their
    current revisions; sensitive ones only if the request covers them; on a routine
    review only those in use (active, no suppression in force: `policy.snapshot_shows`),
    on a path whose reason needs history (`policy.HISTORY_PATHS`) paused, superseded and
    draft ones too."""
    now = now or timezone.now()
    path = inspection.path or inspection.state
    entries = (
        memory_entry_list(member_id=inspection.member_id)
        .filter(scope_key=inspection.scope_key, revision__isnull=False)
        .select_related("revision")
        .order_by("created_at", "id")
    )
    candidates = []
    for entry in entries:
        content = entry.revision.content
        if not policy.snapshot_shows(path=path, content=content, now=now):
            continue
        sensitive = policy.content_is_sensitive(content)
        if sensitive and not inspection.include_sensitive:
            continue
        candidates.append(_Candidate(str(entry.pk), str(entry.revision_id), content, sensitive))
    return candidates


def _gate(
    inspection: InspectionRequest, candidates: list[_Candidate], ledger_head, *, now: datetime
) -> policy.GateDecision:
    """The policy gate's decision about granting this request now, from where it stands."""
    scope = SCOPE_KEY_ADAPTER.validate_python(inspection.scope)
    # The gate judges the requester (who will read) as they are now: a changed role or
    # binding counts. On a four-eyes request the grant is someone else's step.
    profile = getattr(inspection.operator, "operator_profile", None)
    current_role = profile.role if profile else ""
    current_tenant = profile.tenant_id if profile else None
    return policy.evaluate_grant(
        role=current_role,
        role_at_request=inspection.operator_role,
        path=inspection.state,
        sensitive=inspection.include_sensitive,
        target_member_id=inspection.member_id,
        member_tenant_ids=member_tenant_ids(member_id=inspection.member_id),
        operator_tenant_id=current_tenant,
        scope_kind=scope.kind,
        scope_user_id=scope.user_id,
        scope_tenant_id=getattr(scope, "tenant_id", None),
        has_justification=bool(inspection.justification.strip()),
        has_signed_incident_ref=_incident_ref_verifies(
            inspection.signed_incident_ref, inspection.member_id
        ),
        has_open_dsar=open_data_rights_request_exists(
            member_id=inspection.member_id, request_id=inspection.dsar_request_id
        ),
        consent_current=policy.consent_is_current(
            has_ledger=ledger_head is not None,
            active_consent_types=consent_active(member_id=inspection.member_id, now=now).types,
            contents=[c.content for c in candidates if c.sensitive],
        ),
    )


def inspection_gate_preview(
    *, inspection: InspectionRequest, now: datetime | None = None
) -> policy.GateDecision | None:
    """What the policy gate would say about `→ granted` now (None: not on an entry path).
    A read: nothing is written or recorded; the grant itself runs the gate again."""
    if inspection.state not in policy.ENTRY_PATHS:
        return None
    now = now or timezone.now()
    ledger_head = consent_event_list(member_id=inspection.member_id).order_by("-sequence").first()
    return _gate(inspection, _candidates(inspection, now=now), ledger_head, now=now)


def _grant_or_deny(
    inspection: InspectionRequest, *, operator: User | None, actor: Actor, now: datetime
) -> TransitionResult:
    """The fail-closed grant boundary: the gate runs first; a refusal becomes `denied`."""
    from_state = inspection.state
    candidates = _candidates(inspection, now=now)
    ledger_head = consent_event_list(member_id=inspection.member_id).order_by("-sequence").first()
    decision = _gate(inspection, candidates, ledger_head, now=now)
    inspection.consent_snapshot_event_id = ledger_head.pk if ledger_head else None
    inspection.updated_at = now
    if not decision.granted:
        inspection.state = _S.DENIED
        inspection.reason_code = decision.reason_code
        inspection.full_clean()
        inspection.save()
        event = _record_step(
            inspection,
            from_state=from_state,
            actor=actor,
            now=now,
            reason_code=inspection.reason_code,
            consent_snapshot_event_id=str(ledger_head.pk) if ledger_head else None,
        )
        return TransitionResult(inspection, event, gate_explanation=decision.explanation)

    inspection.state = _S.GRANTED
    inspection.granted_by = operator
    inspection.granted_at = now
    inspection.expires_at = now + windows().grant
    inspection.snapshot_fingerprint = policy.snapshot_fingerprint(
        (c.entry_id, c.revision_id, c.content) for c in candidates
    )
    inspection.full_clean()
    inspection.save()
    InspectionSnapshotItem.objects.bulk_create(
        [
            InspectionSnapshotItem(
                inspection=inspection,
                member_id=inspection.member_id,
                position=position,
                entry_id=c.entry_id,
                revision_id=c.revision_id,
                category=c.content.get("category", ""),
                sensitive=c.sensitive,
            )
            for position, c in enumerate(candidates, start=1)
        ]
    )
    seen = [(c.entry_id, c.revision_id) for c in candidates]
    event = _record_step(
        inspection,
        from_state=from_state,
        actor=actor,
        now=now,
        seen=seen,
        snapshot_fingerprint=inspection.snapshot_fingerprint,
        consent_snapshot_event_id=str(ledger_head.pk) if ledger_head else None,
        expires_at=iso(inspection.expires_at),
        sensitive_seen_count=sum(c.sensitive for c in candidates),
        investigation_carveout=inspection.investigation_carveout,
    )
    return TransitionResult(
        inspection,
        event,
        seen_entry_ids=tuple(e for e, _ in seen),
        gate_explanation=decision.explanation,
    )


def _queue_notice(inspection: InspectionRequest, *, actor: Actor, now: datetime) -> None:
    notice = InspectionNotice.objects.create(
        inspection=inspection,
        member_id=inspection.member_id,
        state=NoticeState.PENDING,
        queued_at=now,
        due_at=now + windows().notice,
    )
    _audit(
        ACTION_NOTICE_QUEUED,
        inspection,
        actor=actor,
        now=now,
        notice_id=str(notice.pk),
        due_at=iso(notice.due_at),
    )


def _check_extras(
    inspection: InspectionRequest,
    to: str,
    *,
    ref: str,
    dsar_request_id: uuid.UUID | None,
    carveout: bool | None,
) -> None:
    fields: dict[str, list[str]] = {}
    if ref and to != _S.INCIDENT_ESCALATION:
        fields["signed_incident_ref"] = ["Given only when routing to incident-escalation."]
    if ref and not _incident_ref_verifies(ref, inspection.member_id):
        fields["signed_incident_ref"] = [UNVERIFIED_REF]
    if dsar_request_id is not None and to != _S.DSAR_FULFILLMENT:
        fields["dsar_request_id"] = ["Given only when routing to dsar-fulfillment."]
    elif to == _S.DSAR_FULFILLMENT and not open_data_rights_request_exists(
        member_id=inspection.member_id, request_id=dsar_request_id or inspection.dsar_request_id
    ):
        fields["dsar_request_id"] = ["Name an open data-rights request of this member."]
    incident = to == _S.INCIDENT_ESCALATION or inspection.path == _S.INCIDENT_ESCALATION
    if carveout and (to not in (_S.GRANTED, _S.CLOSED) or not incident):
        fields["investigation_carveout"] = [
            "Recorded only on the incident-escalation path, when granting or closing."
        ]
    if fields:
        raise InvalidInput("These fields do not apply to this transition.", fields=fields)


def inspection_transition(
    *,
    inspection: InspectionRequest,
    to: str,
    operator: User | None,
    now: datetime | None = None,
    signed_incident_ref: str | None = None,
    dsar_request_id: uuid.UUID | None = None,
    investigation_carveout: bool | None = None,
    reason_code: str | None = None,
    system_role: str = "inspection",
) -> TransitionResult:
    """Move a request one step along the seed's transition map.

    `operator` is the person acting (None: a scheduled job, with `reason_code`). The
    requester may take any legal step but one: on a four-eyes request (sensitive, or on
    the DSAR or incident path) the grant is made by a second operator with the path's
    approving role (`policy.may_move`). An `admin` overseer may deny (also a request not
    yet routed: it goes through `routine-review`, as the expiry job does) or close.
    `→ granted` runs the policy gate and may end in `denied` instead. Raises
    NotPermitted (403) or Conflict (409, `illegal-transition`), both recorded.
    """
    if to not in _S.values:
        raise InvalidInput(fields={"to": [f"Unknown state {to!r}."]})
    now = now or timezone.now()
    ref = _normalise_incident_ref(signed_incident_ref)
    role = _profile(operator).role if operator is not None else ""
    actor = _actor(operator, system_role)
    refusal: DomainError | None = None
    with transaction.atomic():
        locked = InspectionRequest.objects.select_for_update().get(pk=inspection.pk)
        from_state = locked.state
        attempt = {"from_state": from_state, "attempted_to_state": to}
        is_requester = operator is not None and operator.pk == locked.operator_id
        oversight_denial = (
            operator is not None
            and not is_requester
            and role in policy.OVERSIGHT_ROLES
            and from_state == _S.REQUESTED
            and to == _S.DENIED
        )
        if operator is not None and not policy.may_move(
            is_requester=is_requester,
            role=role,
            from_state=from_state,
            to_state=to,
            include_sensitive=locked.include_sensitive,
        ):
            refusal = (
                NotPermitted(
                    "A second operator with the approving role grants this request, "
                    "never its requester.",
                    code="second-approver-required",
                )
                if is_requester
                else NotPermitted(
                    "Only the requesting operator may take this step.", code="not-request-owner"
                )
            )
        elif (
            operator is not None
            and not is_requester
            and to == _S.GRANTED
            and policy.is_four_eyes(locked)
            and (links := operators_linked(operator, locked.operator))
        ):
            # Four eyes between people, not accounts: the approver may not be the
            # requester by any link Iris knows (`iris_site.operator_links`).
            refusal = NotPermitted(
                "You and the requester are linked ("
                + operator_links.explain(links)
                + "): a second person, unlinked to them, grants this request.",
                code="approver-linked-to-requester",
            )
            attempt["links"] = list(links)
        elif not oversight_denial and not policy.is_legal_transition(from_state, to):
            refusal = Conflict(
                f"An inspection cannot go from {from_state} to {to}.", code="illegal-transition"
            )
        if refusal is None:
            _check_extras(
                locked,
                to,
                ref=ref,
                dsar_request_id=dsar_request_id,
                carveout=investigation_carveout,
            )
            if oversight_denial:
                # The seed has no `requested → denied`; the way out is the path that can
                # never reach sensitive memory, as for an expired request.
                _apply(
                    locked,
                    _S.ROUTINE_REVIEW,
                    operator=operator,
                    actor=actor,
                    now=now,
                    ref="",
                    carveout=False,
                    reason_code=None,
                )
            result = _apply(
                locked,
                to,
                operator=operator,
                actor=actor,
                now=now,
                ref=ref,
                dsar_request_id=dsar_request_id,
                carveout=bool(investigation_carveout),
                reason_code=reason_code,
            )
    if refusal is not None:
        code = refusal.code

        def record() -> None:
            _audit(
                ACTION_TRANSITION_REJECTED,
                locked,
                actor=actor,
                now=now,
                severity=Severity.WARNING,
                refusal=code,
                **attempt,
            )

        raise _refuse_recorded(record, refusal)
    inspection.refresh_from_db()
    return result


def _apply(
    inspection: InspectionRequest,
    to: str,
    *,
    operator: User | None,
    actor: Actor,
    now: datetime,
    ref: str,
    carveout: bool,
    reason_code: str | None,
    dsar_request_id: uuid.UUID | None = None,
) -> TransitionResult:
    from_state = inspection.state
    if to == _S.GRANTED:
        if carveout:
            inspection.investigation_carveout = True
        return _grant_or_deny(inspection, operator=operator, actor=actor, now=now)

    system_reason = reason_code if operator is None and reason_code else ""
    inspection.state = to
    inspection.updated_at = now
    step_reason = ""
    if to in policy.ENTRY_PATHS:
        inspection.path = to
        if ref:
            inspection.signed_incident_ref = ref
        if dsar_request_id is not None:
            inspection.dsar_request_id = dsar_request_id
        # A job routes a never-routed request on its way to expiry, and says why.
        step_reason = system_reason
    elif to == _S.DENIED:
        inspection.reason_code = system_reason or ReasonCode.DECLINED
        step_reason = inspection.reason_code
    elif to == _S.CLOSED:
        inspection.closed_at = now
        if carveout:
            inspection.investigation_carveout = True
        inspection.reason_code = system_reason
        step_reason = system_reason
    inspection.full_clean()
    inspection.save()
    event = _record_step(
        inspection,
        from_state=from_state,
        actor=actor,
        now=now,
        reason_code=step_reason,
        has_signed_incident_ref=bool(inspection.signed_incident_ref),
        investigation_carveout=inspection.investigation_carveout,
    )
    if to == _S.CLOSED and inspection.include_sensitive and not inspection.investigation_carveout:
        _queue_notice(inspection, actor=actor, now=now)
    return TransitionResult(inspection, event)


# --- Reads --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SnapshotItemView:
    entry_id: uuid.UUID
    revision_id: uuid.UUID
    status: str  # ReplayItemStatus
    sensitive: bool
    category: str
    revision_number: int | None = None
    recorded_at: datetime | None = None
    content: dict | None = None  # redacted for the path; None when purged
    redacted: tuple[str, ...] = ()  # what was taken out of it (REDACTION_* reasons)


# Why part of a pinned entry, or all of it, is not shown (counted on every read).
REDACTION_PURGED = "purged"  # erased by a hard delete since the grant: erasure wins
REDACTION_MULTI_ACTOR = "multi-actor"  # mentions of other people (every path but DSAR)
# Pinned by a routine review granted before it pinned entries in use only (paused,
# superseded, draft): withheld whole, as a grant now never pins it (`policy.snapshot_shows`).
REDACTION_NOT_IN_USE = "not-in-use"


@dataclass(frozen=True, slots=True)
class SnapshotView:
    inspection: InspectionRequest
    kind: str
    items: list[SnapshotItemView] = field(default_factory=list)
    replay_fingerprint: str = ""

    @property
    def matches_grant(self) -> bool:
        return self.replay_fingerprint == self.inspection.snapshot_fingerprint

    @property
    def purged_entry_ids(self) -> list[uuid.UUID]:
        return [i.entry_id for i in self.items if i.status == ReplayItemStatus.PURGED]

    @property
    def redaction_counts(self) -> dict[str, int]:
        """How many pinned entries lost what, by reason (purged: the whole entry)."""
        counts: dict[str, int] = {}
        for item in self.items:
            for reason in item.redacted:
                counts[reason] = counts.get(reason, 0) + 1
        return counts


def _reconstruct(inspection: InspectionRequest) -> tuple[list[SnapshotItemView], str]:
    """Rebuild the pinned set from revision rows by id: later edits and tombstones are new
    revisions and change nothing here; a purged revision is reported, never rebuilt."""
    items, present = [], []
    for pin in inspection_snapshot_items(inspection_id=inspection.pk):
        revision = (
            memory_revision_list(member_id=pin.member_id, entry_id=pin.entry_id)
            .filter(pk=pin.revision_id)
            .first()
        )
        if revision is None:
            items.append(
                SnapshotItemView(
                    pin.entry_id,
                    pin.revision_id,
                    ReplayItemStatus.PURGED,
                    pin.sensitive,
                    pin.category,
                    redacted=(REDACTION_PURGED,),
                )
            )
            continue
        present.append((str(pin.entry_id), str(pin.revision_id), revision.content))
        if not policy.snapshot_shows(
            path=inspection.path,
            content=revision.content,
            now=inspection.granted_at or timezone.now(),
        ):
            items.append(
                SnapshotItemView(
                    pin.entry_id,
                    pin.revision_id,
                    ReplayItemStatus.AS_GRANTED,
                    pin.sensitive,
                    pin.category,
                    revision_number=revision.number,
                    recorded_at=revision.created_at,
                    redacted=(REDACTION_NOT_IN_USE,),
                )
            )
            continue
        view = policy.redact_for_inspection(revision.content, path=inspection.path)
        shown = revision.content.get("multi_actor")
        items.append(
            SnapshotItemView(
                pin.entry_id,
                pin.revision_id,
                ReplayItemStatus.AS_GRANTED,
                pin.sensitive,
                pin.category,
                revision_number=revision.number,
                recorded_at=revision.created_at,
                content=view,
                redacted=(REDACTION_MULTI_ACTOR,) if view.get("multi_actor") != shown else (),
            )
        )
    fingerprint = policy.snapshot_fingerprint(present)
    return items, fingerprint


def _grant_refusal(
    current: InspectionRequest, *, operator: User, now: datetime, doing: str = "read it"
) -> DomainError | None:
    """Why this operator may not act on the inspection's grant now, or None: only the
    operator it was granted to, only while granted and inside its time box."""
    if operator.pk != current.operator_id:
        return NotPermitted(
            f"Only the operator who was granted the inspection may {doing}.",
            code="not-request-owner",
        )
    if not policy.is_readable(current.state):
        return Conflict(
            f"Nothing is readable while the inspection is {current.state}.",
            code="inspection-not-granted",
        )
    if current.expires_at is not None and now >= current.expires_at:
        return Conflict("The grant's time box has ended.", code="grant-expired")
    return None


def inspection_read(
    *,
    inspection: InspectionRequest,
    operator: User,
    kind: str = ReadKind.SNAPSHOT,
    now: datetime | None = None,
) -> SnapshotView:
    """The pinned snapshot, for the requesting operator, only while granted. Every read
    and every refused read is recorded."""
    now = now or timezone.now()
    _profile(operator)
    actor = Actor.of(operator)
    current = InspectionRequest.objects.get(pk=inspection.pk)
    refusal = _grant_refusal(current, operator=operator, now=now)
    if refusal is not None:
        code = refusal.code

        def record() -> None:
            _audit(
                ACTION_READ_REFUSED,
                current,
                actor=actor,
                now=now,
                severity=Severity.WARNING,
                read_kind=kind,
                state=current.state,
                refusal=code,
            )

        raise _refuse_recorded(record, refusal)

    with transaction.atomic():
        items, fingerprint = _reconstruct(current)
        _audit(
            ACTION_READ,
            current,
            actor=actor,
            now=now,
            read_kind=kind,
            served_count=sum(i.status == ReplayItemStatus.AS_GRANTED for i in items),
            purged_count=sum(i.status == ReplayItemStatus.PURGED for i in items),
            matches_grant=fingerprint == current.snapshot_fingerprint,
        )
    return SnapshotView(current, kind, items, fingerprint)


# --- Copilot notes ---------------------------------------------------------------------------


def _copilot_write(
    inspection: InspectionRequest,
    *,
    operator: User,
    body: str,
    category: str,
    subject: str | None,
) -> MemoryWriteRequest:
    try:
        return MemoryWriteRequest.model_validate(
            {
                "scope": {
                    "kind": ScopeKind.OPERATOR_COPILOT,
                    "user_id": str(inspection.member_id),
                    "operator_id": str(operator.pk),
                },
                "category": category,
                "subject": subject,
                "body": body,
                "origin": Origin.OPERATOR_COPILOT,
            }
        )
    except pydantic.ValidationError as exc:
        raise InvalidInput(
            "The copilot note is invalid.", code="invalid", fields=pydantic_fields(exc)
        ) from exc


def inspection_copilot_note_add(
    *,
    inspection: InspectionRequest,
    operator: User,
    body: str,
    category: str,
    subject: str | None = None,
    now: datetime | None = None,
) -> RememberResult:
    """The operator path for `operator-copilot` memory: the operator an inspection was
    granted to, while it is granted and inside its time box, adds a note about the
    inspected member. It is written through `memory_remember` as that operator, with
    origin `operator-copilot`, into the member's operator-copilot scope for that operator
    (`{user_id, operator_id}`), which only the operator consumers' blueprint recalls.

    A refusal by the grant (someone else's inspection, not granted, time box ended) is
    recorded like a refused read; a refusal by memory's write path as
    `memory.write.refused`; both in their own transaction, then raised. The audit keeps
    ids, the category and the outcome, never the note."""
    now = now or timezone.now()
    _profile(operator)
    actor = Actor.of(operator)
    current = InspectionRequest.objects.get(pk=inspection.pk)

    def refused(error: DomainError, state: str) -> DomainError:
        code = error.code

        def record() -> None:
            _audit(
                ACTION_COPILOT_NOTE_REFUSED,
                current,
                actor=actor,
                now=now,
                severity=Severity.WARNING,
                state=state,
                refusal=code,
            )

        return _refuse_recorded(record, error)

    if refusal := _grant_refusal(current, operator=operator, now=now, doing="add notes"):
        raise refused(refusal, current.state)
    write = _copilot_write(
        current, operator=operator, body=body, category=category, subject=subject
    )
    member = User.objects.get(pk=current.member_id)
    try:
        with transaction.atomic():
            # Under the row's lock, so a close (by hand or by the time box) and this note
            # never interleave: a note lands inside the grant or not at all.
            locked = InspectionRequest.objects.select_for_update().get(pk=current.pk)
            if refusal := _grant_refusal(locked, operator=operator, now=now, doing="add notes"):
                raise refusal
            result = memory_remember(
                member=member, write=write, actor=actor, consumer=ADMIN_CONSUMER, now=now
            )
            _audit(
                ACTION_COPILOT_NOTE,
                locked,
                actor=actor,
                now=now,
                entry_id=str(result.entry.pk),
                category=result.entry.category,
                outcome=result.outcome,
            )
    except DomainError as exc:
        if exc.code in ("not-request-owner", "inspection-not-granted", "grant-expired"):
            raise refused(exc, InspectionRequest.objects.get(pk=current.pk).state) from None
        audit_write_refused(
            exc,
            write=WriteKind.COPILOT_NOTE,
            actor=actor,
            member_id=current.member_id,
            consumer=ADMIN_CONSUMER,
            scope_kind=ScopeKind.OPERATOR_COPILOT,
            extra={"inspection_id": str(current.pk)},
        )
        raise
    return result


# --- Jobs (idempotent; thin task wrappers in inspection.tasks) ------------------------------


def inspection_expire_undecided(*, now: datetime | None = None) -> int:
    """Deny (`expired`) every request left undecided past its decision window.

    Only allowed transitions are used: a request never routed goes through
    `routine-review` (the path that can never reach sensitive memory) on its way out.
    """
    now = now or timezone.now()
    expired = 0
    for inspection in inspection_undecided_due(now=now).order_by("decide_by", "id"):
        with transaction.atomic():
            locked = InspectionRequest.objects.select_for_update().get(pk=inspection.pk)
            if locked.state not in policy.UNDECIDED_STATES:
                continue  # decided since the query ran
            common = {"operator": None, "now": now, "reason_code": ReasonCode.EXPIRED}
            if locked.state == _S.REQUESTED:
                inspection_transition(
                    inspection=locked,
                    to=_S.ROUTINE_REVIEW,
                    system_role="inspection-expiry",
                    **common,
                )
            inspection_transition(
                inspection=locked, to=_S.DENIED, system_role="inspection-expiry", **common
            )
            expired += 1
    return expired


def inspection_close_expired_grants(*, now: datetime | None = None) -> int:
    """Close every grant whose time box has ended (`grant-expired`)."""
    now = now or timezone.now()
    closed = 0
    for inspection in inspection_grants_due(now=now).order_by("expires_at", "id"):
        with transaction.atomic():
            locked = InspectionRequest.objects.select_for_update().get(pk=inspection.pk)
            if locked.state != _S.GRANTED:
                continue
            inspection_transition(
                inspection=locked,
                to=_S.CLOSED,
                operator=None,
                now=now,
                reason_code=ReasonCode.GRANT_EXPIRED,
                system_role="inspection-time-box",
            )
            closed += 1
    return closed


def inspection_notices_deliver(*, now: datetime | None = None) -> int:
    """Deliver queued member notices (they appear on the member's pages and API)."""
    now = now or timezone.now()
    delivered = 0
    for notice in inspection_notices_pending(now=now).order_by("due_at", "id"):
        with transaction.atomic():
            locked = (
                InspectionNotice.objects.select_for_update()
                .select_related("inspection")
                .get(pk=notice.pk)
            )
            if locked.state != NoticeState.PENDING:
                continue
            locked.state = NoticeState.DELIVERED
            locked.delivered_at = now
            locked.save(update_fields=["state", "delivered_at"])
            _audit(
                ACTION_NOTICE_DELIVERED,
                locked.inspection,
                actor=Actor.system("inspection-notices"),
                now=now,
                notice_id=str(locked.pk),
                on_time=now <= locked.due_at,
            )
            delivered += 1
    return delivered
