"""Webhook endpoints over the operator API: platform admins only; the secret is shown
once, in the answer that made it; the list shows counts, never events or members."""

import pytest
from django.test import override_settings

from iris_site.models import AuditEvent
from tests.conftest import bearer_client
from tests.iris_site.factories import (
    MemberFactory,
    OperatorFactory,
    ServiceClientFactory,
    TenantFactory,
)
from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db

BASE = "/api/v1/operator/webhooks/"
URL = "https://hooks.example.test/iris"


def admin():
    return bearer_client(OperatorFactory(role="admin"))


def test_an_admin_sets_rotates_retries_and_disables_an_endpoint():
    client = ServiceClientFactory(consumer="assistant")
    api = admin()
    made = api.put(f"{BASE}{client.pk}/", {"url": URL}, content_type="application/json")
    assert made.status_code == 201 and made.json()["secret"].startswith("whsec_")
    assert made["Cache-Control"] == "no-store"
    replaced = api.put(f"{BASE}{client.pk}/", {"url": URL + "/v2"}, content_type="application/json")
    assert replaced.status_code == 200 and replaced.json() == {"secret": None}
    rotated = api.post(f"{BASE}{client.pk}/rotate/")
    assert rotated.status_code == 200 and rotated.json()["secret"] != made.json()["secret"]
    assert api.post(f"{BASE}{client.pk}/retry/").json() == {"retried_count": 0}
    [listed] = [row for row in api.get(BASE).json() if row["service_client_id"] == str(client.pk)]
    assert listed["url"] == URL + "/v2" and listed["active"] and listed["dead_count"] == 0
    assert api.delete(f"{BASE}{client.pk}/").status_code == 204
    assert not WebhookEndpoint.objects.get(service_client=client).is_active
    payloads = str(
        list(AuditEvent.objects.filter(action__startswith="webhooks.").values("payload"))
    )
    assert "whsec_" not in payloads


@override_settings(DEBUG=False)
def test_bad_input_and_unknown_clients():
    client = ServiceClientFactory(consumer="assistant")
    api = admin()
    plain = api.put(
        f"{BASE}{client.pk}/",
        {"url": "http://hooks.example.test/"},
        content_type="application/json",
    )
    assert plain.status_code == 400 and "url" in plain.json()["error"]["fields"]
    extra = api.put(
        f"{BASE}{client.pk}/", {"url": URL, "secret": "mine"}, content_type="application/json"
    )
    assert extra.status_code == 400 and "secret" in extra.json()["error"]["fields"]
    unknown = "00000000-0000-0000-0000-000000000000"
    assert (
        api.put(f"{BASE}{unknown}/", {"url": URL}, content_type="application/json").status_code
        == 404
    )
    assert api.post(f"{BASE}{client.pk}/rotate/").status_code == 404  # no endpoint yet


def test_only_platform_admins():
    client = ServiceClientFactory(consumer="assistant")
    for who in (
        OperatorFactory(role="support"),
        OperatorFactory(role="legal"),
        OperatorFactory(role="admin", tenant=TenantFactory()),
        MemberFactory(),
        ServiceClientFactory(consumer="shell"),
    ):
        api = bearer_client(who)
        assert api.get(BASE).status_code == 403
        put = api.put(f"{BASE}{client.pk}/", {"url": URL}, content_type="application/json")
        assert put.status_code == 403
    assert not WebhookEndpoint.objects.exists()
