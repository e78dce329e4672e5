"""The state machine against the database: every legal and every illegal step, the
policy gate at `→ granted`, and the audit event each step (or refusal) writes."""

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from consent.models import ConsentEvent
from datarights.models import DataRightsRequest
from inspection.enums import InspectionState, ReasonCode
from inspection.models import InspectionEvent, InspectionRequest, InspectionSnapshotItem
from inspection.policy import POLICY_ID, TRANSITIONS, needs_second_approver
from inspection.selectors import inspection_get
from inspection.services import inspection_transition
from iris_site.audit.events import Actor
from iris_site.errors import Conflict, InvalidInput, NotFound, NotPermitted
from iris_site.models import AuditEvent, OperatorProfile, User
from memory.forgetting.services import memory_tombstone
from tests.consent.factories import record
from tests.inspection.factories import (
    JUSTIFICATION,
    approver_for,
    grant,
    granted,
    incident_ref,
    inspection_audit,
    member_with_memory,
    move,
    open_dsar,
    open_request,
    route,
)
from tests.iris_site.factories import MemberFactory, OperatorFactory, TenantFactory
from tests.memory.factories import assert_no_audit_mentions, remember

pytestmark = pytest.mark.django_db

S = InspectionState
TRANSITION = "inspection.request.transitioned"
REJECTED = "inspection.request.transition_rejected"
LEGAL_PAIRS = [(f, t) for f, targets in TRANSITIONS.items() for t in sorted(targets)]
ILLEGAL_PAIRS = [
    (f, t) for f, t in itertools.product(S.values, S.values) if t not in TRANSITIONS[f]
]


def drive_to(state: str, operator, member) -> InspectionRequest:
    """An inspection brought to `state` through legal steps only."""
    inspection = open_request(operator, member)
    steps = {
        S.REQUESTED: [],
        S.DSAR_FULFILLMENT: [],
        S.INCIDENT_ESCALATION: [],
        S.ROUTINE_REVIEW: [S.ROUTINE_REVIEW],
        S.GRANTED: [S.ROUTINE_REVIEW, S.GRANTED],
        S.DENIED: [S.ROUTINE_REVIEW, S.DENIED],
        S.CLOSED: [S.ROUTINE_REVIEW, S.GRANTED, S.CLOSED],
    }[state]
    if state in (S.DSAR_FULFILLMENT, S.INCIDENT_ESCALATION):
        route(inspection, operator, state)
    if steps:
        move(inspection, operator, *steps)
    inspection.refresh_from_db()
    assert inspection.state == state
    return inspection


def assert_canonical(
    audit: AuditEvent, inspection, *, operator, from_state, to_state, requester=None
):
    assert audit.action == TRANSITION and audit.policy_id == POLICY_ID
    assert audit.actor_type == "operator" and audit.actor_id == operator.pk
    assert audit.actor_role == operator.operator_profile.role
    assert audit.target_member_id == inspection.member_id
    assert audit.target_tenant_id == inspection.target_tenant_id
    payload = audit.payload
    assert payload["inspection_id"] == str(inspection.pk)
    assert payload["operator_id"] == str((requester or operator).pk)
    assert payload["role"] == inspection.operator_role
    assert payload["scope_kind"] == inspection.scope_kind
    assert payload["from_state"] == from_state
    assert payload["to_state"] == to_state


@pytest.fixture
def legal():
    return OperatorFactory(role="legal")


@pytest.fixture
def member():
    return member_with_memory()[0]


def test_opening_records_the_first_step_without_the_justification(legal, member):
    # when
    inspection = open_request(legal, member)
    # then
    assert inspection.state == S.REQUESTED and inspection.path == ""
    assert inspection.operator_role == "legal" and inspection.justification == JUSTIFICATION
    assert inspection.scope == {"kind": "profile", "user_id": str(member.pk)}
    assert inspection.decide_by == inspection.created_at + timedelta(hours=72)
    (event,) = InspectionEvent.objects.filter(inspection=inspection)
    assert (event.from_state, event.to_state, event.sequence) == ("", "requested", 1)
    (audit,) = inspection_audit(inspection)
    assert_canonical(audit, inspection, operator=legal, from_state=None, to_state="requested")
    assert event.audit_event_id == audit.pk
    assert_no_audit_mentions(JUSTIFICATION, "wrong reminder")


