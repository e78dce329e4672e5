"""Suppression reasons by principal, attacked over real HTTP (issue 42, item 8): a
surface tries to write a suppression onto a member's memory — a tenant quarantine onto
consumer memory, onto the tenant's own memory, a pause for the member, the crisis frame
or the sensitive hold that only Iris sets. Each is a 403 with a stable code, audited as a
refused write, and nothing is stored (`memory.access.suppressions`)."""

import pytest

from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.enums import SuppressionReason
from memory.models import MemoryEntry
from tests.conftest import http_request
from tests.iris_site.factories import ServiceClientFactory, TenantFactory
from tests.memory.factories import consenting_member

live = pytest.mark.django_db(transaction=True)
STARTED = "2026-01-01T00:00:00Z"


def surface_write(live_server, member, consumer, *, scope, reason):
    _, token = token_issue(owner=ServiceClientFactory(consumer=consumer))
    return http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/memories/?session_id=s-1",
        method="POST",
        token=token,
        body={
            "scope": scope,
            "category": "preference",
            "body": "Prefers the quiet carriage",
            "origin": "model-inferred",
            "suppression": {"reason": reason, "started_at": STARTED},
        },
        timeout=30,
    )


def assert_refused(response, member):
    assert response.status == 403, response.body
    assert response.body["error"]["code"] == "suppression-reason-not-allowed"
    assert not MemoryEntry.objects.filter(member=member).exists()
    refused = AuditEvent.objects.filter(target_member_id=member.pk, action="memory.write.refused")
    assert [e.payload.get("reason") for e in refused] == ["suppression-reason-not-allowed"]


@live
@pytest.mark.parametrize("reason", SuppressionReason.values)
def test_no_surface_writes_a_suppression_onto_consumer_memory(live_server, reason):
    # given a member and the assistant surface
    member = consenting_member()
    # when it writes session memory carrying a suppression
    response = surface_write(
        live_server,
        member,
        "assistant",
        scope={"kind": "session", "session_id": "s-1"},
        reason=reason,
    )
    # then
    assert_refused(response, member)


@live
def test_a_surface_cannot_quarantine_even_its_tenants_own_memory(live_server):
    # given a member of a tenant, and the notebook surface that writes tenant memory
    tenant = TenantFactory()
    member = consenting_member(tenants=[tenant])
    # when it writes tenant memory under a tenant quarantine
    response = surface_write(
        live_server,
        member,
        "notebook",
        scope={"kind": "tenant", "tenant_id": str(tenant.pk)},
        reason="tenant-quarantine",
    )
    # then only that tenant's operator could have: the surface is refused
    assert_refused(response, member)


@live
def test_the_same_write_without_a_suppression_is_stored(live_server):
    member = consenting_member()
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    response = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/memories/?session_id=s-1",
        method="POST",
        token=token,
        body={
            "scope": {"kind": "session", "session_id": "s-1"},
            "category": "preference",
            "body": "Prefers the quiet carriage",
            "origin": "model-inferred",
        },
        timeout=30,
    )
    assert response.status == 201, response.body
    assert MemoryEntry.objects.get(member=member).suppression_reason == ""


@live
def test_the_member_cannot_write_a_suppression_through_the_write_either(live_server):
    member = consenting_member()
    _, token = token_issue(owner=member)
    response = http_request(
        f"{live_server.url}/api/v1/me/memories/",
        method="POST",
        token=token,
        body={
            "scope": {"kind": "profile"},
            "category": "preference",
            "body": "Prefers the quiet carriage",
            "suppression": {"reason": "tenant-quarantine", "started_at": STARTED},
        },
    )
    # (they pause through the pause action; a write carries no suppression)
    assert response.status == 400 and "suppression" in response.body["error"]["fields"]
    assert not MemoryEntry.objects.filter(member=member).exists()
