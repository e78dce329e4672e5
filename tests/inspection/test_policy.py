"""The inspection regime's pure rules: no database."""

import itertools
import uuid

import pytest

from inspection.enums import InspectionState, ReasonCode
from inspection.policy import (
    ENTRY_PATHS,
    TERMINAL_STATES,
    TRANSITIONS,
    approvable_paths,
    consent_is_current,
    consent_types_needed,
    evaluate_grant,
    incident_ref_verifies,
    incident_signature,
    is_legal_transition,
    is_readable,
    may_move,
    needs_second_approver,
    redact_for_inspection,
    snapshot_fingerprint,
)

S = InspectionState
STATES = list(S.values)
ROLES = ["support", "admin", "t&s", "legal"]
CROSS = ReasonCode.CROSS_TENANT
OUT = ReasonCode.SCOPE_OUT_OF_BOUNDS
NLI = ReasonCode.NO_LEGITIMATE_INTEREST
CONSENT = ReasonCode.CONSENT_NOT_CURRENT

# Seed 001, "States and transitions", written out independently of the code.
SEED_MAP = {
    "requested": {"dsar-fulfillment", "incident-escalation", "routine-review"},
    "dsar-fulfillment": {"granted", "denied"},
    "incident-escalation": {"granted", "denied"},
    "routine-review": {"granted", "denied"},
    "granted": {"closed"},
    "denied": set(),
    "closed": set(),
}


def test_the_transition_map_is_exactly_the_seeds():
    assert {state: set(targets) for state, targets in TRANSITIONS.items()} == SEED_MAP
    assert {"denied", "closed"} == TERMINAL_STATES
    assert set(ENTRY_PATHS) == SEED_MAP["requested"]


@pytest.mark.parametrize(("from_state", "to_state"), list(itertools.product(STATES, STATES)))
def test_every_pair_of_states_is_legal_exactly_when_the_seed_allows_it(from_state, to_state):
    assert is_legal_transition(from_state, to_state) is (to_state in SEED_MAP[from_state])


def test_unknown_states_are_never_legal():
    assert not is_legal_transition("requested", "approved")
    assert not is_legal_transition("approved", "granted")


@pytest.mark.parametrize("state", STATES)
def test_only_granted_is_readable(state):
    assert is_readable(state) is (state == "granted")


# --- The policy gate table -------------------------------------------------------------------

# (role, path, sensitive) → outcome for a platform-wide operator with a justification, a
# signed incident ref, an open data-rights request and current consent. None means
# granted. This is the heart of the seed's authorization model, written out row by row.
ROLE_PATH_SENSITIVITY = {
    ("support", "dsar-fulfillment", False): None,
    ("support", "dsar-fulfillment", True): NLI,
    ("support", "incident-escalation", False): None,
    ("support", "incident-escalation", True): NLI,
    ("support", "routine-review", False): None,
    ("support", "routine-review", True): NLI,
    ("admin", "dsar-fulfillment", False): None,
    ("admin", "dsar-fulfillment", True): NLI,
    ("admin", "incident-escalation", False): None,
    ("admin", "incident-escalation", True): NLI,
    ("admin", "routine-review", False): None,
    ("admin", "routine-review", True): NLI,
    ("t&s", "dsar-fulfillment", False): None,
    ("t&s", "dsar-fulfillment", True): NLI,
    ("t&s", "incident-escalation", False): None,
    ("t&s", "incident-escalation", True): None,
    ("t&s", "routine-review", False): None,
    ("t&s", "routine-review", True): NLI,
    ("legal", "dsar-fulfillment", False): None,
    ("legal", "dsar-fulfillment", True): None,
    ("legal", "incident-escalation", False): None,
    ("legal", "incident-escalation", True): NLI,
    ("legal", "routine-review", False): None,
    ("legal", "routine-review", True): NLI,
}

MEMBER = uuid.uuid4()
TENANT_T = uuid.uuid4()
TENANT_U = uuid.uuid4()

# The tenant dimension: (operator binding, scope) → the boundary's verdict, or None.
TENANT_CASES = {
    # A platform-wide operator, consumer memory of a member of T.
    "platform-operator": (None, "profile", None, None),
    # A platform-wide operator, T's tenant memory of a member of T.
    "platform-operator-tenant-scope": (None, "tenant", TENANT_T, None),
    # Bound to T, T's tenant memory of a member of T.
    "bound-own-tenant": (TENANT_T, "tenant", TENANT_T, None),
    # Bound to T, the member's consumer memory: not T's memory.
    "bound-own-tenant-consumer-scope": (TENANT_T, "profile", None, CROSS),
    # Bound to U, a member of T only.
    "bound-other-tenant": (TENANT_U, "profile", None, CROSS),
    "bound-other-tenant-tenant-scope": (TENANT_U, "tenant", TENANT_T, CROSS),
}