@pytest.mark.parametrize(("from_state", "to_state"), LEGAL_PAIRS)
def test_every_legal_transition_moves_records_and_audits(legal, member, from_state, to_state):
    # given
    inspection = drive_to(from_state, legal, member)
    steps_before = InspectionEvent.objects.filter(inspection=inspection).count()
    four_eyes = needs_second_approver(path=from_state, include_sensitive=False)
    actor = approver_for(from_state) if to_state == S.GRANTED and four_eyes else legal
    extra = {"dsar_request_id": open_dsar(member).pk} if to_state == S.DSAR_FULFILLMENT else {}
    # when
    result = inspection_transition(inspection=inspection, to=to_state, operator=actor, **extra)
    # then
    inspection.refresh_from_db()
    assert inspection.state == to_state == result.inspection.state
    event = InspectionEvent.objects.get(inspection=inspection, sequence=steps_before + 1)
    assert (event.from_state, event.to_state) == (from_state, to_state)
    role = actor.operator_profile.role
    assert (event.actor_type, event.actor_id, event.actor_role) == ("operator", actor.pk, role)
    audit = AuditEvent.objects.get(pk=event.audit_event_id)
    assert_canonical(
        audit, inspection, operator=actor, requester=legal, from_state=from_state, to_state=to_state
    )
    if to_state == S.GRANTED:
        pinned = list(
            InspectionSnapshotItem.objects.filter(inspection=inspection).order_by("position")
        )
        assert audit.payload["seen_entry_ids"] == [str(p.entry_id) for p in pinned]
        assert audit.payload["seen_revision_ids"] == [str(p.revision_id) for p in pinned]
        assert audit.payload["seen_count"] == len(pinned) == event.seen_count
    if to_state == S.DENIED:
        assert inspection.reason_code == event.reason_code == ReasonCode.DECLINED
        assert audit.payload["reason_code"] == "declined" and audit.severity == "warning"
    if to_state == S.CLOSED:
        assert inspection.closed_at is not None and inspection.reason_code == ""


@pytest.mark.parametrize(("from_state", "to_state"), ILLEGAL_PAIRS)
def test_every_illegal_transition_is_refused_and_recorded(legal, member, from_state, to_state):
    # given
    inspection = drive_to(from_state, legal, member)
    steps_before = InspectionEvent.objects.filter(inspection=inspection).count()
    # when
    with pytest.raises(Conflict) as excinfo:
        inspection_transition(inspection=inspection, to=to_state, operator=legal)
    # then
    assert excinfo.value.code == "illegal-transition" and excinfo.value.status_code == 409
    inspection.refresh_from_db()
    assert inspection.state == from_state
    assert InspectionEvent.objects.filter(inspection=inspection).count() == steps_before
    (refusal,) = inspection_audit(inspection, REJECTED)
    assert refusal.policy_id == POLICY_ID and refusal.actor_id == legal.pk
    assert refusal.payload["from_state"] == from_state
    assert refusal.payload["attempted_to_state"] == to_state
    assert refusal.payload["refusal"] == "illegal-transition"


def test_an_unknown_target_state_is_bad_input(legal, member):
    inspection = open_request(legal, member)
    with pytest.raises(InvalidInput):
        inspection_transition(inspection=inspection, to="approved", operator=legal)


# --- The gate at → granted ---------------------------------------------------------------------


def test_grant_pins_the_exact_entries_of_the_scope_at_their_current_revisions(legal):
    # given
    member, entries = member_with_memory("category:medical")
    forgotten = remember(member, subject="tea", body="I drink green tea").entry
    memory_tombstone(entry=forgotten, actor=Actor.of(member))
    # when
    inspection = granted(legal, member, S.DSAR_FULFILLMENT, include_sensitive=True)
    # then
    pinned = {
        (p.entry_id, p.revision_id, p.sensitive)
        for p in InspectionSnapshotItem.objects.filter(inspection=inspection)
    }
    ordinary, sensitive = entries["ordinary"], entries["sensitive"]
    assert pinned == {
        (ordinary.pk, ordinary.revision_id, False),
        (sensitive.pk, sensitive.revision_id, True),
    }  # not the session memory (other scope), not the forgotten one
    assert inspection.granted_at is not None
    assert inspection.expires_at == inspection.granted_at + timedelta(hours=24)
    assert len(inspection.snapshot_fingerprint) == 64
    latest = ConsentEvent.objects.filter(member=member).order_by("-sequence").first()
    assert inspection.consent_snapshot_event_id == latest.pk


