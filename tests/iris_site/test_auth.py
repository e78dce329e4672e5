"""API authentication and the permission classes, over the operator audit endpoints."""

import pytest
from axes.models import AccessLog
from django.urls import reverse
from rest_framework.test import APIClient

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.enums import OperatorRole
from iris_site.models import ApiToken, AuditEvent
from iris_site.services import token_issue, token_revoke
from iris_site.tokens import token_digest
from tests.conftest import bearer_client, http_request
from tests.hierarchy.factories import append_events, tampering
from tests.iris_site.factories import (
    PASSWORD,
    MemberFactory,
    OperatorFactory,
    ServiceClientFactory,
    TenantFactory,
)

pytestmark = pytest.mark.django_db

AUDIT_URL = "/api/v1/operator/audit-events/"
VERIFY_URL = "/api/v1/operator/audit-events/verify/"


def test_tokens_are_stored_only_as_a_keyed_digest():
    # given
    member = MemberFactory()
    # when
    token, raw = token_issue(owner=member)
    # then
    stored = ApiToken.objects.get(pk=token.pk)
    assert stored.digest == token_digest(raw) != raw
    row_text = " ".join(
        str(v) for v in ApiToken.objects.filter(pk=token.pk).values().first().values()
    )
    assert raw not in row_text
    assert raw.startswith(stored.prefix)


def test_no_credentials_is_401_with_the_error_envelope():
    response = APIClient().get(AUDIT_URL)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("header", ["Bearer iris_not-a-real-token", "Bearer", "Bearer a b"])
def test_a_bad_token_is_401_with_the_error_envelope(header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get(AUDIT_URL)
    assert response.status_code == 401
    body = response.json()
    assert body["error"]["code"] == "authentication_failed"
    assert set(body["error"]) == {"code", "message", "fields"}


def test_a_revoked_token_stops_working():
    operator = OperatorFactory()
    token, raw = token_issue(owner=operator)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get(AUDIT_URL).status_code == 200
    token_revoke(token=token)
    assert client.get(AUDIT_URL).status_code == 401


def test_token_use_records_last_used_time():
    operator = OperatorFactory()
    token, raw = token_issue(owner=operator)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    client.get(AUDIT_URL)
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_deactivated_account_cannot_use_its_token():
    operator = OperatorFactory()
    client = bearer_client(operator)
    operator.is_active = False
    operator.save()
    assert client.get(AUDIT_URL).status_code == 401


@pytest.mark.parametrize("principal", ["member", "service"])
def test_members_and_surfaces_are_forbidden_from_operator_endpoints(principal):
    who = MemberFactory() if principal == "member" else ServiceClientFactory()
    response = bearer_client(who).get(AUDIT_URL)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"


@pytest.mark.parametrize("role", OperatorRole.values)
def test_every_operator_role_can_list_and_verify(role):
    first, second = append_events(2)
    client = bearer_client(OperatorFactory(role=role))
    listing = client.get(AUDIT_URL)
    assert listing.status_code == 200
    # Support lists only data-rights, inspection and webhook events (issue 42).
    expected = [] if role == OperatorRole.SUPPORT else [second.sequence, first.sequence]
    assert [e["sequence"] for e in listing.json()["results"]] == expected
    assert client.get(VERIFY_URL).json()["valid"] is True


def test_session_login_works_for_the_api_too():
    operator = OperatorFactory()
    client = APIClient()
    client.force_login(operator)
    assert client.get(VERIFY_URL).status_code == 200


def test_tenant_bound_operator_sees_only_their_tenants_events():
    # given
    mine, other = TenantFactory(), TenantFactory()
    for tenant in (mine, other):
        audit_event_append(
            action=AuditAction.IRIS_SITE_AUDIT_BENCH_APPENDED,
            policy_id="iris-test-v1",
            actor=Actor.system(),
            target_tenant_id=tenant.id,
        )
    # when
    operator = OperatorFactory(tenant=mine, role=OperatorRole.ADMIN)
    results = bearer_client(operator).get(AUDIT_URL).json()["results"]
    # then
    assert [r["target_tenant_id"] for r in results] == [str(mine.id)]


def test_only_a_platform_operator_verifies_the_chain_that_spans_every_tenant():
    """The chain's count and a broken event's id reach beyond one tenant: a
    tenant-bound operator is refused (403), not shown the platform's figures."""
    append_events(2)
    response = bearer_client(OperatorFactory(tenant=TenantFactory())).get(VERIFY_URL)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert "checked_count" not in response.content.decode()


def test_audit_events_filter_by_action_and_target():
    member = MemberFactory()
    append_events(2, member_id=member.id)
    append_events(1)
    client = bearer_client(OperatorFactory(role=OperatorRole.ADMIN))
    by_member = client.get(AUDIT_URL, {"target_member_id": str(member.id)}).json()["results"]
    assert len(by_member) == 2
    assert client.get(AUDIT_URL, {"action": "nope.nothing"}).json()["results"] == []
    bad = client.get(AUDIT_URL, {"occurred_after": "not-a-date"})
    assert bad.status_code == 400
    assert "occurred_after" in bad.json()["error"]["fields"]


def test_verify_endpoint_names_the_first_broken_event():
    events = append_events(3)
    with tampering():
        AuditEvent.objects.filter(pk=events[1].pk).update(action="test.event.tampered")
    body = bearer_client(OperatorFactory()).get(VERIFY_URL).json()
    assert body["valid"] is False
    assert body["first_invalid_event_id"] == str(events[1].id)
    assert body["reason"] == "hash-mismatch"


@pytest.mark.django_db(transaction=True)
def test_a_bad_token_over_real_http_is_401_with_the_envelope(live_server):
    response = http_request(live_server.url + AUDIT_URL, token="iris_forged")
    assert response.status == 401
    assert response.body["error"]["code"] == "authentication_failed"


@pytest.mark.django_db(transaction=True)
def test_an_operator_token_over_real_http_lists_events(live_server):
    _, raw = token_issue(owner=OperatorFactory())
    response = http_request(live_server.url + AUDIT_URL, token=raw)
    assert response.status == 200
    assert response.body["results"] == []


def test_unknown_api_path_is_a_404_envelope():
    response = bearer_client(OperatorFactory()).get("/api/v1/operator/nothing-here/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_reverse_names_are_stable():
    assert reverse("operator:audit-event-list") == AUDIT_URL


def test_a_successful_sign_in_keeps_no_raw_address_or_user_agent(client):
    # given a member signing in through the sign-in page from some address
    member = MemberFactory()
    response = client.post(
        reverse("login"),
        {"username": member.email, "password": PASSWORD},
        REMOTE_ADDR="203.0.113.9",
        HTTP_USER_AGENT="Probe/1.0",
    )
    # then the sign-in worked and axes logged nothing of it (lockout counts failures only)
    assert response.status_code == 302
    assert not AccessLog.objects.exists()
