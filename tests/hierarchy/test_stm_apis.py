"""The surfaces' short-term, consolidate and context-bundle endpoints, and who may call
them: service clients only; another member's row is 404; rows the read gate withholds
are absent (counted) or 404; what a client may claim is in the OpenAPI descriptions."""

import uuid

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from hierarchy.models import ShortTermMemory
from memory.access.capabilities import capability_table_markdown
from memory.models import MemoryEntry
from tests.conftest import bearer_client
from tests.hierarchy.stm_factories import events, member_with, write
from tests.iris_site.factories import OperatorFactory, ServiceClientFactory

pytestmark = pytest.mark.django_db
BODY = {
    "scope_kind": "user_session",
    "scope_id": "s-1",
    "category": "preference",
    "content": "prefers morning walks",
}


@pytest.fixture
def service():
    return bearer_client(ServiceClientFactory(consumer="assistant"))


def short_term(member) -> str:
    return f"/api/v1/members/{member.pk}/short-term/"


def test_a_surface_writes_and_reads_a_scopes_rows(service):
    # given
    member = member_with()
    # when
    created = service.post(short_term(member), BODY, format="json")
    listed = service.get(short_term(member), {"scope_id": "s-1"})
    # then
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["consolidated_to"] is None and body["ttl_seconds"] == 900
    assert body["content"] == "prefers morning walks"
    assert listed.status_code == 200
    assert [r["id"] for r in listed.json()["results"]] == [body["id"]]
    assert events("hierarchy.stm.written", stm_id=body["id"])
    [read] = events("hierarchy.stm.read")
    assert read.payload["stm_ids"] == [body["id"]]
    assert read.actor_role == "assistant"