def test_a_request_that_does_not_cover_sensitive_memory_never_pins_it(legal):
    member, entries = member_with_memory("category:medical")
    inspection = granted(legal, member, S.DSAR_FULFILLMENT, include_sensitive=False)
    pinned = set(
        InspectionSnapshotItem.objects.filter(inspection=inspection).values_list(
            "entry_id", flat=True
        )
    )
    assert pinned == {entries["ordinary"].pk}


@pytest.mark.parametrize(
    "path", [S.ROUTINE_REVIEW, S.DSAR_FULFILLMENT, S.INCIDENT_ESCALATION], ids=str
)
def test_a_support_operators_attempt_on_sensitive_memory_ends_in_a_recorded_denial(path):
    # given
    support = OperatorFactory(role="support")
    member, _ = member_with_memory("category:medical")
    inspection = open_request(support, member, include_sensitive=True)
    inspection = route(inspection, support, path)
    # when: the second operator grants; the gate judges the requester, who will read
    result = grant(inspection, support)
    # then
    assert result.inspection.state == S.DENIED
    assert result.inspection.reason_code == ReasonCode.NO_LEGITIMATE_INTEREST
    assert not InspectionSnapshotItem.objects.filter(inspection=inspection).exists()
    last = InspectionEvent.objects.filter(inspection=inspection).order_by("-sequence").first()
    assert (last.from_state, last.to_state, last.reason_code) == (
        path,
        "denied",
        "no-legitimate-interest",
    )
    audit = AuditEvent.objects.get(pk=last.audit_event_id)
    assert audit.action == TRANSITION and audit.severity == "warning"
    assert audit.payload["reason_code"] == "no-legitimate-interest"
    assert audit.payload["include_sensitive"] is True
    assert "seen_entry_ids" not in audit.payload


def test_trust_and_safety_reads_sensitive_memory_only_on_an_incident_with_a_signed_ref():
    member, entries = member_with_memory("category:medical")
    tns = OperatorFactory(role="t&s")
    # routed with the signed ref given at routing time
    lead = OperatorFactory(role="t&s")
    ref = incident_ref(member, "inc-2026-77")
    # routed with the signed ref given at routing time (any case: kept lowercase)
    inspection = open_request(tns, member, include_sensitive=True)
    move(inspection, tns, S.INCIDENT_ESCALATION, signed_incident_ref=ref.upper())
    inspection.refresh_from_db()
    assert inspection.signed_incident_ref == ref
    result = inspection_transition(inspection=inspection, to=S.GRANTED, operator=lead)
    assert result.inspection.state == S.GRANTED
    assert str(entries["sensitive"].pk) in result.seen_entry_ids
    # without a ref the same request is refused
    other = open_request(tns, member, include_sensitive=True)
    move(other, tns, S.INCIDENT_ESCALATION)
    refused = inspection_transition(inspection=other, to=S.GRANTED, operator=lead)
    assert refused.inspection.reason_code == ReasonCode.NO_LEGITIMATE_INTEREST


@pytest.mark.parametrize(
    "forged",
    [
        "inc-2026-77",  # the right shape, no signature
        "inc-2026-77." + "0" * 64,  # a made-up signature
        "signed-for-someone-else",
    ],
)
def test_an_incident_ref_that_does_not_verify_is_refused_at_routing(forged):
    # given
    member, _ = member_with_memory("category:medical")
    tns = OperatorFactory(role="t&s")
    if forged == "signed-for-someone-else":
        forged = incident_ref(MemberFactory())
    inspection = open_request(tns, member, include_sensitive=True)
    # when
    with pytest.raises(InvalidInput) as excinfo:
        move(inspection, tns, S.INCIDENT_ESCALATION, signed_incident_ref=forged)
    # then
    assert "signed_incident_ref" in excinfo.value.fields
    inspection.refresh_from_db()
    assert inspection.state == S.REQUESTED and inspection.signed_incident_ref == ""
    with pytest.raises(InvalidInput):
        open_request(tns, member, signed_incident_ref=forged)


