"""The console's inspection workflow (/console/inspections/): an operator of any role finds a
member by email inside their tenant binding, opens a request by picking a scope from a
list (no UUID, no JSON), sees exactly the steps the state machine and the rules allow
them (the others disabled with the reason shown), reads a grant only through the
interstitial's confirmation, and the snapshot says what was redacted."""

import re
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.test import Client

from console.inspections import home_section
from inspection.enums import InspectionState
from inspection.models import InspectionEvent, InspectionRequest
from inspection.policy import available_steps
from inspection.selectors import inspection_member_find
from inspection.services import ACTION_READ, ACTION_READ_REFUSED
from iris_site.enums import OperatorRole
from iris_site.models import AuditEvent
from memory.forgetting.services import memory_purge_entries
from memory.models import MemoryEntry
from tests.inspection.factories import (
    JUSTIFICATION,
    approver_for,
    granted,
    incident_ref,
    member_with_memory,
    open_dsar,
    open_request,
    route,
)
from tests.iris_site.factories import MemberFactory, OperatorFactory, TenantFactory
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db

LIST = "/console/inspections/"
NEW = "/console/inspections/new/"
_S = InspectionState


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page(response) -> str:
    """The page's text without its per-request CSRF token and CSP nonce."""
    text = re.sub(r'value="[A-Za-z0-9]{64}"', "", response.content.decode())
    return re.sub(r'nonce="[^"]+"', "", text)


def detail(inspection) -> str:
    return f"{LIST}{inspection.pk}/"


def enabled_buttons(html: str) -> list[str]:
    """The labels of the enabled submit buttons of the page's step forms."""
    steps = html.split('<ul class="inspection-steps">', 1)[-1].split("</ul>", 1)[0]
    found = re.findall(r'<button type="submit" class="button[^"]*">([^<]+)</button>', steps)
    return [label.strip() for label in found]


def disabled_buttons(html: str) -> list[str]:
    steps = html.split('<ul class="inspection-steps">', 1)[-1].split("</ul>", 1)[0]
    return [b.strip() for b in re.findall(r"<button[^>]* disabled[^>]*>([^<]+)</button>", steps)]


# --- Finding a member --------------------------------------------------------------------------


@pytest.mark.parametrize("role", OperatorRole.values)
def test_every_role_finds_a_member_by_exact_email(role):
    # given
    member = MemberFactory(email="ada@example.test")
    operator = OperatorFactory(role=role)
    # when
    response = signed_in(operator).get(NEW, {"email": "Ada@Example.test"})
    # then
    assert response.status_code == 200
    html = response.content.decode()
    assert "Found: <strong>ada@example.test</strong>" in html
    assert 'name="scope"' in html and str(member.pk) not in html.split('name="scope"')[0]


def test_a_member_outside_the_binding_is_not_found_like_no_member_at_all():
    # given a tenant-bound operator, a member of another tenant and one of theirs
    mine, theirs = TenantFactory(), TenantFactory()
    operator = OperatorFactory(role=OperatorRole.SUPPORT, tenant=mine)
    MemberFactory(email="outside@example.test", tenants=[theirs])
    inside = MemberFactory(email="inside@example.test", tenants=[mine])
    client = signed_in(operator)
    # when
    outside = client.get(NEW, {"email": "outside@example.test"})
    nobody = client.get(NEW, {"email": "nobody@example.test"})
    found = client.get(NEW, {"email": "inside@example.test"})
    # then the two misses are the same page
    assert outside.status_code == nobody.status_code == 404
    assert "No member with that email address was found." in outside.content.decode()
    assert page(outside).replace("outside", "nobody") == page(nobody)
    assert found.status_code == 200 and "inside@example.test" in found.content.decode()
    # and the selector returns at most one member, within the binding
    assert inspection_member_find(operator=operator, email="outside@example.test") is None
    assert inspection_member_find(operator=operator, email="inside@example.test") == inside
    assert inspection_member_find(operator=operator, email="") is None
    # and a tenant-bound operator is offered only their tenant's scope
    assert found.content.decode().count('type="radio" name="scope"') == 1


def test_an_operator_is_never_found_as_a_member():
    OperatorFactory(email="staff@example.test")
    response = signed_in(OperatorFactory()).get(NEW, {"email": "staff@example.test"})
    assert response.status_code == 404