def gate(**overrides):
    fields = {
        "role": "support",
        "role_at_request": overrides.get("role", "support"),
        "path": "routine-review",
        "sensitive": False,
        "target_member_id": MEMBER,
        "member_tenant_ids": frozenset({TENANT_T}),
        "operator_tenant_id": None,
        "scope_kind": "profile",
        "scope_user_id": MEMBER,
        "scope_tenant_id": None,
        "has_justification": True,
        "has_signed_incident_ref": True,
        "has_open_dsar": True,
        "consent_current": True,
    }
    fields.update(overrides)
    return evaluate_grant(**fields)


def test_the_table_covers_every_role_path_and_sensitivity():
    assert set(ROLE_PATH_SENSITIVITY) == set(itertools.product(ROLES, ENTRY_PATHS, [False, True]))


@pytest.mark.parametrize(
    ("role", "path", "sensitive", "tenant_case"),
    [
        (*key, case)
        for key, case in itertools.product(sorted(ROLE_PATH_SENSITIVITY), sorted(TENANT_CASES))
    ],
)
def test_policy_gate_table(role, path, sensitive, tenant_case):
    # given
    operator_tenant, scope_kind, scope_tenant, boundary = TENANT_CASES[tenant_case]
    expected = boundary or ROLE_PATH_SENSITIVITY[(role, path, sensitive)]
    # when
    decision = gate(
        role=role,
        role_at_request=role,
        path=path,
        sensitive=sensitive,
        operator_tenant_id=operator_tenant,
        scope_kind=scope_kind,
        scope_tenant_id=scope_tenant,
    )
    # then
    assert decision.granted is (expected is None)
    assert decision.reason_code == expected
    assert decision.explanation


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("path", ENTRY_PATHS)
def test_sensitive_memory_without_current_consent_is_never_granted(role, path):
    decision = gate(role=role, path=path, sensitive=True, consent_current=False)
    assert decision.reason_code == CONSENT


def test_consent_is_not_asked_for_ordinary_memory():
    assert gate(sensitive=False, consent_current=False).granted


@pytest.mark.parametrize("sensitive", [False, True])
def test_incident_escalation_needs_a_signed_incident_ref(sensitive):
    decision = gate(
        role="t&s", path="incident-escalation", sensitive=sensitive, has_signed_incident_ref=False
    )
    assert decision.reason_code == NLI


@pytest.mark.parametrize("sensitive", [False, True])
def test_dsar_fulfillment_needs_an_open_data_rights_request(sensitive):
    decision = gate(role="legal", path="dsar-fulfillment", sensitive=sensitive, has_open_dsar=False)
    assert decision.reason_code == NLI
    assert gate(path="routine-review", has_open_dsar=False).granted


def test_a_missing_justification_is_no_legitimate_interest():
    assert gate(has_justification=False).reason_code == NLI


def test_a_request_without_an_entry_path_is_never_granted():
    assert gate(path="requested").reason_code == NLI


def test_a_role_changed_since_the_request_is_no_legitimate_interest():
    decision = gate(role="legal", role_at_request="support", path="dsar-fulfillment")
    assert decision.reason_code == NLI


def test_a_scope_of_someone_else_is_out_of_bounds():
    assert gate(scope_user_id=uuid.uuid4()).reason_code == OUT


def test_a_scope_that_is_not_admin_reviewable_is_out_of_bounds():
    # Pose memory (biometric aggregates) leaves only through the member's own DSAR export.
    assert gate(scope_kind="pose").reason_code == OUT
    assert gate(role="legal", path="dsar-fulfillment", scope_kind="pose").reason_code == OUT


def test_a_tenant_scope_naming_a_tenant_the_member_is_not_in_is_cross_tenant():
    assert gate(scope_kind="tenant", scope_tenant_id=TENANT_U).reason_code == CROSS


def test_the_tenant_boundary_is_checked_before_anything_else():
    decision = gate(
        operator_tenant_id=TENANT_U,
        scope_user_id=uuid.uuid4(),
        has_justification=False,
        sensitive=True,
        consent_current=False,
    )
    assert decision.reason_code == CROSS


# --- Who may move a request ------------------------------------------------------------------


# Who makes a grant: on a four-eyes request (sensitive, or on the DSAR / incident path)
# a second operator with the path's approving role, never the requester.
APPROVER = {"dsar-fulfillment": "legal", "incident-escalation": "t&s", "routine-review": "admin"}


def _four_eyes(path: str, sensitive: bool) -> bool:
    """About to be granted (from an entry path), sensitive or on a sensitive path."""
    return path in ENTRY_PATHS and (
        sensitive or path in {"dsar-fulfillment", "incident-escalation"}
    )