def test_sensitive_memory_without_current_consent_is_consent_not_current(legal):
    # given: a medical consent that lapsed before the expiry job recorded it
    member, _ = member_with_memory()
    now = timezone.now()
    record(member, "category:medical", valid_until=now + timedelta(hours=1))
    remember(member, category="medical", subject="allergy", body="Allergic to penicillin")
    inspection = route(
        open_request(legal, member, include_sensitive=True), legal, S.DSAR_FULFILLMENT
    )
    # when
    result = inspection_transition(
        inspection=inspection,
        to=S.GRANTED,
        operator=approver_for(S.DSAR_FULFILLMENT),
        now=now + timedelta(hours=2),
    )
    # then
    assert result.inspection.state == S.DENIED
    assert result.inspection.reason_code == ReasonCode.CONSENT_NOT_CURRENT
    assert inspection_audit(inspection, TRANSITION)[-1].payload["reason_code"] == (
        "consent-not-current"
    )


def test_a_member_without_any_consent_snapshot_is_consent_not_current_for_sensitive(legal):
    member = MemberFactory()
    inspection = open_request(legal, member, include_sensitive=True)
    result = grant(route(inspection, legal, S.DSAR_FULFILLMENT), legal)
    assert result.inspection.reason_code == ReasonCode.CONSENT_NOT_CURRENT


def test_a_scope_of_another_member_is_scope_out_of_bounds(legal, member):
    stranger = MemberFactory()
    inspection = open_request(legal, member, scope={"kind": "profile", "user_id": str(stranger.pk)})
    result = move(inspection, legal, S.ROUTINE_REVIEW, S.GRANTED)
    assert result.inspection.reason_code == ReasonCode.SCOPE_OUT_OF_BOUNDS


def test_pose_memory_is_not_admin_reviewable(legal, member):
    scope = {"kind": "pose", "session_id": "s", "scene_id": "c", "pose_id": "p", "avatar_id": "a"}
    inspection = open_request(legal, member, scope=scope)
    result = grant(route(inspection, legal, S.DSAR_FULFILLMENT), legal)
    assert result.inspection.reason_code == ReasonCode.SCOPE_OUT_OF_BOUNDS


def test_a_tenant_operator_reads_its_tenants_memory_but_not_consumer_memory():
    tenant = TenantFactory()
    member, _ = member_with_memory(tenants=[tenant])
    tenant_entry = remember(
        member, scope={"kind": "tenant", "tenant_id": str(tenant.pk)}, subject="course"
    ).entry
    operator = OperatorFactory(role="support", tenant=tenant)
    tenant_scope = {"kind": "tenant", "tenant_id": str(tenant.pk)}
    inspection = granted(operator, member, scope=tenant_scope)
    assert inspection.target_tenant_id == tenant.pk
    assert list(
        InspectionSnapshotItem.objects.filter(inspection=inspection).values_list(
            "entry_id", flat=True
        )
    ) == [tenant_entry.pk]
    assert inspection_audit(inspection, TRANSITION)[-1].target_tenant_id == tenant.pk
    profile = move(open_request(operator, member), operator, S.ROUTINE_REVIEW, S.GRANTED)
    assert profile.inspection.reason_code == ReasonCode.CROSS_TENANT


def test_a_member_leaving_the_tenant_before_the_grant_is_cross_tenant():
    tenant = TenantFactory()
    member, _ = member_with_memory(tenants=[tenant])
    operator = OperatorFactory(role="support", tenant=tenant)
    inspection = open_request(
        operator, member, scope={"kind": "tenant", "tenant_id": str(tenant.pk)}
    )
    move(inspection, operator, S.ROUTINE_REVIEW)
    member.tenant_memberships.all().delete()
    # the request is now invisible to the operator (404) ...
    with pytest.raises(NotFound):
        inspection_get(operator=operator, inspection_id=inspection.pk)
    # ... and a job-free grant attempt through the service still fails closed
    result = inspection_transition(inspection=inspection, to=S.GRANTED, operator=operator)
    assert result.inspection.reason_code == ReasonCode.CROSS_TENANT


def test_a_role_changed_since_the_request_is_denied(member):
    operator = OperatorFactory(role="support")
    inspection = open_request(operator, member, include_sensitive=True)
    inspection = route(inspection, operator, S.DSAR_FULFILLMENT)
    OperatorProfile.objects.filter(user=operator).update(role="legal")
    inspection = InspectionRequest.objects.get(pk=inspection.pk)  # as the next request loads it
    result = grant(inspection, User.objects.get(pk=operator.pk))
    assert result.inspection.reason_code == ReasonCode.NO_LEGITIMATE_INTEREST