# --- Opening -----------------------------------------------------------------------------------


def test_the_form_opens_a_request_through_the_service_with_no_uuid_or_json_typed():
    # given a member with profile and session memory
    member, _ = member_with_memory()
    operator = OperatorFactory(role=OperatorRole.SUPPORT)
    client = signed_in(operator)
    page = client.get(NEW, {"email": member.email}).content.decode()
    # the choices are plain labels built from the blueprints
    assert "Profile" in page and "(session s-1)" in page
    session_value = re.search(r'value="([^"]*session_id=s-1[^"]*)"', page).group(1)
    # when the operator picks the session scope and says why
    response = client.post(
        NEW,
        {"email": member.email, "scope": session_value, "justification": JUSTIFICATION},
    )
    # then the service opened it, as this operator, for that scope
    inspection = InspectionRequest.objects.get()
    assert response.status_code == 302 and response["Location"] == detail(inspection)
    assert inspection.operator == operator and inspection.member == member
    assert inspection.scope == {"kind": "session", "user_id": str(member.pk), "session_id": "s-1"}
    assert inspection.state == _S.REQUESTED and not inspection.include_sensitive
    assert InspectionEvent.objects.filter(inspection=inspection).count() == 1


def test_a_scope_that_was_not_offered_is_refused_and_nothing_is_opened():
    member, _ = member_with_memory()
    client = signed_in(OperatorFactory())
    forged = "kind=session|session_id=someone-elses"
    response = client.post(
        NEW, {"email": member.email, "scope": forged, "justification": JUSTIFICATION}
    )
    assert response.status_code == 400
    assert not InspectionRequest.objects.exists()


def test_the_services_refusal_is_shown_and_nothing_is_opened():
    member, _ = member_with_memory()
    client = signed_in(OperatorFactory())
    response = client.post(
        NEW, {"email": member.email, "scope": "kind=profile", "justification": "   "}, follow=True
    )
    assert response.status_code == 400
    assert "Why you need to look" in response.content.decode()
    assert not InspectionRequest.objects.exists()


# --- Steps ---------------------------------------------------------------------------------------


def test_available_steps_is_pure_and_matches_the_rules():
    support, approver = (
        SimpleNamespace(pk=1, operator_profile=SimpleNamespace(role="support")),
        (SimpleNamespace(pk=2, operator_profile=SimpleNamespace(role="legal"))),
    )
    admin = SimpleNamespace(pk=3, operator_profile=SimpleNamespace(role="admin"))
    requested = SimpleNamespace(state=_S.REQUESTED, operator_id=1, include_sensitive=False)
    assert [(s, a) for s, a, _ in available_steps(requested, support)] == [
        (_S.DSAR_FULFILLMENT, True),
        (_S.INCIDENT_ESCALATION, True),
        (_S.ROUTINE_REVIEW, True),
    ]
    assert [(s, a) for s, a, _ in available_steps(requested, admin)] == [
        (_S.DSAR_FULFILLMENT, False),
        (_S.INCIDENT_ESCALATION, False),
        (_S.ROUTINE_REVIEW, False),
        (_S.DENIED, True),
    ]
    dsar = SimpleNamespace(state=_S.DSAR_FULFILLMENT, operator_id=1, include_sensitive=True)
    [(grant, allowed, reason), deny] = available_steps(dsar, support)
    assert (grant, allowed) == (_S.GRANTED, False) and "Legal role" in reason
    assert deny == (_S.DENIED, True, "")
    assert available_steps(dsar, approver)[0] == (_S.GRANTED, True, "")


