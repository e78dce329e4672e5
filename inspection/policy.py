"""The inspection regime's pure rules: the transition table, the policy gate, who may act,
redaction and the snapshot fingerprint.

No ORM: every rule here is tested without a database.
"""

import hashlib
import hmac
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from consent.enums import BaseConsentType, category_consent_type
from inspection.enums import InspectionState, ReasonCode
from iris_site.audit.policy import canonical_json
from iris_site.enums import OperatorRole
from memory.access.gate import Source, Suppression, standing_reason
from memory.enums import Lifecycle, ScopeKind, is_sensitive_category
from memory.policy.scopes import KIND_BLUEPRINTS

POLICY_ID = "iris.inspection.state_machine.v1"

# Defaults; deployments override them in settings (see `inspection.services.windows`).
DECISION_WINDOW = timedelta(hours=72)  # an undecided request is denied (`expired`) after this
GRANT_TIME_BOX = timedelta(hours=24)  # a grant closes by itself after this
NOTICE_WINDOW = timedelta(hours=72)  # a sensitive close must reach the member within this

_S = InspectionState

# The seed's `TRANSITIONS`, exactly. No back-transitions; `denied` and `closed` are terminal.
TRANSITIONS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        _S.REQUESTED: frozenset({_S.DSAR_FULFILLMENT, _S.INCIDENT_ESCALATION, _S.ROUTINE_REVIEW}),
        _S.DSAR_FULFILLMENT: frozenset({_S.GRANTED, _S.DENIED}),
        _S.INCIDENT_ESCALATION: frozenset({_S.GRANTED, _S.DENIED}),
        _S.ROUTINE_REVIEW: frozenset({_S.GRANTED, _S.DENIED}),
        _S.GRANTED: frozenset({_S.CLOSED}),
        _S.DENIED: frozenset(),
        _S.CLOSED: frozenset(),
    }
)
ENTRY_PATHS: tuple[str, ...] = (_S.DSAR_FULFILLMENT, _S.INCIDENT_ESCALATION, _S.ROUTINE_REVIEW)
TERMINAL_STATES: frozenset[str] = frozenset(s for s, targets in TRANSITIONS.items() if not targets)
UNDECIDED_STATES: frozenset[str] = frozenset({_S.REQUESTED, *ENTRY_PATHS})


def is_legal_transition(from_state: str, to_state: str) -> bool:
    return to_state in TRANSITIONS.get(from_state, frozenset())


def is_readable(state: str) -> bool:
    """Member content is readable in exactly one state."""
    return state == _S.GRANTED


# --- Who may move a request -----------------------------------------------------------------

# Oversight: an `admin` operator who can see another operator's request may end it (deny an
# undecided one, close a grant) but never route it or read through it.
OVERSIGHT_ROLES: frozenset[str] = frozenset({OperatorRole.ADMIN})
OVERSIGHT_TARGETS: frozenset[str] = frozenset({_S.DENIED, _S.CLOSED})

# Four eyes: a grant that can reach sensitive memory, or any grant on a sensitive path, is
# made by a second operator holding the path's approving role, never by the requester.
# The requester alone reads what was granted.
FOUR_EYES_PATHS: frozenset[str] = frozenset({_S.DSAR_FULFILLMENT, _S.INCIDENT_ESCALATION})
APPROVING_ROLES: Mapping[str, str] = MappingProxyType(
    {
        _S.DSAR_FULFILLMENT: OperatorRole.LEGAL,
        _S.INCIDENT_ESCALATION: OperatorRole.TRUST_AND_SAFETY,
        _S.ROUTINE_REVIEW: OperatorRole.ADMIN,
    }
)
APPROVER_TARGETS: frozenset[str] = frozenset({_S.GRANTED, _S.DENIED})


def needs_second_approver(*, path: str, include_sensitive: bool) -> bool:
    return include_sensitive or path in FOUR_EYES_PATHS


def may_move(
    *, is_requester: bool, role: str, from_state: str, to_state: str, include_sensitive: bool
) -> bool:
    """Who may take this step. `from_state` is where the request stands now (an entry path
    when it is about to be granted)."""
    four_eyes = from_state in ENTRY_PATHS and needs_second_approver(
        path=from_state, include_sensitive=include_sensitive
    )
    if is_requester:
        return not (to_state == _S.GRANTED and four_eyes)
    if four_eyes and to_state in APPROVER_TARGETS and APPROVING_ROLES.get(from_state) == role:
        return True
    return role in OVERSIGHT_ROLES and to_state in OVERSIGHT_TARGETS