# --- Who may move a request ------------------------------------------------------------------


def test_admin_oversight_may_deny_or_close_but_never_grant_someone_elses_request(member):
    legal = OperatorFactory(role="legal")
    overseer = OperatorFactory(role="admin")
    inspection = open_request(legal, member)
    move(inspection, legal, S.ROUTINE_REVIEW)
    with pytest.raises(NotPermitted) as excinfo:
        inspection_transition(inspection=inspection, to=S.GRANTED, operator=overseer)
    assert excinfo.value.code == "not-request-owner"
    (refusal,) = inspection_audit(inspection, REJECTED)
    assert refusal.actor_id == overseer.pk and refusal.payload["refusal"] == "not-request-owner"
    result = inspection_transition(inspection=inspection, to=S.DENIED, operator=overseer)
    assert result.inspection.state == S.DENIED and result.inspection.reason_code == "declined"
    assert result.event.actor_id == overseer.pk


def test_admin_oversight_may_deny_a_request_not_yet_routed(member):
    # given
    legal = OperatorFactory(role="legal")
    overseer = OperatorFactory(role="admin")
    inspection = open_request(legal, member, include_sensitive=True)
    # when
    result = inspection_transition(inspection=inspection, to=S.DENIED, operator=overseer)
    # then: out through the path that never reaches sensitive memory, both steps recorded
    assert result.inspection.state == S.DENIED and result.inspection.reason_code == "declined"
    steps = InspectionEvent.objects.filter(inspection=inspection).order_by("sequence")
    assert [(e.from_state, e.to_state, e.actor_id) for e in steps] == [
        ("", "requested", legal.pk),
        ("requested", "routine-review", overseer.pk),
        ("routine-review", "denied", overseer.pk),
    ]
    # the requester cannot deny their own request before routing it (the seed's map)
    other = open_request(legal, member)
    with pytest.raises(Conflict):
        inspection_transition(inspection=other, to=S.DENIED, operator=legal)


# --- Four eyes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "sensitive"),
    [
        (S.DSAR_FULFILLMENT, True),
        (S.DSAR_FULFILLMENT, False),
        (S.INCIDENT_ESCALATION, True),
        (S.INCIDENT_ESCALATION, False),
        (S.ROUTINE_REVIEW, True),
    ],
)
def test_a_four_eyes_request_is_never_granted_by_its_requester(path, sensitive):
    # given
    member, _ = member_with_memory("category:medical")
    requester = OperatorFactory(role={S.INCIDENT_ESCALATION: "t&s"}.get(path, "legal"))
    inspection = route(
        open_request(requester, member, include_sensitive=sensitive), requester, path
    )
    # when
    with pytest.raises(NotPermitted) as excinfo:
        inspection_transition(inspection=inspection, to=S.GRANTED, operator=requester)
    # then
    assert excinfo.value.code == "second-approver-required"
    current = InspectionRequest.objects.get(pk=inspection.pk)
    assert current.state == path and current.granted_by is None
    (refusal,) = inspection_audit(current, REJECTED)
    assert refusal.actor_id == requester.pk
    assert refusal.payload["refusal"] == "second-approver-required"


def test_a_second_operator_with_the_approving_role_grants_and_the_requester_reads(legal):
    # given
    member, entries = member_with_memory("category:medical")
    inspection = open_request(legal, member, include_sensitive=True)
    inspection = route(inspection, legal, S.DSAR_FULFILLMENT)
    wrong_role = OperatorFactory(role="t&s")
    second = OperatorFactory(role="legal")
    # when: another role cannot, a second legal operator can
    with pytest.raises(NotPermitted):
        inspection_transition(inspection=inspection, to=S.GRANTED, operator=wrong_role)
    result = inspection_transition(inspection=inspection, to=S.GRANTED, operator=second)
    # then
    assert result.inspection.state == S.GRANTED
    assert result.inspection.granted_by_id == second.pk != result.inspection.operator_id
    assert result.event.actor_id == second.pk
    assert str(entries["sensitive"].pk) in result.seen_entry_ids
    assert inspection_audit(inspection, TRANSITION)[-1].actor_id == second.pk