@pytest.mark.parametrize(
    ("state", "viewer", "enabled", "disabled"),
    [
        (
            _S.REQUESTED,
            "requester",
            [
                "Route as a data-rights (DSAR) fulfilment",
                "Route as an incident escalation",
                "Route as a routine review",
            ],
            [],
        ),
        (
            _S.REQUESTED,
            "admin",
            ["Deny"],
            [
                "Route as a data-rights (DSAR) fulfilment",
                "Route as an incident escalation",
                "Route as a routine review",
            ],
        ),
        (_S.ROUTINE_REVIEW, "requester", ["Grant", "Deny"], []),
        (_S.ROUTINE_REVIEW, "admin", ["Deny"], ["Grant"]),
        (_S.GRANTED, "requester", ["Close the inspection"], []),
        (_S.GRANTED, "admin", ["Close the inspection"], []),
    ],
)
def test_the_buttons_shown_are_the_allowed_steps(state, viewer, enabled, disabled):
    # given support's request in `state`
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    if state == _S.GRANTED:
        inspection = granted(support, member)
    else:
        inspection = open_request(support, member)
        if state != _S.REQUESTED:
            inspection = route(inspection, support, state)
    operator = support if viewer == "requester" else OperatorFactory(role=OperatorRole.ADMIN)
    # when
    html = signed_in(operator).get(detail(inspection)).content.decode()
    # then the enabled buttons are what `available_steps` allows, and each refused one
    # shows its reason as text
    allowed = [s for s, ok, _ in available_steps(inspection, operator) if ok]
    assert len(enabled_buttons(html)) == len(allowed)
    assert enabled_buttons(html) == enabled
    assert disabled_buttons(html)[-len(disabled) :] == disabled if disabled else True
    for _, ok, reason in available_steps(inspection, operator):
        if not ok:
            assert reason in html
    reads = f'href="{detail(inspection)}read/"' in html
    assert reads == (state == _S.GRANTED and viewer == "requester")


def test_the_second_approver_sees_an_approve_step_and_the_requester_sees_why_not():
    # given legal's sensitive DSAR request
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    member, _ = member_with_memory("category:medical")
    inspection = route(
        open_request(legal, member, include_sensitive=True), legal, _S.DSAR_FULFILLMENT
    )
    second = approver_for(_S.DSAR_FULFILLMENT)
    # when
    mine = signed_in(legal).get(detail(inspection)).content.decode()
    theirs = signed_in(second).get(detail(inspection)).content.decode()
    # then
    assert "Grant" in disabled_buttons(mine)
    assert "A second operator with the Legal role grants this request, never you." in mine
    assert enabled_buttons(theirs) == ["Approve as second approver", "Refuse as second approver"]
    # and approving through the page grants it, made by the second operator
    response = signed_in(second).post(f"{detail(inspection)}granted/")
    assert response.status_code == 302
    inspection.refresh_from_db()
    assert inspection.state == _S.GRANTED and inspection.granted_by == second


def test_a_grant_the_policy_gate_would_refuse_is_disabled_with_the_gates_reason():
    # given support's sensitive request routed as a routine review: four eyes (admin
    # approves), but routine review never sees sensitive memory
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory("category:medical")
    inspection = route(
        open_request(support, member, include_sensitive=True), support, _S.ROUTINE_REVIEW
    )
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    # when
    html = signed_in(admin).get(detail(inspection)).content.decode()
    # then the approver's grant is disabled with the gate's explanation; refusing is open
    assert "Approve as second approver" in disabled_buttons(html)
    assert "The policy gate would refuse: Routine review never sees sensitive memory." in html
    assert enabled_buttons(html) == ["Refuse as second approver"]
    # and posting it anyway goes through the service, whose gate ends it denied
    signed_in(admin).post(f"{detail(inspection)}granted/")
    inspection.refresh_from_db()
    assert inspection.state == _S.DENIED and inspection.reason_code == "no-legitimate-interest"


def test_a_step_that_is_not_allowed_is_refused_by_the_service_and_nothing_changes():
    # given support's routine review, seen by an admin
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    inspection = route(open_request(support, member), support, _S.ROUTINE_REVIEW)
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    events = InspectionEvent.objects.count()
    # when the admin posts a grant anyway (the button was disabled)
    response = signed_in(admin).post(f"{detail(inspection)}granted/", follow=True)
    # then the service refused it, said why, and nothing moved
    assert response.status_code == 200
    assert "Only the requesting operator may take this step." in response.content.decode()
    inspection.refresh_from_db()
    assert inspection.state == _S.ROUTINE_REVIEW
    assert InspectionEvent.objects.count() == events
    assert AuditEvent.objects.filter(action="inspection.request.transition_rejected").exists()
    # and an illegal step from here is refused as well
    signed_in(support).post(f"{detail(inspection)}closed/")
    inspection.refresh_from_db()
    assert inspection.state == _S.ROUTINE_REVIEW
    # and an unknown step is not found
    assert signed_in(support).post(f"{detail(inspection)}launch/").status_code == 404


