"""Attacks on issue 43's request-cost work: the reads it folded into single statements and
the privacy checks it moved (the recall's member/tenant 404, capabilities loaded with the
token, the audit append as one statement, the consent + opt-out UNION, the entity graph's
raw UNION, the cross-device grant read with the member's state)."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache
from django.utils import timezone

from consent.selectors import consent_gate_state
from iris_site.audit.selectors import audit_chain_verify
from iris_site.models import AuditEvent
from memory.entities.selectors import recalled_graph
from memory.models import (
    MemoryEntity,
    MemoryEntryEntity,
    RecallRecord,
    ServiceClientCapabilities,
)
from tests.conftest import bearer_client
from tests.consent.factories import opt, record
from tests.iris_site.factories import (
    MemberFactory,
    OperatorFactory,
    ServiceClientFactory,
    TenantFactory,
)
from tests.memory.factories import consenting_member, remember
from tests.trust.test_concurrency import race

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _recall(client, member_id, **body):
    payload = {"surface": "shell", "scope": {"kind": "profile"}, "query": "coffee", **body}
    return client.post(f"/api/v1/members/{member_id}/recall/", payload, format="json")


def _writes() -> tuple[int, int]:
    return RecallRecord.objects.count(), AuditEvent.objects.count()


def _is_404_envelope(response) -> None:
    assert response.status_code == 404, (response.status_code, response.content)
    body = response.json()
    assert "error" in body, body
    assert "coffee" not in response.content.decode()


# 1. The recall's member/tenant 404 -------------------------------------------------------


def test_recall_404_for_anyone_not_an_active_member_of_the_tenant_named_writes_nothing():
    ours, theirs = TenantFactory(), TenantFactory()
    member = consenting_member(tenants=[ours])
    remember(member, subject="coffee")
    stranger = consenting_member(tenants=[theirs])
    remember(stranger, subject="coffee")
    inactive = consenting_member(tenants=[ours])
    remember(inactive, subject="coffee")
    inactive.is_active = False
    inactive.save(update_fields=["is_active"])
    operator = OperatorFactory()
    other_client = ServiceClientFactory(consumer="assistant")
    client = bearer_client(ServiceClientFactory(consumer="notebook"))  # reads tenant memory
    before = _writes()
    attempts = [
        (stranger.pk, {"tenant_id": str(ours.pk)}),  # a member, not of the tenant named
        (stranger.pk, {"scope": {"kind": "tenant", "tenant_id": str(ours.pk)}}),
        (member.pk, {"tenant_id": str(theirs.pk)}),
        (member.pk, {"scope": {"kind": "tenant", "tenant_id": str(theirs.pk)}}),
        (member.pk, {"tenant_id": str(uuid.uuid4())}),
        (operator.pk, {}),
        (other_client.pk, {}),
        (inactive.pk, {}),
        (uuid.uuid4(), {}),
    ]
    for member_id, body in attempts:
        _is_404_envelope(_recall(client, member_id, **body))
    # a malformed id and another spelling of a real one: no route, the same 404
    for raw in ("not-a-uuid", str(member.pk).upper(), str(member.pk).replace("-", "")):
        assert client.post(f"/api/v1/members/{raw}/recall/", {}, format="json").status_code == 404
    assert _writes() == before
    # and the real member of the tenant named is answered
    ok = _recall(client, member.pk, tenant_id=str(ours.pk))
    assert ok.status_code == 200, ok.content


def test_recall_403_and_400_are_the_same_whether_or_not_the_member_exists():
    member = consenting_member()
    narrowed = ServiceClientFactory(consumer="assistant")
    ServiceClientCapabilities.objects.create(
        service_client=narrowed, surfaces=["assistant"], reason="assistant only"
    )
    client = bearer_client(narrowed)
    for member_id in (member.pk, uuid.uuid4(), OperatorFactory().pk):
        assert _recall(client, member_id).status_code == 403  # the shell surface
        bad = _recall(client, member_id, scope={"kind": "nonsense"})
        assert bad.status_code == 400
    member_client = bearer_client(MemberFactory())
    for member_id in (member.pk, uuid.uuid4()):
        assert _recall(member_client, member_id).status_code == 403
    assert not RecallRecord.objects.exists()


# 2. Capabilities load with the token ------------------------------------------------------


def test_a_narrowing_made_or_changed_by_an_operator_applies_on_the_next_request():
    member = consenting_member()
    remember(member, subject="coffee")
    surface = ServiceClientFactory(consumer="assistant")
    client = bearer_client(surface)  # one token, reused across requests
    assert _recall(client, member.pk).status_code == 200
    narrowing = ServiceClientCapabilities.objects.create(
        service_client=surface, surfaces=["assistant"], reason="assistant only"
    )
    assert _recall(client, member.pk).status_code == 403
    narrowing.surfaces = ["assistant", "shell"]
    narrowing.save()
    assert _recall(client, member.pk).status_code == 200
    narrowing.contexts = ["general"]
    narrowing.save()
    assert _recall(client, member.pk, context="health").status_code == 403
    narrowing.delete()
    assert _recall(client, member.pk, context="health").status_code == 200


# 3. The audit append as one statement ----------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_concurrent_recalls_of_one_member_never_fork_or_fail_the_chain():
    member = consenting_member()
    remember(member, subject="coffee")
    tokens = [bearer_client(ServiceClientFactory(consumer="assistant")) for _ in range(8)]
    results, errors = race(
        [
            lambda client=client: [_recall(client, member.pk).status_code for _ in range(3)]
            for client in tokens
        ]
    )
    statuses = [status for result in results for status in result]
    assert not errors, errors
    assert statuses == [200] * 24
    chain = list(
        AuditEvent.objects.filter(target_member_id=member.pk)
        .order_by("chain_sequence")
        .values_list("chain_sequence", flat=True)
    )
    assert chain == list(range(1, len(chain) + 1))
    assert RecallRecord.objects.filter(member_id=member.pk).count() == 24
    assert audit_chain_verify().valid


# 4. The consent + opt-out UNION -----------------------------------------------------------


def test_another_members_opt_outs_never_reach_a_members_gate_state():
    member, other = consenting_member(), consenting_member()
    opt(other, "memory")
    opt(other, "embodied")
    record(other, "category:medical")
    active, opt_outs = consent_gate_state(member_id=member.pk)
    assert opt_outs == frozenset()
    assert "category:medical" not in active.types
    opt(member, "embodied")
    opt(member, "embodied", opted_out=False)
    assert consent_gate_state(member_id=member.pk)[1] == frozenset()
    assert consent_gate_state(member_id=other.pk)[1] == frozenset({"memory", "embodied"})


# 5. The entity graph's raw UNION ----------------------------------------------------------


def test_the_graph_never_shows_another_members_entity_even_through_a_corrupt_link():
    member, other = consenting_member(), consenting_member()
    entry = remember(member, subject="coffee").entry
    now = timezone.now()
    foreign = MemoryEntity.objects.create(
        member=other,
        kind="person",
        digest="d" * 64,
        label="Someone Else",
        created_at=now,
        state_changed_at=now,
    )
    # a link row of the member's pointing at another member's entity (corrupt data):
    # the graph of the member's recall must not name it
    MemoryEntryEntity.objects.create(
        member_id=member.pk, entry=entry, entity=foreign, created_at=now
    )
    graph = recalled_graph(member_id=member.pk, entry_ids=[str(entry.pk)])
    assert foreign.pk not in {e.id for e in graph.entities}
    assert str(foreign.pk) not in str(graph.as_output())