def test_dsar_fulfillment_names_an_open_data_rights_request_of_the_member(legal):
    # given
    member, _ = member_with_memory()
    someone_else = open_dsar(MemberFactory())
    inspection = open_request(legal, member)
    # when / then: none, another member's, an unverified one: refused at routing
    for dsar_request_id in (None, someone_else.pk):
        with pytest.raises(InvalidInput) as excinfo:
            move(inspection, legal, S.DSAR_FULFILLMENT, dsar_request_id=dsar_request_id)
        assert "dsar_request_id" in excinfo.value.fields
    inspection.refresh_from_db()
    assert inspection.state == S.REQUESTED
    with pytest.raises(InvalidInput):
        open_request(legal, member, dsar_request_id=someone_else.pk)
    dsar = open_dsar(member)
    routed = move(inspection, legal, S.DSAR_FULFILLMENT, dsar_request_id=dsar.pk).inspection
    assert routed.dsar_request_id == dsar.pk


def test_a_dsar_that_closed_before_the_grant_makes_the_gate_deny(legal):
    # given: routed for an open request, which the member then cancels
    member, _ = member_with_memory()
    inspection = route(open_request(legal, member), legal, S.DSAR_FULFILLMENT)
    DataRightsRequest.objects.filter(pk=inspection.dsar_request_id).update(status="cancelled")
    # when
    result = grant(inspection, legal)
    # then
    assert result.inspection.state == S.DENIED
    assert result.inspection.reason_code == ReasonCode.NO_LEGITIMATE_INTEREST


def test_another_non_admin_operator_may_not_move_a_request(member):
    legal = OperatorFactory(role="legal")
    inspection = open_request(legal, member)
    with pytest.raises(NotPermitted):
        inspection_transition(
            inspection=inspection, to=S.ROUTINE_REVIEW, operator=OperatorFactory(role="t&s")
        )
    inspection.refresh_from_db()
    assert inspection.state == S.REQUESTED


# --- Inputs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("justification", ["", "   "])
def test_a_request_needs_a_justification(legal, member, justification):
    with pytest.raises(InvalidInput) as excinfo:
        open_request(legal, member, justification=justification)
    assert "justification" in excinfo.value.fields
    assert not InspectionRequest.objects.exists()


def test_a_bad_scope_is_bad_input(legal, member):
    with pytest.raises(InvalidInput) as excinfo:
        open_request(legal, member, scope={"kind": "session"})
    assert "scope.session.session_id" in excinfo.value.fields


def test_an_incident_ref_with_free_text_is_bad_input(legal, member):
    with pytest.raises(InvalidInput):
        open_request(legal, member, signed_incident_ref="see the email from Bob")


def test_a_carveout_is_only_for_the_incident_path(legal, member):
    inspection = drive_to(S.GRANTED, legal, member)
    with pytest.raises(InvalidInput) as excinfo:
        inspection_transition(
            inspection=inspection, to=S.CLOSED, operator=legal, investigation_carveout=True
        )
    assert "investigation_carveout" in excinfo.value.fields
    inspection.refresh_from_db()
    assert inspection.state == S.GRANTED


def test_a_non_member_or_unknown_target_is_not_found(legal):
    with pytest.raises(NotFound):
        open_request(legal, OperatorFactory())


def test_a_snapshot_larger_than_an_audit_list_continues_in_further_events(legal, monkeypatch):
    # given: audit lists bounded at one id, and two entries in scope
    monkeypatch.setattr("inspection.services.MAX_LIST_LENGTH", 1)
    member, entries = member_with_memory()
    tea = remember(member, subject="tea", body="I drink green tea").entry
    # when
    inspection = granted(legal, member)
    # then
    grant = inspection_audit(inspection, TRANSITION)[-1]
    assert grant.payload["seen_count"] == 2 and grant.payload["seen_parts"] == 2
    assert grant.payload["seen_entry_ids"] == [str(entries["ordinary"].pk)]
    (part,) = inspection_audit(inspection, "inspection.snapshot.pinned")
    assert part.payload["part"] == 2
    assert part.payload["seen_entry_ids"] == [str(tea.pk)]
    assert part.payload["seen_revision_ids"] == [str(tea.revision_id)]