def test_routing_to_dsar_offers_the_members_open_requests_by_name():
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    member, _ = member_with_memory()
    dsar = open_dsar(member)
    inspection = open_request(legal, member)
    client = signed_in(legal)
    html = client.get(detail(inspection)).content.decode()
    assert f'<option value="{dsar.pk}">' in html
    client.post(f"{detail(inspection)}dsar-fulfillment/", {"dsar_request_id": str(dsar.pk)})
    inspection.refresh_from_db()
    assert inspection.state == _S.DSAR_FULFILLMENT and inspection.dsar_request_id == dsar.pk


def test_routing_to_an_incident_takes_the_pasted_signed_reference():
    ts = OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY)
    member, _ = member_with_memory()
    inspection = open_request(ts, member)
    client = signed_in(ts)
    html = client.get(detail(inspection)).content.decode()
    assert 'name="signed_incident_ref"' in html
    # a reference that does not verify is refused by the service, with its reason
    bad = client.post(
        f"{detail(inspection)}incident-escalation/",
        {"signed_incident_ref": "inc-1." + "0" * 64},
        follow=True,
    )
    assert "Not signed by the incident system for this member." in bad.content.decode()
    inspection.refresh_from_db()
    assert inspection.state == _S.REQUESTED
    client.post(
        f"{detail(inspection)}incident-escalation/", {"signed_incident_ref": incident_ref(member)}
    )
    inspection.refresh_from_db()
    assert inspection.state == _S.INCIDENT_ESCALATION
    # the timeline names who acted: the viewer as "you"
    html = client.get(detail(inspection)).content.decode()
    timeline = html.split('id="timeline-heading"')[1]
    assert "Requested → Incident escalation" in timeline
    assert timeline.count("by you") == 2


def test_another_operators_request_is_not_found():
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    inspection = open_request(support, member)
    other = signed_in(OperatorFactory(role=OperatorRole.SUPPORT))
    assert other.get(detail(inspection)).status_code == 404
    assert other.post(f"{detail(inspection)}routine-review/").status_code == 404
    inspection.refresh_from_db()
    assert inspection.state == _S.REQUESTED


def _mention(member):
    return remember(
        member,
        category="relationship",
        subject="partner",
        body="My partner worries about my sleep",
        multi_actor={"actor_name": "Sam Lee", "relationship_note": "my partner"},
    ).entry


# --- Reading -----------------------------------------------------------------------------------


def test_the_read_without_the_interstitials_confirmation_is_refused():
    # given a grant
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    inspection = granted(support, member)
    client = signed_in(support)
    read = f"{detail(inspection)}read/"
    # when the operator opens the interstitial, and posts without confirming
    interstitial = client.get(read)
    unconfirmed = client.post(read, {})
    # then nothing was read
    assert interstitial.status_code == 200
    assert "This read is recorded." in interstitial.content.decode()
    assert "coffee" not in interstitial.content.decode()
    assert unconfirmed.status_code == 400
    assert "Confirm before reading" in unconfirmed.content.decode()
    assert "I take my coffee black" not in unconfirmed.content.decode()
    assert not AuditEvent.objects.filter(action=ACTION_READ).exists()
    # and the detail page never shows content
    assert "I take my coffee black" not in client.get(detail(inspection)).content.decode()
    # when confirmed
    snapshot = client.post(read, {"confirm": "on"})
    # then the read service read it, recorded, and the page shows it
    assert snapshot.status_code == 200
    assert "I take my coffee black" in snapshot.content.decode()
    assert AuditEvent.objects.filter(action=ACTION_READ).count() == 1


def test_someone_else_cannot_read_even_with_the_confirmation():
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    inspection = granted(support, member)
    admin = signed_in(OperatorFactory(role=OperatorRole.ADMIN))
    page = admin.get(f"{detail(inspection)}read/").content.decode()
    assert "Only the operator who was granted the inspection may read it." in page
    response = admin.post(f"{detail(inspection)}read/", {"confirm": "on"}, follow=True)
    assert "I take my coffee black" not in response.content.decode()
    assert AuditEvent.objects.filter(action=ACTION_READ_REFUSED).count() == 1


