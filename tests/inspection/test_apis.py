"""The operator inspection API and the member's notices, over HTTP semantics."""

import uuid

import pytest
from rest_framework.test import APIClient

from inspection.models import InspectionRequest
from inspection.services import inspection_notices_deliver
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from tests.conftest import bearer_client, http_request
from tests.inspection.factories import (
    JUSTIFICATION,
    granted,
    incident_ref,
    inspection_audit,
    member_with_memory,
    open_dsar,
    open_request,
)
from tests.iris_site.factories import OperatorFactory, TenantFactory
from tests.memory.factories import assert_no_audit_mentions

pytestmark = pytest.mark.django_db

BASE = "/api/v1/operator/inspections/"
NOTICES = "/api/v1/me/inspection-notices/"


def url(inspection, action: str = "") -> str:
    return f"{BASE}{inspection.pk if hasattr(inspection, 'pk') else inspection}/" + (
        f"{action}/" if action else ""
    )


def open_body(member, **overrides) -> dict:
    return {
        "target_user_id": str(member.pk),
        "scope": {"kind": "profile", "user_id": str(member.pk)},
        "justification": JUSTIFICATION,
        "signed_incident_ref": None,
        **overrides,
    }


def test_the_api_md_walkthrough_open_route_grant_read_close():
    # given
    member, entries = member_with_memory()
    client = bearer_client(OperatorFactory(role="support"))
    # when: open
    opened = client.post(BASE, open_body(member), format="json")
    # then
    assert opened.status_code == 201, opened.json()
    body = opened.json()
    assert body["state"] == "requested" and body["path"] is None
    assert body["justification"] == JUSTIFICATION and body["seen_entry_ids"] == []
    inspection_id = body["id"]
    # route and grant
    routed = client.post(url(inspection_id, "transition"), {"to": "routine-review"}, format="json")
    assert routed.status_code == 200 and routed.json()["state"] == "routine-review"
    grant = client.post(url(inspection_id, "transition"), {"to": "granted"}, format="json")
    assert grant.status_code == 200
    assert grant.json()["state"] == "granted"
    assert grant.json()["seen_entry_ids"] == [str(entries["ordinary"].pk)]
    assert grant.json()["gate_explanation"]
    # read while granted
    snapshot = client.get(url(inspection_id, "snapshot"))
    assert snapshot.status_code == 200
    (entry,) = snapshot.json()["entries"]
    assert entry["entry_id"] == str(entries["ordinary"].pk)
    assert entry["body"] == "I take my coffee black" and entry["multi_actor"] is None
    assert snapshot.json()["multi_actor_redacted"] is True
    replay = client.get(url(inspection_id, "replay"))
    assert replay.status_code == 200 and replay.json()["matches_grant"] is True
    assert replay.json()["items"][0]["status"] == "as-granted"
    # close; then nothing is readable
    closed = client.post(url(inspection_id, "transition"), {"to": "closed"}, format="json")
    assert closed.status_code == 200 and closed.json()["state"] == "closed"
    after = client.get(url(inspection_id, "snapshot"))
    assert after.status_code == 409
    assert after.json()["error"]["code"] == "inspection-not-granted"
    # the detail shows every step
    detail = client.get(url(inspection_id)).json()
    assert [e["to_state"] for e in detail["events"]] == [
        "requested",
        "routine-review",
        "granted",
        "closed",
    ]
    actions = [e.action for e in inspection_audit(InspectionRequest(pk=inspection_id))]
    assert actions.count("inspection.request.transitioned") == 4
    assert actions.count("inspection.snapshot.read") == 2
    assert actions.count("inspection.snapshot.read_refused") == 1
    assert_no_audit_mentions(JUSTIFICATION, "coffee black")


def test_a_policy_refusal_is_a_200_with_the_reason_code():
    member, _ = member_with_memory("category:medical")
    client = bearer_client(OperatorFactory(role="support"))
    inspection_id = client.post(
        BASE, open_body(member, include_sensitive=True), format="json"
    ).json()["id"]
    client.post(url(inspection_id, "transition"), {"to": "routine-review"}, format="json")
    # when: the second pair of eyes on routine review (admin) grants; the gate refuses
    response = bearer_client(OperatorFactory(role="admin")).post(
        url(inspection_id, "transition"), {"to": "granted"}, format="json"
    )
    # then
    assert response.status_code == 200
    body = response.json()
    assert body["state"] == "denied" and body["reason_code"] == "no-legitimate-interest"
    assert body["seen_entry_ids"] == []


