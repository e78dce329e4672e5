"""Recall through the service and the HTTP endpoint: consent from the ledger, the
evaluation regime's leakage checks, side effects, and malformed requests."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from iris_site.audit.events import Actor
from iris_site.errors import NotPermitted
from iris_site.models import AuditEvent
from memory.access.capabilities import capabilities_for
from memory.contracts import MemoryWriteRequest
from memory.models import MemoryEntry, RecallRecord
from memory.pauses import memory_pause, memory_pause_expire_due
from memory.recall import resolve
from memory.recall.service import recall_request_build, recall_run
from memory.recall.store import corpus_stats_get, recall_candidates
from memory.services import memory_remember
from memory.tasks import expire_memory_pauses
from tests.conftest import bearer_client
from tests.consent.factories import record
from tests.iris_site.factories import (
    MemberFactory,
    OperatorFactory,
    ServiceClientFactory,
    TenantFactory,
)

pytestmark = pytest.mark.django_db


def member_with(*consents, tenants=()):
    member = MemberFactory(tenants=list(tenants))
    for consent_type in ("data_processing", "data_storage", *consents):
        record(member, consent_type)
    return member


def remember(member, body, *, category="preference", scope=None, **extra):
    write = MemoryWriteRequest.model_validate(
        {
            "scope": scope or {"kind": "profile"},
            "category": category,
            "body": body,
            "origin": extra.pop("origin", "user-stated"),
            **extra,
        },
        context={"user_id": member.pk},
    )
    return memory_remember(member=member, write=write, actor=Actor.of(member)).entry


def build(member, *, consumer="notebook", surface="notebook", scope=None, **kw):
    """A recall request as the notebook (or ``consumer``) would send it."""
    return recall_request_build(
        member_id=member.pk,
        capabilities=capabilities_for(consumer),
        surface=surface,
        scope=scope or {"kind": "profile"},
        **kw,
    )


def recall(member, *, now=None, **kw):
    return recall_run(request=build(member, **kw), actor=Actor.system(), now=now)


def health_recall(member, **kw):
    """The assistant may claim every context (the notebook only general)."""
    return recall(member, consumer="assistant", surface="assistant", **kw)


def returned(result) -> list[str]:
    return [e.body for e in result.entries]


def test_recall_ranks_by_the_query_and_records_the_use():
    # given
    member = member_with()
    coffee = remember(member, "I take my coffee black")
    remember(member, "I am learning Portuguese", category="goal")
    # when
    result = recall(member, query="what coffee do I drink")
    # then
    assert returned(result)[0] == "I take my coffee black"
    coffee.refresh_from_db()
    assert coffee.reference_count == 1 and coffee.last_referenced_at is not None
    record_row = RecallRecord.objects.get(member=member)
    assert record_row.returned_ids[0] == str(coffee.pk)
    assert "coffee" in record_row.rationales[str(coffee.pk)]
    audit = AuditEvent.objects.get(action="memory.recall.resolved")
    assert audit.payload["returned_ids"][0] == str(coffee.pk)
    assert "coffee" not in str(audit.payload)


def test_sensitive_memory_needs_consent_and_a_relevant_context():
    member = member_with("category:medical")
    remember(member, "I use an inhaler for asthma", category="medical")
    assert returned(health_recall(member, query="inhaler", context="general")) == []
    assert returned(health_recall(member, query="inhaler", context="health")) == [
        "I use an inhaler for asthma"
    ]
    # the caller may narrow consent, never widen it
    narrowed = health_recall(member, query="inhaler", context="health", narrow_categories=[])
    assert returned(narrowed) == []
    record(member, "category:medical", "withdrawal")
    assert returned(health_recall(member, query="inhaler", context="health")) == []


def test_a_caller_cannot_widen_consent():
    member = member_with("category:medical")
    request = build(member, narrow_categories=["medical", "mental_health", "sexuality"])
    assert request.consented_categories == {"medical"}


def test_no_cross_member_cross_scope_or_cross_tenant_leakage():
    tenant, other_tenant = TenantFactory(), TenantFactory()
    member = member_with(tenants=[tenant])
    other = member_with(tenants=[tenant])
    remember(other, "Other member's coffee")
    remember(member, "Session one coffee", scope={"kind": "session", "session_id": "s-1"})
    remember(member, "Session two coffee", scope={"kind": "session", "session_id": "s-2"})
    remember(
        member,
        "Tenant coffee",
        scope={"kind": "tenant", "tenant_id": str(tenant.pk)},
    )
    in_s1 = returned(recall(member, scope={"kind": "session", "session_id": "s-1"}, query="coffee"))
    assert in_s1 == ["Session one coffee"]
    in_profile = returned(recall(member, query="coffee"))
    assert in_profile == []
    in_tenant = recall(
        member, scope={"kind": "tenant", "tenant_id": str(tenant.pk)}, query="coffee"
    )
    assert returned(in_tenant) == ["Tenant coffee"]
    other_tenant_recall = recall(
        member, scope={"kind": "tenant", "tenant_id": str(other_tenant.pk)}, query="coffee"
    )
    assert returned(other_tenant_recall) == []


def test_crisis_frame_surfaces_only_safety_critical_memory():
    member = member_with("category:safety")
    remember(member, "My safety plan: call my sister", category="safety")
    remember(member, "I like long walks")
    result = health_recall(
        member,
        scope={"kind": "crisis"},
        query="",
        context="crisis",
        crisis_frame=True,
        safety_critical_context=True,
    )
    assert returned(result) == ["My safety plan: call my sister"]
    assert result.audit_envelope.suppression_counts == {"crisis-frame": 1}


def test_paused_memory_is_not_recalled():
    member = member_with()
    entry = remember(member, "I take my coffee black")
    memory_pause(entry=entry, actor=Actor.of(member), ends_at=timezone.now() + timedelta(days=1))
    assert returned(recall(member, query="coffee")) == []


@pytest.mark.parametrize(
    ("consumer", "surface"),
    [("assistant", "watch-face"), ("assistant", "notebook"), ("notebook", "admin")],
)
def test_a_surface_outside_the_capabilities_is_refused_never_downgraded(consumer, surface):
    member = member_with()
    with pytest.raises(NotPermitted) as refused:
        build(member, consumer=consumer, surface=surface)
    assert refused.value.code == "surface-not-allowed"


@pytest.mark.parametrize(
    ("consumer", "field", "value", "code"),
    [
        ("veritas", "context", "health", "context-not-allowed"),
        ("notebook", "context", "crisis", "context-not-allowed"),
        (
            "living-scene",
            "scope",
            {"kind": "notebook", "notebook_id": "n"},
            "consumer-not-allowed-for-scope",
        ),
    ],
)
def test_a_context_or_kind_outside_the_capabilities_is_refused(consumer, field, value, code):
    member = member_with()
    with pytest.raises(NotPermitted) as refused:
        build(member, consumer=consumer, surface="shell", **{field: value})
    assert refused.value.code == code


def test_the_shell_surface_gets_the_shell_budget_and_hides_rationales():
    member = member_with()
    for n in range(5):
        remember(member, f"Fact number {n} about tea", subject=f"tea-{n}")
    result = recall(member, surface="shell", query="tea")
    assert result.surface == "shell" and len(result.entries) == 3
    assert all(e.rationale is None for e in result.entries)


def test_a_recall_counts_only_what_it_returned_and_records_the_envelope():
    # given two memories, then processing consent withdrawn
    member = member_with()
    entries = [remember(member, "I take my coffee black"), remember(member, "Coffee at noon")]
    record(member, "data_processing", "withdrawal")
    # when
    result = recall(member, query="coffee")
    # then nothing is returned or touched, and the record says why
    assert result.entries == ()
    for entry in entries:
        entry.refresh_from_db()
        assert (entry.reference_count, entry.last_referenced_at) == (0, None)
    row = RecallRecord.objects.get(member=member)
    assert row.returned_ids == [] and row.rationales == {}
    assert row.suppression_counts == {"scope-suppressed": 2}
    assert row.evaluated_count == 2
    audit = AuditEvent.objects.get(action="memory.recall.resolved")
    assert audit.payload["suppression_counts"] == {"scope-suppressed": 2}
    assert audit.severity == "warning"


def test_a_recall_returns_a_memory_whose_timed_pause_has_ended_and_writes_nothing_of_it():
    # given a pause that ends in a minute
    member = member_with()
    entry = remember(member, "I take my coffee black")
    soon = timezone.now() + timedelta(minutes=1)
    memory_pause(entry=entry, actor=Actor.of(member), ends_at=soon)
    assert returned(recall(member, query="coffee")) == []
    revisions = entry.revisions.count()
    # when a recall runs after the end, before the expiry job has run
    result = recall(member, query="coffee", now=soon + timedelta(seconds=1))
    # then the pause is over for the read gate: the memory is recalled
    assert returned(result) == ["I take my coffee black"]
    # and the read wrote no resumption: that is the job's (a read never writes a revision)
    entry.refresh_from_db()
    assert entry.lifecycle == "paused"
    assert entry.revisions.count() == revisions
    assert not AuditEvent.objects.filter(action="memory.entry.resumed").exists()
    # and the job, run after that end, resumes it
    assert memory_pause_expire_due(now=soon + timedelta(seconds=2)) == 1
    entry.refresh_from_db()
    assert entry.lifecycle == "active"


def test_the_pause_expiry_job_resumes_every_ended_pause_once():
    # given ended and running timed pauses of two members, and an open-ended one
    member, other = member_with(), member_with()
    soon = timezone.now() + timedelta(minutes=1)
    ended = [remember(member, "Coffee one"), remember(other, "Coffee two")]
    running = remember(member, "Coffee three")
    open_ended = remember(member, "Coffee four")
    for entry in ended:
        memory_pause(entry=entry, actor=Actor.system(), ends_at=soon)
    memory_pause(entry=running, actor=Actor.system(), ends_at=soon + timedelta(days=1))
    memory_pause(entry=open_ended, actor=Actor.system())
    later = soon + timedelta(seconds=1)
    # when
    assert memory_pause_expire_due(now=later) == 2
    # then
    lifecycles = {e.pk: MemoryEntry.objects.get(pk=e.pk).lifecycle for e in ended}
    assert set(lifecycles.values()) == {"active"}
    assert MemoryEntry.objects.get(pk=running.pk).lifecycle == "paused"
    assert MemoryEntry.objects.get(pk=open_ended.pk).lifecycle == "paused"
    # and again: nothing left to do
    assert memory_pause_expire_due(now=later) == 0
    assert AuditEvent.objects.filter(action="memory.entry.resumed").count() == 2


def test_the_pause_expiry_job_runs_as_a_task_and_by_hand(monkeypatch):
    member = member_with()
    entry = remember(member, "Coffee one")
    memory_pause(entry=entry, actor=Actor.system(), ends_at=timezone.now() + timedelta(days=1))
    assert expire_memory_pauses.call() == 0
    # once its end has passed (the job asks the clock)
    later = timezone.now() + timedelta(days=2)
    monkeypatch.setattr(timezone, "now", lambda: later)
    out = io.StringIO()
    call_command("memory_pause_expire", stdout=out)
    assert "1 paused memories resumed" in out.getvalue()
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "active"
    assert expire_memory_pauses.call() == 0


def test_same_state_and_request_give_the_same_output():
    member = member_with()
    for n in range(6):
        remember(member, f"Walks in the park on day {n}", subject=f"walk-{n}")
    request = build(member, query="park walks")
    now = timezone.now()
    corpus = corpus_stats_get(member_id=member.pk)
    stored = recall_candidates(request=request)
    first = resolve(stored, request, now, corpus_stats=corpus)
    shuffled = resolve(list(reversed(stored)), request, now, corpus_stats=corpus)
    assert [e.entry_id for e in first.entries] == [e.entry_id for e in shuffled.entries]
    assert len(first.entries) == 6


class TestEndpoint:
    URL = "/api/v1/members/{}/recall/"

    def test_recall_over_the_api(self):
        member = member_with()
        remember(member, "I take my coffee black")
        client = bearer_client(ServiceClientFactory(consumer="assistant"))
        response = client.post(
            self.URL.format(member.pk),
            {"surface": "assistant", "scope": {"kind": "profile"}, "query": "coffee"},
            format="json",
        )
        assert response.status_code == 200
        body = response.json()
        assert body["entries"][0]["body"] == "I take my coffee black"
        assert "rationale" not in body["entries"][0]  # the assistant's rationale is hidden
        assert body["audit_envelope"]["evaluated_count"] == 1

    @pytest.mark.parametrize(
        ("payload", "field"),
        [
            ({"surface": "assistant", "scope": {"kind": "galaxy"}}, "scope"),
            ({"surface": "assistant", "scope": {"kind": "session"}}, "scope.session.session_id"),
            ({"surface": "assistant", "scope": {"kind": "profile"}, "budget": -1}, "budget"),
            ({"surface": "assistant", "scope": {"kind": "profile"}, "query": "q" * 2**20}, "query"),
            ({"surface": "assistant", "scope": {"kind": "profile"}, "context": "x"}, "context"),
        ],
    )
    def test_malformed_requests_are_400_and_record_nothing(self, payload, field):
        member = member_with()
        client = bearer_client(ServiceClientFactory())
        response = client.post(self.URL.format(member.pk), payload, format="json")
        assert response.status_code == 400
        assert any(key.startswith(field) for key in response.json()["error"]["fields"])
        assert not RecallRecord.objects.exists()
        assert not AuditEvent.objects.filter(action="memory.recall.resolved").exists()

    def test_unknown_member_is_404(self):
        client = bearer_client(ServiceClientFactory())
        response = client.post(
            self.URL.format("00000000-0000-0000-0000-000000000000"),
            {"surface": "assistant", "scope": {"kind": "profile"}},
            format="json",
        )
        assert response.status_code == 404

    @pytest.mark.parametrize("who", ["inactive member", "operator"])
    def test_an_id_that_is_no_active_members_is_404_and_nothing_is_written(self, who):
        # given an account that is not an active member (its read state is one statement
        # with that check: nothing of it must be read or written)
        if who == "operator":
            account = OperatorFactory()
        else:
            account = member_with()
            account.is_active = False
            account.save(update_fields=["is_active"])
        client = bearer_client(ServiceClientFactory())
        # when a surface recalls it
        response = client.post(
            self.URL.format(account.pk),
            {"surface": "assistant", "scope": {"kind": "profile"}, "query": "coffee"},
            format="json",
        )
        # then 404, and no recall was recorded or audited
        assert response.status_code == 404
        assert not RecallRecord.objects.exists()
        assert not AuditEvent.objects.filter(action="memory.recall.resolved").exists()

    def test_a_consumer_outside_the_scope_allow_list_is_403(self):
        member = member_with()
        client = bearer_client(ServiceClientFactory(consumer="shell"))
        response = client.post(
            self.URL.format(member.pk),
            {
                "surface": "shell",
                "scope": {
                    "kind": "operator-copilot",
                    "operator_id": "00000000-0000-0000-0000-000000000001",
                },
            },
            format="json",
        )
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "consumer-not-allowed-for-scope"
        assert not RecallRecord.objects.exists()

    def test_members_and_anonymous_cannot_call_recall(self):
        member = member_with()
        url = self.URL.format(member.pk)
        body = {"surface": "assistant", "scope": {"kind": "profile"}}
        assert APIClient().post(url, body, format="json").status_code == 401
        assert bearer_client(member).post(url, body, format="json").status_code == 403

    def test_member_sees_their_recalls_and_nobody_elses(self):
        member, other = member_with(), member_with()
        remember(member, "I take my coffee black")
        recall(member, query="coffee")
        mine = bearer_client(member).get("/api/v1/me/recalls/").json()["results"]
        assert len(mine) == 1 and mine[0]["surface"] == "notebook"
        assert bearer_client(other).get("/api/v1/me/recalls/").json()["results"] == []
        assert MemoryEntry.objects.filter(member=member).get().reference_count == 1
