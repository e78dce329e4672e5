"""The operator memory-hierarchy API: counts, replay (R1/RC1), stm and ltm reads with a
required justification, role checks, tenant binding, and the audit of every read."""

import json

import pytest

from hierarchy.models import OperatorAccessRecord
from hierarchy.stm import scope_digest
from iris_site.services import token_issue
from tests.conftest import bearer_client, http_request
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
    [event] = events("hierarchy.counts.read")
    assert event.actor_type == "operator" and event.actor_role == "support"


def test_a_failed_part_is_null(monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("replica down")

    monkeypatch.setattr("hierarchy.operator.ltm_counts_by_lifecycle", broken)
    body = operator().get(f"{BASE}/counts/").json()
    assert body["ltm"] is None
    assert body["stm"] is not None and body["episodic_24h"] is not None
    assert events("hierarchy.counts.read")[0].payload["failed_parts"] == ["ltm"]


def test_a_tenant_bound_operator_counts_their_tenant_only():
    tenant, elsewhere = TenantFactory(), TenantFactory()
    write(member_with(tenants=[tenant]))
    write(member_with(tenants=[elsewhere]))
    write(member_with())
    body = operator(tenant=tenant).get(f"{BASE}/counts/").json()
    assert body["stm"]["total"] == 1


def test_a_tenant_bound_operator_counts_only_its_own_tenants_memory():
    """Neither another tenant's memory nor a member's consumer memory (their profile)
    counts for a tenant-bound operator; a platform operator counts everything."""
    mine, theirs = TenantFactory(), TenantFactory()
    both = member_with(tenants=[mine, theirs])
    remember(both)
    remember(both, subject="rota", scope={"kind": "tenant", "tenant_id": str(theirs.pk)})
    assert operator(tenant=mine).get(f"{BASE}/counts/").json()["ltm"]["total"] == 0
    assert operator(tenant=theirs).get(f"{BASE}/counts/").json()["ltm"]["total"] == 1
    assert operator().get(f"{BASE}/counts/").json()["ltm"]["total"] == 2


def test_replay_returns_the_scopes_timeline_and_an_optional_reconstruction():
    # given
    member = member_with()
    row = write(member, scope_id="run-7", scope_kind="agent_run")
    write(member, scope_id="other")
    # when
    timeline = operator("admin").get(f"{BASE}/replay/run-7/")
    rebuilt = operator("admin").get(f"{BASE}/replay/run-7/", {"reconstruct": "true"})
    # then
    assert timeline.status_code == 200
    # support lists no short-term events at all (issue 42: what its role needs)
    assert operator("support").get(f"{BASE}/replay/run-7/").json()["events"] == []
    assert [e["action"] for e in timeline.json()["events"]] == ["hierarchy.stm.written"]
    assert timeline.json()["events"][0]["payload"]["stm_id"] == str(row.pk)
    assert timeline.json()["reconstructed"] is None
    [state] = rebuilt.json()["reconstructed"]
    assert state["stm_id"] == str(row.pk) and state["state"] == "written"
    assert events("hierarchy.replay.read")[0].payload["transition"] == "r1"
    assert events("hierarchy.replay.reconstructed")[0].payload["event_count"] == 1
    assert timeline.json()["scope_id_digest"] == scope_digest("run-7")


def test_stm_rows_need_a_justification_and_never_show_content():
    # given
    member = member_with("category:medical")
    write(member, content="prefers morning walks")
    write(member, category="medical", content="takes insulin")
    client = operator()
    # when
    refused = client.post(f"{BASE}/stm/s-1/", {}, format="json")
    too_short = client.post(f"{BASE}/stm/s-1/", {"justification": "because"}, format="json")
    response = client.post(f"{BASE}/stm/s-1/", {"justification": WHY}, format="json")
    # then
    assert refused.status_code == 400 and too_short.status_code == 400
    assert response.status_code == 200
    rows = response.json()
    assert sorted((r["sensitive"], r["content_length"]) for r in rows) == [
        (False, len("prefers morning walks")),
        (True, None),
    ]
    assert all("content" not in r for r in rows)
    assert "walks" not in response.content.decode() and "insulin" not in response.content.decode()
    [event] = events("hierarchy.stm.admin_read")
    assert event.payload["row_count"] == 2
    assert event.target_member_id == member.pk
    record = OperatorAccessRecord.objects.get(pk=event.payload["access_record_id"])
    assert record.justification == WHY
    assert "justification" not in event.payload


# --- long-term lookups: an entry id or actor handle (metadata), a subject (counts) ---------

LIFECYCLES = {"active": 0, "draft": 0, "paused": 0, "superseded": 0, "tombstoned": 0}


def test_an_entry_id_lookup_answers_its_metadata_in_every_state_never_the_body():
    # given
    member = member_with()
    kept = remember(member, subject="coffee", body="I take my coffee black").entry
    remember(member, subject="coffee", body="I take my coffee with milk")  # supersedes
    client = operator("legal")
    # when
    response = client.post(
        f"{BASE}/ltm/{kept.pk}/", {"justification": WHY, "include_history": "1"}, format="json"
    )
    # then
    assert response.status_code == 200
    body = response.json()
    assert body["lookup"] == "entry-id"
    assert body["counts"] == {**LIFECYCLES, "superseded": 1, "total": 1}
    [row] = body["entries"]
    assert (row["id"], row["member_id"], row["lifecycle"]) == (
        str(kept.pk),
        str(member.pk),
        "superseded",
    )
    assert row["category"] == "preference" and row["sensitive"] is False
    assert row["history"] and "body" not in row and "subject" not in row
    assert "coffee" not in response.content.decode()
    [event] = events("hierarchy.ltm_history.read")
    assert event.payload["transition"] == "rc2" and event.payload["lookup"] == "entry-id"
    assert event.payload["entry_ids"] == [str(kept.pk)] and event.payload["entry_count"] == 1
    assert event.target_member_id == member.pk
    narrowed = client.post(
        f"{BASE}/ltm/{kept.pk}/", {"justification": WHY, "state": "active"}, format="json"
    )
    assert narrowed.json()["entries"] == [] and narrowed.json()["counts"]["total"] == 0


def test_an_actor_handle_lookup_answers_the_entries_that_mention_them():
    member = member_with()
    mention = remember(
        member,
        category="relationship",
        body="Ingrid called on Sunday",
        multi_actor={"actor_name": "Ingrid", "relationship_note": "sister"},
    ).entry
    remember(member, body="unrelated")
    response = operator().post(
        f"{BASE}/ltm/{mention.actor_handle}/", {"justification": WHY}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["lookup"] == "actor-handle"
    assert [r["id"] for r in body["entries"]] == [str(mention.pk)]
    assert body["counts"]["active"] == 1 and body["counts"]["total"] == 1
    text = response.content.decode()
    assert "Ingrid" not in text and "sister" not in text and "Sunday" not in text
    [event] = events("hierarchy.ltm.read")
    assert event.payload["lookup"] == "actor-handle" and event.payload["transition"] == "r3"


def thyroid_world():
    """Two members with a memory about thyroid medication, one without."""
    a = member_with("category:medical")
    b = member_with("category:medical")
    first = remember(a, category="medical", subject="Thyroid medication", body="takes it at 7")
    remember(a, category="medical", subject="thyroid medication", body="takes it at 8")
    second = remember(b, category="medical", subject="thyroid medication", body="stopped it")
    remember(member_with(), subject="coffee")
    return a, b, first.entry, second.entry


def test_a_subject_lookup_answers_counts_only_and_audits_no_ids():
    # given
    a, b, first, second = thyroid_world()
    # when
    response = operator().post(
        f"{BASE}/ltm/thyroid medication/", {"justification": WHY}, format="json"
    )
    # then
    assert response.status_code == 200
    body = response.json()
    assert body == {
        "lookup": "subject",
        "counts": {**LIFECYCLES, "active": 2, "superseded": 1, "total": 3},
        "entity": None,
        "entries": None,
    }
    [event] = events("hierarchy.ltm.read")
    assert event.payload["lookup"] == "subject" and event.payload["entry_count"] == 3
    assert event.target_member_id is None
    chain = json.dumps(event.payload)
    for named in (a.pk, b.pk, first.pk, second.pk):
        assert str(named) not in chain
    assert "medical" not in chain and "thyroid" not in chain
    assert OperatorAccessRecord.objects.get(pk=event.payload["access_record_id"]).justification


@pytest.mark.parametrize("field", ["member_id", "include_history"])
def test_a_subject_lookup_cannot_be_narrowed_to_a_member_or_show_history(field):
    a, *_ = thyroid_world()
    given = {"member_id": str(a.pk), "include_history": "true"}[field]
    response = operator().post(
        f"{BASE}/ltm/thyroid medication/", {"justification": WHY, field: given}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "subject-lookup-counts-only" and list(error["fields"]) == [field]
    assert not events("hierarchy.ltm.read")


def test_a_tenant_bound_admin_reaches_only_its_own_tenants_entries():
    # given: ours belongs to both tenants; one of its entries is scoped to ours, one to
    # the other tenant, one is its own profile memory (no tenant's)
    mine, theirs = TenantFactory(), TenantFactory()
    ours = member_with(tenants=[mine, theirs])
    stranger = member_with(tenants=[theirs])
    own = remember(ours, subject="rota", scope={"kind": "tenant", "tenant_id": str(mine.pk)}).entry
    consumer = remember(ours, subject="rota", body="My own rota at home").entry
    scoped_elsewhere = remember(
        ours, subject="rota", scope={"kind": "tenant", "tenant_id": str(theirs.pk)}
    ).entry
    foreign = remember(
        stranger, subject="rota", multi_actor={"actor_name": "Ingrid"}, category="relationship"
    ).entry
    client = operator(tenant=mine)

    def lookup(entity):
        response = client.post(f"{BASE}/ltm/{entity}/", {"justification": WHY}, format="json")
        assert response.status_code == 200
        return response.json()

    # then
    assert [r["id"] for r in lookup(own.pk)["entries"]] == [str(own.pk)]
    for entity in (scoped_elsewhere.pk, consumer.pk, foreign.pk, foreign.actor_handle):
        assert lookup(entity)["entries"] == [] and lookup(entity)["counts"]["total"] == 0
    assert lookup("rota")["counts"]["total"] == 1
    assert (
        operator()
        .post(f"{BASE}/ltm/rota/", {"justification": WHY}, format="json")
        .json()["counts"]["total"]
        == 4
    )


@pytest.mark.django_db(transaction=True)
def test_over_http_a_subject_lookup_no_longer_names_members_or_categories(live_server):
    """Regression: `/ltm/{subject}/` listed every member with a memory about the subject,
    with its category, to any admin with a justification."""
    # given
    a, b, first, second = thyroid_world()
    _, token = token_issue(owner=OperatorFactory(role="admin"))
    # when
    response = http_request(
        f"{live_server.url}{BASE}/ltm/thyroid%20medication/",
        method="POST",
        token=token,
        body={"justification": "ticket 991 audit"},
    )
    # then
    assert response.status == 200
    assert response.body["lookup"] == "subject" and response.body["entries"] is None
    assert response.body["counts"]["total"] == 3
    text = json.dumps(response.body)
    for named in (a.pk, b.pk, first.pk, second.pk):
        assert str(named) not in text
    assert "medical" not in text and "member_id" not in text


@pytest.mark.parametrize("path", ["stm/s-1/", "ltm/coffee/"])
def test_support_may_not_read_member_data(path):
    response = operator("support").post(f"{BASE}/{path}", {"justification": WHY}, format="json")
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "counts/"), ("get", "replay/s-1/"), ("post", "stm/s-1/"), ("post", "ltm/coffee/")],
)
def test_surfaces_and_members_are_refused(method, path):
    for client in (
        bearer_client(ServiceClientFactory()),
        bearer_client(member_with()),
    ):
        call = getattr(client, method)
        assert call(f"{BASE}/{path}", {"justification": WHY}, format="json").status_code == 403


def test_a_justification_in_the_url_is_refused_and_not_read():
    response = operator().post(f"{BASE}/ltm/coffee/?justification={WHY}", {}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"justification": ["Send this in the JSON body."]}
    assert not events("hierarchy.ltm.read")