def test_reads_must_name_the_scope(service):
    response = service.get(short_term(member_with()))
    assert response.status_code == 400
    assert "scope_id" in response.json()["error"]["fields"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"scope_kind": "admin_session"}, "scope_kind"),
        ({"scope_id": "has space"}, "scope_id"),
        ({"category": "not-a-category"}, "category"),
        ({"surprise": 1}, "surprise"),
        ({"content": ""}, "content"),
    ],
)
def test_bad_writes_are_400(service, change, field):
    response = service.post(short_term(member_with()), {**BODY, **change}, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_a_policy_refusal_is_422_with_the_reason(service):
    response = service.post(
        short_term(member_with()), {**BODY, "category": "medical"}, format="json"
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "sensitive-category-without-consent"


def test_an_unknown_member_is_404(service):
    fake = f"/api/v1/members/{uuid.uuid4()}/short-term/"
    assert service.post(fake, BODY, format="json").status_code == 404
    operator = OperatorFactory()
    assert (
        service.get(f"/api/v1/members/{operator.pk}/short-term/", {"scope_id": "s-1"}).status_code
        == 404
    )


def test_another_members_row_is_not_found_through_a_member_path(service):
    mine, theirs = member_with(), member_with()
    row = write(theirs)
    response = service.post(
        f"/api/v1/members/{mine.pk}/short-term/{row.pk}/refresh/", {}, format="json"
    )
    assert response.status_code == 404
    listed = service.get(short_term(mine), {"scope_id": "s-1"})
    assert listed.json()["results"] == []


def test_refresh_extends_the_ttl(service):
    member = member_with()
    row = write(member)
    response = service.post(
        f"/api/v1/members/{member.pk}/short-term/{row.pk}/refresh/",
        {"ttl_seconds": 1200},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["ttl_expires"] > row.ttl_expires.isoformat().replace("+00:00", "Z")
    assert events("hierarchy.stm.refreshed", stm_id=str(row.pk))


def test_explicit_consolidation_is_201_then_409(service):
    # given
    member = member_with()
    row = write(member)
    url = f"/api/v1/members/{member.pk}/short-term/{row.pk}/consolidate/"
    # when
    first = service.post(url, {"explicit": True}, format="json")
    second = service.post(url, {"explicit": True}, format="json")
    # then
    assert first.status_code == 201, first.json()
    assert first.json()["trigger"] == "explicit"
    assert MemoryEntry.objects.filter(pk=first.json()["entry_id"], member=member).exists()
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "already-consolidated"
    assert len(events("hierarchy.stm.consolidated", stm_id=str(row.pk))) == 1


def test_consolidation_into_an_existing_entry_is_409_illegal(service):
    row = write(member_with())
    response = service.post(
        f"/api/v1/members/{row.member_id}/short-term/{row.pk}/consolidate/",
        {"entry_id": str(uuid.uuid4())},
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["error"]["fields"] == {"transition": ["ltm-direct-rewrite"]}


def test_consolidation_of_an_unknown_row_is_404(service):
    member = member_with()
    response = service.post(
        f"/api/v1/members/{member.pk}/short-term/{uuid.uuid4()}/consolidate/", {}, format="json"
    )
    assert response.status_code == 404


def test_the_context_bundle_endpoint(service):
    cache.clear()
    member = member_with()
    write(member)
    url = f"/api/v1/members/{member.pk}/context-bundle/"
    body = {"scope_id": "s-1", "query": "walks", "include_episodic": True}
    first = service.post(url, body, format="json")
    second = service.post(url, body, format="json")
    assert first.status_code == 200, first.json()
    assert set(first.json()) == {
        "scope_id",
        "stm",
        "stm_withheld",
        "ltm",
        "episodic",
        "resolved_at",
        "cached",
    }
    assert len(first.json()["stm"]) == 1
    assert first.json()["stm_withheld"] == {}
    assert set(first.json()["ltm"]) == {"entries", "entities", "relationships", "audit_envelope"}
    assert second.json()["cached"] is True
    assert len(events("hierarchy.bundle.resolved")) == 2


@pytest.mark.parametrize("who", ["member", "operator", "anonymous"])
def test_only_service_clients_may_use_the_surface_endpoints(who):
    member = member_with()
    row = write(member)
    if who == "member":
        client = bearer_client(member)
    elif who == "operator":
        client = bearer_client(OperatorFactory(role="admin"))
    else:
        client = APIClient()
    expected = 401 if who == "anonymous" else 403
    calls = [
        client.get(short_term(member), {"scope_id": "s-1"}),
        client.post(short_term(member), BODY, format="json"),
        client.post(
            f"/api/v1/members/{member.pk}/short-term/{row.pk}/consolidate/", {}, format="json"
        ),
        client.post(
            f"/api/v1/members/{member.pk}/context-bundle/", {"scope_id": "s-1"}, format="json"
        ),
    ]
    assert [c.status_code for c in calls] == [expected] * 4
    assert ShortTermMemory.objects.count() == 1


# --- reads through the read gate --------------------------------------------------------------


def test_a_sensitive_row_is_listed_only_in_a_context_the_client_may_claim(service):
    # given
    member = member_with("category:mental_health")
    sensitive = write(member, category="mental_health", content="anxious before exams")
    ordinary = write(member)
    # when
    general = service.get(short_term(member), {"scope_id": "s-1"})
    health = service.get(short_term(member), {"scope_id": "s-1", "context": "health"})
    # then: the pagination shape stays, the withheld row is absent and counted
    assert general.status_code == 200
    assert set(general.json()) == {"next", "previous", "results", "withheld"}
    assert [r["id"] for r in general.json()["results"]] == [str(ordinary.pk)]
    assert general.json()["withheld"] == {"sensitive-category-outside-relevant-context": 1}
    assert "anxious" not in general.content.decode()
    assert [r["id"] for r in health.json()["results"]] == [str(sensitive.pk), str(ordinary.pk)]
    assert health.json()["results"][0]["content"] == "anxious before exams"
    assert health.json()["withheld"] == {}
    first, second = events("hierarchy.stm.read")
    assert first.payload["withheld_counts"] == {"sensitive-category-outside-relevant-context": 1}
    assert second.payload["withheld_counts"] == {}


def test_a_context_outside_the_capabilities_is_403_and_an_unknown_one_400():
    member = member_with("category:mental_health")
    write(member, category="mental_health", content="anxious before exams")
    veritas = bearer_client(ServiceClientFactory(consumer="veritas"))
    refused = veritas.get(short_term(member), {"scope_id": "s-1", "context": "health"})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "context-not-allowed"
    unknown = veritas.get(short_term(member), {"scope_id": "s-1", "context": "gossip"})
    assert unknown.status_code == 400
    assert "context" in unknown.json()["error"]["fields"]
    assert not events("hierarchy.stm.read")


def test_a_withheld_row_cannot_be_refreshed_and_is_not_revealed(service):
    # given
    member = member_with("category:mental_health")
    row = write(member, category="mental_health", content="anxious before exams")
    url = f"/api/v1/members/{member.pk}/short-term/{row.pk}/refresh/"
    # when
    hidden = service.post(url, {"ttl_seconds": 1200}, format="json")
    # then
    assert hidden.status_code == 404
    assert hidden.json()["error"]["code"] == "not_found"
    assert ShortTermMemory.objects.get(pk=row.pk).ttl_expires == row.ttl_expires
    assert not events("hierarchy.stm.refreshed")
    seen = service.post(f"{url}?context=health", {"ttl_seconds": 1200}, format="json")
    assert seen.status_code == 200
    assert seen.json()["content"] == "anxious before exams"
    assert events("hierarchy.stm.refreshed", stm_id=str(row.pk))


def test_the_bundle_endpoint_refuses_what_the_client_may_not_claim():
    member = member_with()
    veritas = bearer_client(ServiceClientFactory(consumer="veritas"))
    url = f"/api/v1/members/{member.pk}/context-bundle/"
    for body, code in [
        ({"scope_id": "s-1", "context": "health"}, "context-not-allowed"),
        ({"scope_id": "s-1", "surface": "notebook"}, "surface-not-allowed"),
        ({"scope_id": "s-1", "surface": "admin"}, "surface-not-allowed"),
    ]:
        response = veritas.post(url, body, format="json")
        assert response.status_code == 403, body
        assert response.json()["error"]["code"] == code
    assert veritas.post(url, {"scope_id": "s-1"}, format="json").status_code == 200


def test_the_openapi_descriptions_carry_the_capability_table():
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    base = "/api/v1/members/{member_id}"
    operations = [
        schema["paths"][f"{base}/short-term/"]["get"],
        schema["paths"][f"{base}/short-term/"]["post"],
        schema["paths"][f"{base}/short-term/{{stm_id}}/refresh/"]["post"],
        schema["paths"][f"{base}/context-bundle/"]["post"],
    ]
    table = capability_table_markdown()
    for operation in operations:
        assert table in operation["description"]
        assert "context-not-allowed" in operation["description"]
        assert "403" in operation["responses"]
    listed = operations[0]["responses"]["200"]["content"]["application/json"]["schema"]
    page = schema["components"]["schemas"][listed["$ref"].rsplit("/", 1)[-1]]
    assert "withheld" in page["properties"] and "withheld" in page["required"]