@pytest.mark.parametrize("sensitive", [False, True])
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("from_state", "to_state"), list(itertools.product(STATES, STATES)))
def test_who_may_move_a_request(from_state, to_state, role, sensitive):
    # given
    four_eyes = _four_eyes(from_state, sensitive)
    approver = four_eyes and APPROVER.get(from_state) == role and to_state in {"granted", "denied"}
    oversight = role == "admin" and to_state in {"denied", "closed"}
    # when
    as_requester = may_move(
        is_requester=True,
        role=role,
        from_state=from_state,
        to_state=to_state,
        include_sensitive=sensitive,
    )
    as_other = may_move(
        is_requester=False,
        role=role,
        from_state=from_state,
        to_state=to_state,
        include_sensitive=sensitive,
    )
    # then
    assert as_requester is not (to_state == "granted" and four_eyes)
    assert as_other is (approver or oversight)


@pytest.mark.parametrize("path", ENTRY_PATHS)
@pytest.mark.parametrize("sensitive", [False, True])
def test_no_role_lets_a_requester_grant_their_own_four_eyes_request(path, sensitive):
    for role in ROLES:
        allowed = may_move(
            is_requester=True,
            role=role,
            from_state=path,
            to_state="granted",
            include_sensitive=sensitive,
        )
        assert allowed is not needs_second_approver(path=path, include_sensitive=sensitive)


def test_an_approving_role_reviews_exactly_its_paths():
    assert approvable_paths("legal") == {"dsar-fulfillment"}
    assert approvable_paths("t&s") == {"incident-escalation"}
    assert approvable_paths("admin") == {"routine-review"}
    assert approvable_paths("support") == frozenset()


# --- Incident references ---------------------------------------------------------------------

KEY = b"incident-system-key"


def test_a_signed_incident_ref_verifies_for_its_member_only():
    # given
    signature = incident_signature(key=KEY, incident_id="inc-2026-0042", member_id=MEMBER)
    ref = f"inc-2026-0042.{signature}"
    # then
    assert incident_ref_verifies(ref, key=KEY, member_id=MEMBER)
    assert not incident_ref_verifies(ref, key=KEY, member_id=uuid.uuid4())
    assert not incident_ref_verifies(ref, key=b"another key", member_id=MEMBER)
    assert not incident_ref_verifies(ref, key=b"", member_id=MEMBER)


@pytest.mark.parametrize(
    "ref",
    [
        "inc-2026-0042",  # the shape the old check accepted: no signature at all
        "inc-2026-0042." + "0" * 64,
        "inc-2026-0043.{sig}",  # another incident's id under this one's signature
        ".{sig}",
        "inc-2026-0042.{sig}0",
    ],
)
def test_an_unsigned_or_altered_incident_ref_does_not_verify(ref):
    sig = incident_signature(key=KEY, incident_id="inc-2026-0042", member_id=MEMBER)
    assert not incident_ref_verifies(ref.format(sig=sig), key=KEY, member_id=MEMBER)


# --- Redaction, consent coverage, fingerprint ------------------------------------------------

CONTENT = {
    "category": "relationship",
    "body": "My partner and I argue about money",
    "multi_actor": {
        "actor_handle": "actor_" + "0" * 32,
        "relationship_note": "my partner",
        "sensitive_interaction": True,
    },
}


@pytest.mark.parametrize("path", ENTRY_PATHS)
def test_multi_actor_is_redacted_unless_the_path_is_dsar_fulfillment(path):
    view = redact_for_inspection(CONTENT, path=path)
    if path == "dsar-fulfillment":
        assert view["multi_actor"] == CONTENT["multi_actor"]
    else:
        assert view["multi_actor"] is None
    assert view["body"] == CONTENT["body"]
    assert CONTENT["multi_actor"] is not None  # the input is left alone


def test_consent_needed_follows_sensitive_categories_and_sensitive_mentions():
    contents = [CONTENT, {"category": "medical"}, {"category": "preference"}]
    assert consent_types_needed(contents) == {"category:medical", "multi-actor-sensitive"}
    assert consent_is_current(
        has_ledger=True,
        active_consent_types=frozenset({"category:medical", "multi-actor-sensitive"}),
        contents=contents,
    )
    assert not consent_is_current(
        has_ledger=True, active_consent_types=frozenset({"category:medical"}), contents=contents
    )
    assert not consent_is_current(has_ledger=False, active_consent_types=frozenset(), contents=[])


def test_the_snapshot_fingerprint_ignores_order_and_follows_content():
    a = ("e1", "r1", {"body": "one"})
    b = ("e2", "r2", {"body": "two"})
    assert snapshot_fingerprint([a, b]) == snapshot_fingerprint([b, a])
    assert snapshot_fingerprint([a, b]) != snapshot_fingerprint([a, ("e2", "r2", {"body": "2"})])
    assert len(snapshot_fingerprint([])) == 64