def may_see_others_requests(role: str) -> bool:
    return role in OVERSIGHT_ROLES


def approvable_paths(role: str) -> frozenset[str]:
    """The entry paths whose requests this role reviews as the second pair of eyes."""
    return frozenset(path for path, approver in APPROVING_ROLES.items() if approver == role)


# --- What to offer an operator --------------------------------------------------------------

# The order steps are offered in: routing first, then the decision, then the end.
STEP_ORDER: tuple[str, ...] = (*ENTRY_PATHS, _S.GRANTED, _S.DENIED, _S.CLOSED)


def is_four_eyes(request) -> bool:
    """Whether granting this request is a second operator's step (see `may_move`)."""
    return request.state in ENTRY_PATHS and needs_second_approver(
        path=request.state, include_sensitive=request.include_sensitive
    )


def _role_of(operator) -> str:
    profile = getattr(operator, "operator_profile", None)
    return getattr(profile, "role", "") or ""


def _step_refusal(request, *, is_requester: bool, role: str, to: str) -> str:
    """Why `may_move` refuses this operator the step, in the words the page shows."""
    if is_requester:
        approver = OperatorRole(APPROVING_ROLES[request.state]).label
        return f"A second operator with the {approver} role grants this request, never you."
    if to in ENTRY_PATHS:
        return "Only the operator who opened the request routes it."
    if to == _S.GRANTED and is_four_eyes(request):
        approver = OperatorRole(APPROVING_ROLES[request.state]).label
        return f"Only a second operator with the {approver} role grants this request."
    if to == _S.GRANTED:
        return "Only the operator who opened the request grants it."
    return "Only the operator who opened the request (or admin oversight) may do this."


def available_steps(
    request, operator, *, gate=None, linked: str = ""
) -> list[tuple[str, bool, str]]:
    """Every step the transition map offers from where the request stands, for this
    operator: (step, allowed, reason). `allowed` is what `inspection_transition` would
    decide about who moves (`may_move` and the map, including admin oversight's way out
    of a request not yet routed); `reason` says why not ("" when allowed).

    `gate`, when given, is the policy gate's decision about granting now
    (`inspection.services.inspection_gate_preview`): a grant it would refuse is offered
    as not allowed, with the gate's explanation (deny stays open). Without it the gate
    still runs at `→ granted` and may end the request in `denied`.

    `linked`, when not empty, says why this operator and the requester are one person
    (`iris_site.operator_links.explain`): a four-eyes grant is then offered as not
    allowed, with that reason, as `inspection_transition` refuses it
    (`approver-linked-to-requester`).

    Pure: reads the request's state, requester and sensitivity, and the operator's id and
    role; no query."""
    state = request.state
    is_requester = operator.pk == request.operator_id
    role = _role_of(operator)
    targets = set(TRANSITIONS.get(state, frozenset()))
    oversight = not is_requester and role in OVERSIGHT_ROLES
    if state == _S.REQUESTED and oversight:
        targets.add(_S.DENIED)  # by way of routine-review, as the service does
    steps = []
    for to in sorted(targets, key=STEP_ORDER.index):
        allowed = may_move(
            is_requester=is_requester,
            role=role,
            from_state=state,
            to_state=to,
            include_sensitive=request.include_sensitive,
        )
        reason = (
            "" if allowed else _step_refusal(request, is_requester=is_requester, role=role, to=to)
        )
        if allowed and to == _S.GRANTED and linked and not is_requester and is_four_eyes(request):
            allowed, reason = False, linked_refusal(linked)
        if allowed and to == _S.GRANTED and gate is not None and not gate.granted:
            allowed, reason = False, f"The policy gate would refuse: {gate.explanation}"
        steps.append((to, allowed, reason))
    return steps


def linked_refusal(why: str) -> str:
    return f"You and the requester count as one person ({why}): someone unlinked grants this."


def read_refusal(request, operator, *, now) -> str:
    """Why this operator may not read the request's snapshot now ("" when they may):
    only its requester, only while granted, only inside the time box (as the read
    service decides)."""
    if operator.pk != request.operator_id:
        return "Only the operator who was granted the inspection may read it."
    if not is_readable(request.state):
        return f"Nothing is readable while the inspection is {request.state}."
    if request.expires_at is not None and now >= request.expires_at:
        return "The grant's time box has ended."
    return ""


# --- Incident references ----------------------------------------------------------------------