def test_an_illegal_transition_is_a_409_in_the_envelope_and_recorded():
    member, _ = member_with_memory()
    operator = OperatorFactory(role="legal")
    inspection = open_request(operator, member)
    response = bearer_client(operator).post(
        url(inspection, "transition"), {"to": "granted"}, format="json"
    )
    assert response.status_code == 409
    assert response.json() == {
        "error": {
            "code": "illegal-transition",
            "message": "An inspection cannot go from requested to granted.",
            "fields": {},
        }
    }
    (refusal,) = inspection_audit(inspection, "inspection.request.transition_rejected")
    assert refusal.payload["attempted_to_state"] == "granted"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"justification": ""}, "justification"),
        ({"scope": {"kind": "notebook"}}, "scope.notebook.notebook_id"),
        ({"scope": "profile"}, "scope"),
        ({"target_user_id": "not-a-uuid"}, "target_user_id"),
        ({"signed_incident_ref": "Look at the email"}, "signed_incident_ref"),
    ],
)
def test_bad_input_is_400_and_opens_nothing(body, field):
    member, _ = member_with_memory()
    response = bearer_client(OperatorFactory(role="legal")).post(
        BASE, open_body(member, **body), format="json"
    )
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not InspectionRequest.objects.exists()


def test_a_bad_transition_body_is_400():
    member, _ = member_with_memory()
    operator = OperatorFactory(role="legal")
    inspection = open_request(operator, member)
    response = bearer_client(operator).post(
        url(inspection, "transition"), {"to": "approved"}, format="json"
    )
    assert response.status_code == 400 and "to" in response.json()["error"]["fields"]


# --- Tenant isolation and visibility -----------------------------------------------------------


def test_an_operator_of_tenant_t_gets_404_for_a_member_outside_t():
    # given
    tenant, other = TenantFactory(), TenantFactory()
    inside, _ = member_with_memory(tenants=[tenant])
    outside, _ = member_with_memory(tenants=[other])
    bound = OperatorFactory(role="admin", tenant=tenant)
    client = bearer_client(bound)
    # when / then: opening a request about a member outside T
    response = client.post(BASE, open_body(outside), format="json")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert not InspectionRequest.objects.exists()
    # and every lookup of a request about a member outside T (an unknown id looks the same)
    platform_admin = OperatorFactory(role="admin")
    foreign = granted(platform_admin, outside)
    for path in ("", "snapshot", "replay"):
        assert client.get(url(foreign, path)).status_code == 404
        assert client.get(url(uuid.uuid4(), path)).status_code == 404
    assert client.post(url(foreign, "transition"), {"to": "closed"}, format="json").status_code == (
        404
    )
    assert client.get(BASE).json()["results"] == []
    # a request about a member inside T is visible to T's admin
    own = open_request(bound, inside, scope={"kind": "tenant", "tenant_id": str(tenant.pk)})
    assert [r["id"] for r in client.get(BASE).json()["results"]] == [str(own.pk)]
    assert not AuditEvent.objects.filter(actor_id=bound.pk, payload__inspection_id=str(foreign.pk))


def test_operators_see_their_own_requests_and_admin_oversight_sees_all():
    member, _ = member_with_memory()
    legal, tns, admin = (OperatorFactory(role=r) for r in ("legal", "t&s", "admin"))
    mine = open_request(legal, member)
    theirs = open_request(tns, member, signed_incident_ref=incident_ref(member))
    listed = {r["id"] for r in bearer_client(legal).get(BASE).json()["results"]}
    assert listed == {str(mine.pk)}
    assert bearer_client(legal).get(url(theirs)).status_code == 404
    everything = {r["id"] for r in bearer_client(admin).get(BASE).json()["results"]}
    assert everything == {str(mine.pk), str(theirs.pk)}
    # oversight may close another operator's grant but never read it
    grant = granted(legal, member)
    admin_client = bearer_client(admin)
    read = admin_client.get(url(grant, "snapshot"))
    assert read.status_code == 403 and read.json()["error"]["code"] == "not-request-owner"
    closed = admin_client.post(url(grant, "transition"), {"to": "closed"}, format="json")
    assert closed.status_code == 200 and closed.json()["state"] == "closed"


def test_the_list_filters_by_state():
    member, _ = member_with_memory()
    legal = OperatorFactory(role="legal")
    open_request(legal, member)
    done = granted(legal, member)
    results = bearer_client(legal).get(BASE, {"state": "granted"}).json()["results"]
    assert [r["id"] for r in results] == [str(done.pk)]


