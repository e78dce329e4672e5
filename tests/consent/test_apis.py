"""The member consent API over HTTP semantics: envelopes, idempotency, isolation."""

import json

import pytest
from rest_framework.test import APIClient

from consent.models import ConsentEvent
from iris_site.services import token_issue
from tests.conftest import bearer_client, http_request
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory, OperatorFactory, ServiceClientFactory
from tests.stepup import step_up_client

pytestmark = pytest.mark.django_db

EVENTS = "/api/v1/me/consents/events/"
ACTIVE = "/api/v1/me/consents/"
VERIFY = "/api/v1/me/consents/verify/"


def grant_body(**overrides) -> dict:
    return {
        "consent_type": "category:medical",
        "kind": "grant",
        "legal_basis": "consent",
        "capture_method": "settings-toggle",
        "terms_version": "2026-11",
        **overrides,
    }


def test_grant_then_read_active_and_verify():
    # given
    client = bearer_client(MemberFactory())
    # when
    created = client.post(EVENTS, grant_body(), format="json")
    # then
    assert created.status_code == 201
    event = created.json()
    assert event["kind"] == "grant" and len(event["fingerprint"]) == 16 and len(event["hash"]) == 64
    assert event["witness"].startswith("token:")
    active = client.get(ACTIVE).json()["results"]
    assert active == [
        {
            "consent_type": "category:medical",
            "status": "granted",
            "in_force": True,
            "event_id": event["id"],
            "valid_until": None,
        }
    ]
    assert client.get(VERIFY).json() == {
        "valid": True,
        "first_invalid_event_id": None,
        "reason": None,
    }


def test_repeated_grant_is_200_with_the_same_event():
    client = bearer_client(MemberFactory())
    first = client.post(EVENTS, grant_body(), format="json").json()
    again = client.post(EVENTS, grant_body(), format="json")
    assert again.status_code == 200 and again.json()["id"] == first["id"]


def test_withdrawing_without_a_grant_is_409_with_a_clear_code():
    # (withdrawing a sensitive category forgets its memory: a step-up token, issue 42)
    response = step_up_client(MemberFactory()).post(
        EVENTS, grant_body(kind="withdrawal"), format="json"
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "consent-not-granted"


def test_withdrawal_points_at_the_grant_and_empties_the_active_set():
    client = step_up_client(MemberFactory())
    grant = client.post(EVENTS, grant_body(), format="json").json()
    withdrawal = client.post(EVENTS, grant_body(kind="withdrawal"), format="json").json()
    assert withdrawal["supersedes"] == grant["id"]
    assert client.get(ACTIVE).json()["results"][0]["in_force"] is False
    ledger = client.get(EVENTS).json()["results"]
    assert [e["kind"] for e in ledger] == ["withdrawal", "grant"]


def test_ledger_filters_by_type():
    member = MemberFactory()
    record(member, "data_storage")
    record(member, "cross_device")
    results = bearer_client(member).get(EVENTS, {"consent_type": "cross_device"}).json()["results"]
    assert [e["consent_type"] for e in results] == ["cross_device"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (grant_body(consent_type="category:astrology"), "consent_type"),
        (grant_body(kind="revoke"), "kind"),
        (grant_body(kind="expiry"), "kind"),
        ({"kind": "grant"}, "consent_type"),
        (grant_body(legal_basis="vibes"), "legal_basis"),
        (grant_body(terms_version="1999-01"), "terms_version"),
        (grant_body(valid_until="tomorrow-ish"), "valid_until"),
    ],
)
def test_malformed_bodies_are_400_with_field_errors_and_write_nothing(body, field):
    response = bearer_client(MemberFactory()).post(EVENTS, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not ConsentEvent.objects.exists()


def test_broken_json_is_400_with_the_envelope():
    response = bearer_client(MemberFactory()).post(
        EVENTS, data="{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_request"


def test_a_ten_megabyte_body_is_413_and_writes_nothing():
    payload = json.dumps(grant_body(padding="x" * (10 * 1024 * 1024)))
    response = bearer_client(MemberFactory()).post(
        EVENTS, data=payload, content_type="application/json"
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"
    assert not ConsentEvent.objects.exists()


def test_member_a_cannot_read_member_bs_events():
    owner, other = MemberFactory(), MemberFactory()
    event = record(owner, "data_storage").event
    client = bearer_client(other)
    response = client.get(f"{EVENTS}{event.id}/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert client.get(EVENTS).json()["results"] == []
    assert client.get(ACTIVE).json()["results"] == []
    assert bearer_client(owner).get(f"{EVENTS}{event.id}/").status_code == 200


def test_member_a_appends_only_to_their_own_ledger():
    owner, other = MemberFactory(), MemberFactory()
    bearer_client(other).post(EVENTS, grant_body(member=str(owner.pk)), format="json")
    assert not ConsentEvent.objects.filter(member=owner).exists()
    assert ConsentEvent.objects.filter(member=other).count() == 1


@pytest.mark.parametrize("who", ["anonymous", "operator", "service"])
def test_only_members_use_the_consent_api(who):
    client = {
        "anonymous": APIClient,
        "operator": lambda: bearer_client(OperatorFactory()),
        "service": lambda: bearer_client(ServiceClientFactory()),
    }[who]()
    response = client.get(ACTIVE)
    assert response.status_code == (401 if who == "anonymous" else 403)


@pytest.mark.django_db(transaction=True)
def test_grant_over_real_http(live_server):
    _, token = token_issue(owner=MemberFactory())
    response = http_request(live_server.url + EVENTS, method="POST", token=token, body=grant_body())
    assert response.status == 201
    assert response.body["consent_type"] == "category:medical"