# `<incident id>.<signature>`: the incident system signs "iris-incident-v1:<id>:<member id>"
# with HMAC-SHA256 under the key shared with Iris (setting INCIDENT_SIGNING_KEY); the
# signature is 64 lowercase hex digits. Bound to the member, so a reference is no good
# for anyone else; without a configured key nothing verifies.
INCIDENT_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")


def incident_signature(*, key: bytes, incident_id: str, member_id: uuid.UUID) -> str:
    message = f"iris-incident-v1:{incident_id}:{member_id}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def incident_ref_verifies(ref: str, *, key: bytes, member_id: uuid.UUID) -> bool:
    incident_id, _, signature = ref.rpartition(".")
    if not key or not INCIDENT_ID_RE.match(incident_id) or len(signature) != 64:
        return False
    expected = incident_signature(key=key, incident_id=incident_id, member_id=member_id)
    return hmac.compare_digest(expected, signature)


# --- The policy gate ------------------------------------------------------------------------

# The only (role, path) pairs that may see sensitive memory; t&s also needs a signed ref,
# legal an open data-rights request of the member.
SENSITIVE_PATHS: Mapping[str, str] = MappingProxyType(
    {
        OperatorRole.LEGAL: _S.DSAR_FULFILLMENT,
        OperatorRole.TRUST_AND_SAFETY: _S.INCIDENT_ESCALATION,
    }
)


def scope_admin_reviewable(kind: str) -> bool:
    """Whether a scope kind may be inspected at all (its primary blueprint's flag)."""
    blueprints = KIND_BLUEPRINTS.get(kind)
    return bool(blueprints) and blueprints[0].admin_reviewable


@dataclass(frozen=True, slots=True)
class GateDecision:
    granted: bool
    reason_code: str | None = None
    explanation: str = ""


GRANT = GateDecision(granted=True, explanation="The policy gate grants the request.")


def _deny(code: str, explanation: str) -> GateDecision:
    return GateDecision(granted=False, reason_code=code, explanation=explanation)


def evaluate_grant(
    *,
    role: str,
    role_at_request: str,
    path: str,
    sensitive: bool,
    target_member_id: uuid.UUID,
    member_tenant_ids: frozenset[uuid.UUID],
    operator_tenant_id: uuid.UUID | None,
    scope_kind: str,
    scope_user_id: uuid.UUID,
    scope_tenant_id: uuid.UUID | None,
    has_justification: bool,
    has_signed_incident_ref: bool,
    has_open_dsar: bool,
    consent_current: bool,
) -> GateDecision:
    """The seed's `defaultPolicyGate`, run at every `→ granted`. Fail-closed: the first
    rule that refuses names the reason; only a request that passes all of them is granted.

    Order: tenant boundary, scope bounds, legitimate interest, then the sensitive rules
    (consent first, then role and path).
    """
    # Tenant boundary. A tenant-bound operator sees only its own tenant's memory: members
    # of that tenant, and only their `tenant` scope of it, never consumer memory.
    if operator_tenant_id is not None:
        if operator_tenant_id not in member_tenant_ids:
            return _deny(ReasonCode.CROSS_TENANT, "The member is outside the operator's tenant.")
        if scope_kind != ScopeKind.TENANT or scope_tenant_id != operator_tenant_id:
            return _deny(
                ReasonCode.CROSS_TENANT,
                "A tenant operator may inspect only its own tenant's memory.",
            )
    if scope_kind == ScopeKind.TENANT and scope_tenant_id not in member_tenant_ids:
        return _deny(ReasonCode.CROSS_TENANT, "The scope names a tenant the member is not in.")

    # Scope bounds.
    if scope_user_id != target_member_id:
        return _deny(ReasonCode.SCOPE_OUT_OF_BOUNDS, "The scope belongs to someone else.")
    if not scope_admin_reviewable(scope_kind):
        return _deny(
            ReasonCode.SCOPE_OUT_OF_BOUNDS, f"{scope_kind} memory is not admin-reviewable."
        )

    # Legitimate interest.
    if not has_justification:
        return _deny(ReasonCode.NO_LEGITIMATE_INTEREST, "A justification is required.")
    if path not in ENTRY_PATHS:
        return _deny(ReasonCode.NO_LEGITIMATE_INTEREST, "The request has no entry path.")
    if role not in OperatorRole.values or role != role_at_request:
        return _deny(
            ReasonCode.NO_LEGITIMATE_INTEREST,
            "The operator's role changed since the request was opened.",
        )
    if path == _S.INCIDENT_ESCALATION and not has_signed_incident_ref:
        return _deny(
            ReasonCode.NO_LEGITIMATE_INTEREST,
            "An incident escalation needs an incident ref that verifies.",
        )
    if path == _S.DSAR_FULFILLMENT and not has_open_dsar:
        return _deny(
            ReasonCode.NO_LEGITIMATE_INTEREST,
            "A DSAR fulfilment names an open data-rights request of this member.",
        )

    if not sensitive:
        return GRANT

    # Sensitive memory: consent first, then the one path each role may use.
    if not consent_current:
        return _deny(
            ReasonCode.CONSENT_NOT_CURRENT,
            "The member's consent does not cover the sensitive memory requested.",
        )
    if path == _S.ROUTINE_REVIEW:
        return _deny(
            ReasonCode.NO_LEGITIMATE_INTEREST, "Routine review never sees sensitive memory."
        )
    if SENSITIVE_PATHS.get(role) != path:
        return _deny(
            ReasonCode.NO_LEGITIMATE_INTEREST,
            f"The {role} role may not read sensitive memory on the {path} path.",
        )
    return GRANT