def test_a_sensitive_read_says_the_member_will_be_told_and_the_snapshot_states_redactions():
    # given legal's sensitive DSAR grant made by a second operator, with a purged entry
    # and a mention of someone else
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    member, entries = member_with_memory("category:medical")
    _mention(member)
    inspection = granted(legal, member, _S.DSAR_FULFILLMENT, include_sensitive=True)
    client = signed_in(legal)
    # when
    interstitial = client.get(f"{detail(inspection)}read/").content.decode()
    memory_purge_entries(
        member_id=member.pk, entry_ids=[entries["ordinary"].pk], reason="dsar-hard-delete"
    )
    snapshot = client.post(f"{detail(inspection)}read/", {"confirm": "on"}).content.decode()
    # then
    assert "This read is recorded and the member will be told." in interstitial
    assert "I am allergic to penicillin" in snapshot
    assert re.search(
        r'inspection-redaction-count">1</span> entry: erased since the grant', snapshot
    )
    # DSAR fulfilment keeps mentions of others (the member is the subject)
    assert re.search(r'inspection-redaction-count">0</span> entries: mentions of other', snapshot)


def test_a_routine_read_states_mentions_of_others_removed():
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    _mention(member)
    inspection = granted(support, member)
    snapshot = signed_in(support).post(f"{detail(inspection)}read/", {"confirm": "on"})
    html = snapshot.content.decode()
    assert re.search(r'inspection-redaction-count">1</span> entry: mentions of other', html)
    assert "My partner worries about my sleep" in html and "Sam Lee" not in html


# --- Copilot notes and the home section --------------------------------------------------------


def test_a_copilot_note_is_added_through_the_service_on_a_granted_inspection():
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    inspection = granted(support, member)
    client = signed_in(support)
    assert "Add a copilot note" in client.get(detail(inspection)).content.decode()
    response = client.post(
        f"{detail(inspection)}note/",
        {"category": "preference", "subject": "", "body": "Prefers email replies"},
        follow=True,
    )
    assert "Note added." in response.content.decode()
    note = MemoryEntry.objects.get(member=member, scope_kind="operator-copilot")
    assert note.origin == "operator-copilot"
    # someone else's note on the same grant is refused
    other = signed_in(OperatorFactory(role=OperatorRole.ADMIN))
    other.post(f"{detail(inspection)}note/", {"category": "preference", "body": "x"})
    assert MemoryEntry.objects.filter(scope_kind="operator-copilot").count() == 1


def test_home_section_lists_what_waits_for_this_operator():
    # given support's routine request, and legal's sensitive DSAR request
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    member, _ = member_with_memory("category:medical")
    mine = open_request(support, member)
    dsar = route(open_request(legal, member, include_sensitive=True), legal, _S.DSAR_FULFILLMENT)
    second = approver_for(_S.DSAR_FULFILLMENT)

    def section(user):
        return home_section(SimpleNamespace(user=user))

    # then
    assert [i["pk"] for i in section(support)["awaiting_decision"]] == [mine.pk]
    assert section(legal)["awaiting_second_approver"][0]["pk"] == dsar.pk
    waiting = section(second)["awaiting_decision"]
    assert [(i["pk"], i.get("as_second_approver")) for i in waiting] == [(dsar.pk, True)]
    assert waiting[0]["member_email"] == member.email
    assert section(OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY)) is None
    html = render_to_string("console/_home_inspections.html", {"section": section(second)})
    assert "Awaiting your decision" in html and member.email in html
    assert "you are the second approver" in html


def test_members_and_anonymous_visitors_never_get_in():
    member = MemberFactory()
    assert signed_in(member).get(LIST).status_code == 403
    assert Client().get(LIST).status_code == 302


def test_the_list_shows_the_operators_requests_by_member_email():
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    member, _ = member_with_memory()
    inspection = open_request(support, member)
    html = signed_in(support).get(LIST).content.decode()
    assert member.email in html and detail(inspection) in html
    assert JUSTIFICATION not in html
