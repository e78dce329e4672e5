"""The operator memory-hierarchy API: counts, replay (R1/RC1), stm and ltm reads with a
required justification, role checks, tenant binding, and the audit of every read."""

import pytest

from hierarchy.models import OperatorAccessRecord
from hierarchy.stm import scope_digest
from tests.conftest import bearer_client
from tests.hierarchy.stm_factories import events, member_with, write
from tests.iris_site.factories import OperatorFactory, ServiceClientFactory, TenantFactory
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db
BASE = "/api/v1/operator/memory-hierarchy"
WHY = "support ticket 4411: agent lost its state"


def operator(role="admin", tenant=None):
    return bearer_client(OperatorFactory(role=role, tenant=tenant))


def test_counts_by_tier_for_any_operator():
    # given
    member = member_with()
    write(member)
    write(member, scope_kind="agent_run")
    remember(member)
    # when
    response = operator("support").get(f"{BASE}/counts/")
    # then
    assert response.status_code == 200
    body = response.json()
    assert body["stm"] == {
        "research_task": 0,
        "agent_run": 1,
        "user_session": 1,
        "admin_session": 0,
        "total": 2,
    }
    assert body["ltm"]["active"] == 1 and body["ltm"]["total"] == 1
    assert body["episodic_24h"] >= 3
    [event] = events("admin.memory_hierarchy.counts.read")
    assert event.actor_type == "operator" and event.actor_role == "support"


def test_a_failed_part_is_null(monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("replica down")

    monkeypatch.setattr("hierarchy.operator.ltm_counts_by_lifecycle", broken)
    body = operator().get(f"{BASE}/counts/").json()
    assert body["ltm"] is None
    assert body["stm"] is not None and body["episodic_24h"] is not None
    assert events("admin.memory_hierarchy.counts.read")[0].payload["failed_parts"] == ["ltm"]


def test_a_tenant_bound_operator_counts_their_tenant_only():
    tenant, elsewhere = TenantFactory(), TenantFactory()
    write(member_with(tenants=[tenant]))
    write(member_with(tenants=[elsewhere]))
    write(member_with())
    body = operator(tenant=tenant).get(f"{BASE}/counts/").json()
    assert body["stm"]["total"] == 1


def test_replay_returns_the_scopes_timeline_and_an_optional_reconstruction():
    # given
    member = member_with()
    row = write(member, scope_id="run-7", scope_kind="agent_run")
    write(member, scope_id="other")
    # when
    timeline = operator("support").get(f"{BASE}/replay/run-7/")
    rebuilt = operator("support").get(f"{BASE}/replay/run-7/", {"reconstruct": "true"})
    # then
    assert timeline.status_code == 200
    assert [e["action"] for e in timeline.json()["events"]] == ["memory.stm.write"]
    assert timeline.json()["events"][0]["payload"]["stm_id"] == str(row.pk)
    assert timeline.json()["reconstructed"] is None
    [state] = rebuilt.json()["reconstructed"]
    assert state["stm_id"] == str(row.pk) and state["state"] == "written"
    assert events("admin.memory_hierarchy.replay.read")[0].payload["transition"] == "r1"
    assert events("admin.memory_hierarchy.replay.reconstructed")[0].payload["event_count"] == 1
    assert timeline.json()["scope_id_digest"] == scope_digest("run-7")


def test_stm_rows_need_a_justification_and_never_show_content():
    # given
    member = member_with("category:medical")
    write(member, content="prefers morning walks")
    write(member, category="medical", content="takes insulin")
    client = operator()
    # when
    refused = client.get(f"{BASE}/stm/s-1/")
    too_short = client.get(f"{BASE}/stm/s-1/", {"justification": "because"})
    response = client.get(f"{BASE}/stm/s-1/", {"justification": WHY})
    # then
    assert refused.status_code == 400 and too_short.status_code == 400
    assert response.status_code == 200
    rows = response.json()
    assert sorted(r["content"] for r in rows) == ["<encrypted>", "<redacted>"]
    assert "walks" not in response.content.decode() and "insulin" not in response.content.decode()
    [event] = events("memory.govern.admin_stm_read")
    assert event.payload["row_count"] == 2
    assert event.target_member_id == member.pk
    record = OperatorAccessRecord.objects.get(pk=event.payload["access_record_id"])
    assert record.justification == WHY
    assert "justification" not in event.payload


def test_ltm_entries_by_entity_in_every_state_without_bodies():
    member = member_with()
    kept = remember(member, subject="coffee", body="I take my coffee black").entry
    remember(member, subject="coffee", body="I take my coffee with milk")  # supersedes
    client = operator("legal")
    response = client.get(f"{BASE}/ltm/coffee/", {"justification": WHY, "include_history": "true"})
    assert response.status_code == 200
    rows = response.json()
    assert {r["lifecycle"] for r in rows} == {"active", "superseded"}
    assert all(r["body"] == "<redacted>" for r in rows)
    assert "coffee" not in response.content.decode().replace("coffee/", "")
    assert any(r["history"] for r in rows)
    narrowed = client.get(f"{BASE}/ltm/coffee/", {"justification": WHY, "state": "superseded"})
    assert [r["id"] for r in narrowed.json()] == [str(kept.pk)]
    assert events("admin.memory_hierarchy.ltm.history_read")[0].payload["transition"] == "rc2"
    assert events("admin.memory_hierarchy.ltm.read")


@pytest.mark.parametrize("path", ["stm/s-1/", "ltm/coffee/"])
def test_support_may_not_read_member_data(path):
    response = operator("support").get(f"{BASE}/{path}", {"justification": WHY})
    assert response.status_code == 403


@pytest.mark.parametrize("path", ["counts/", "replay/s-1/", "stm/s-1/", "ltm/coffee/"])
def test_surfaces_and_members_are_refused(path):
    for client in (
        bearer_client(ServiceClientFactory()),
        bearer_client(member_with()),
    ):
        assert client.get(f"{BASE}/{path}", {"justification": WHY}).status_code == 403