# --- Sensitivity and consent of what would be seen ------------------------------------------


def content_is_sensitive(content: Mapping[str, Any]) -> bool:
    """A revision's content is sensitive by category, or as a sensitive multi-actor mention."""
    multi_actor = content.get("multi_actor") or {}
    return is_sensitive_category(content.get("category", "")) or bool(
        multi_actor.get("sensitive_interaction")
    )


def consent_types_needed(contents: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The consents that must be in force for an operator to see these sensitive contents."""
    needed: set[str] = set()
    for content in contents:
        category = content.get("category", "")
        if is_sensitive_category(category):
            needed.add(category_consent_type(category))
        if (content.get("multi_actor") or {}).get("sensitive_interaction"):
            needed.add(BaseConsentType.MULTI_ACTOR_SENSITIVE.value)
    return frozenset(needed)


def consent_is_current(
    *,
    has_ledger: bool,
    active_consent_types: frozenset[str],
    contents: Iterable[Mapping[str, Any]],
) -> bool:
    """The member has a consent snapshot, and it covers every sensitive thing in view."""
    return has_ledger and consent_types_needed(contents) <= active_consent_types


# --- What the operator sees -----------------------------------------------------------------


def redact_for_inspection(content: Mapping[str, Any], *, path: str) -> dict[str, Any]:
    """The seed's `redactMultiActorForInspection`: mentions of other people are removed
    unless the inspection fulfils the member's own DSAR (they are the subject)."""
    view = dict(content)
    if path != _S.DSAR_FULFILLMENT:
        view["multi_actor"] = None
    return view


# The paths whose reason needs an entry's history, not only what Iris uses now: the
# member's own data-rights request covers everything Iris holds about them (paused,
# superseded and draft entries included), and a safety incident needs how the facts
# changed. A routine review looks at what Iris currently uses, nothing more.
HISTORY_PATHS: frozenset[str] = frozenset({_S.DSAR_FULFILLMENT, _S.INCIDENT_ESCALATION})


def snapshot_shows(*, path: str, content: Mapping[str, Any], now: datetime) -> bool:
    """Does a snapshot on ``path`` show an entry whose revision content is ``content``?
    On a history path, every live entry; otherwise (a routine review) only an entry in
    use: active and under no suppression in force, as the read gate judges it
    (`memory.access.gate.standing_reason`: an ended timed pause counts as active)."""
    if path in HISTORY_PATHS:
        return True
    suppression = content.get("suppression") or None
    if suppression is not None:
        ends_at = suppression.get("ends_at")
        if isinstance(ends_at, str):
            ends_at = datetime.fromisoformat(ends_at)
        suppression = Suppression(str(suppression.get("reason", "")), ends_at)
    lifecycle = str(content.get("lifecycle") or Lifecycle.ACTIVE)
    return standing_reason(Source("", lifecycle, suppression), now) is None


def snapshot_fingerprint(items: Iterable[tuple[str, str, Mapping[str, Any]]]) -> str:
    """SHA-256 over the pinned (entry id, revision id, revision content) triples, sorted.

    Recorded at grant; a replay recomputing the same value proves it shows exactly what
    was granted.
    """
    rows = sorted([str(e), str(r), dict(c)] for e, r, c in items)
    return hashlib.sha256(canonical_json(rows)).hexdigest()