def test_options_describes_the_open_body_instead_of_failing():
    """Regression (schemathesis): OPTIONS asked the view for a serializer it did not have
    and answered 500."""
    # given
    client = bearer_client(OperatorFactory(role="admin"))
    # when
    response = client.options(BASE)
    # then
    assert response.status_code == 200
    assert {"target_user_id", "scope", "justification"} <= set(response.json()["actions"]["POST"])


def test_members_service_clients_and_anonymous_callers_are_kept_out():
    member, _ = member_with_memory()
    assert bearer_client(member).get(BASE).status_code == 403
    assert bearer_client(member).post(BASE, open_body(member), format="json").status_code == 403
    assert APIClient().get(BASE).status_code == 401
    assert bearer_client(OperatorFactory(role="legal")).get(NOTICES).status_code == 403


# --- Member notices ------------------------------------------------------------------------------


def test_a_member_sees_only_their_own_delivered_notices():
    # given
    legal = OperatorFactory(role="legal")
    member, entries = member_with_memory("category:medical")
    someone_else, _ = member_with_memory("category:medical")
    for target in (member, someone_else):
        inspection = granted(legal, target, "dsar-fulfillment", include_sensitive=True)
        bearer_client(legal).post(url(inspection, "transition"), {"to": "closed"}, format="json")
    client = bearer_client(member)
    assert client.get(NOTICES).json()["results"] == []  # queued, not yet delivered
    # when
    inspection_notices_deliver()
    # then
    (notice,) = client.get(NOTICES).json()["results"]
    assert notice["state"] == "delivered" and notice["path"] == "dsar-fulfillment"
    assert notice["operator_role"] == "legal" and notice["scope_kind"] == "profile"
    assert set(notice["entry_ids"]) == {str(entries["ordinary"].pk), str(entries["sensitive"].pk)}
    assert notice["sensitive_categories"] == ["medical"]
    assert "data-rights request" in notice["summary"]
    assert str(legal.pk) not in str(notice)  # the member learns the role, not the person


# --- Four eyes, over real HTTP -----------------------------------------------------------------


def test_four_eyes_over_http_a_second_legal_operator_grants_the_requester_reads(live_server):
    # given: a sensitive DSAR-path request for the member's open data-rights request
    member, entries = member_with_memory("category:medical")
    dsar = open_dsar(member)
    requester, second = OperatorFactory(role="legal"), OperatorFactory(role="legal")
    (_, mine), (_, theirs) = token_issue(owner=requester), token_issue(owner=second)
    base = live_server.url + BASE
    opened = http_request(
        base,
        method="POST",
        token=mine,
        body=open_body(member, include_sensitive=True, dsar_request_id=str(dsar.pk)),
    )
    assert opened.status == 201, opened.body
    transition = f"{base}{opened.body['id']}/transition/"
    routed = http_request(transition, method="POST", token=mine, body={"to": "dsar-fulfillment"})
    assert routed.status == 200 and routed.body["needs_second_approver"] is True
    # when: the requester tries to grant their own request
    own = http_request(transition, method="POST", token=mine, body={"to": "granted"})
    # then
    assert own.status == 403
    assert own.body["error"]["code"] == "second-approver-required"
    # when: the second legal operator, who sees the request on their path, grants it
    listed = http_request(base, token=theirs)
    assert opened.body["id"] in [r["id"] for r in listed.body["results"]]
    granted_now = http_request(transition, method="POST", token=theirs, body={"to": "granted"})
    # then: granted by the second operator; only the requester reads
    assert granted_now.status == 200 and granted_now.body["state"] == "granted"
    assert granted_now.body["granted_by"] == str(second.pk)
    assert str(entries["sensitive"].pk) in granted_now.body["seen_entry_ids"]
    snapshot = f"{base}{opened.body['id']}/snapshot/"
    assert http_request(snapshot, token=mine).status == 200
    approver_read = http_request(snapshot, token=theirs)
    assert approver_read.status == 403
    assert approver_read.body["error"]["code"] == "not-request-owner"


def test_routing_to_dsar_fulfillment_without_an_open_request_is_400():
    member, _ = member_with_memory()
    operator = OperatorFactory(role="legal")
    inspection = open_request(operator, member)
    client = bearer_client(operator)
    response = client.post(url(inspection, "transition"), {"to": "dsar-fulfillment"}, format="json")
    assert response.status_code == 400
    assert "dsar_request_id" in response.json()["error"]["fields"]
