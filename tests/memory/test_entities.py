"""Entities and relationships of long-term memory (`memory.entities.services`): derived from
ordinary remembers, validity intervals closed by supersession, recall as of a time,
retirement through the erasure service, decay, and the member's API."""

import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from hierarchy.bundle import get_context_bundle
from iris_site.audit.events import Actor
from iris_site.errors import NotFound, PolicyRefusal
from iris_site.models import AuditEvent
from memory.access.capabilities import capabilities_for
from memory.entities.derive import entity_label
from memory.entities.selectors import entity_detail, member_entities, recalled_graph
from memory.entities.services import entity_retire, person_forget
from memory.forgetting.erasure import memory_erasure_residue
from memory.models import MemoryEntity, MemoryEntry, MemoryEntryEntity, MemoryRelationship
from memory.recall.service import recall_request_build, recall_run
from memory.selectors import principal_capabilities
from memory.sweeps.retention import memory_decay_due
from tests.conftest import bearer_client
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import (
    INFERENCE_JOB,
    assert_no_audit_mentions,
    consenting_member,
    memory_audit,
    memory_settings,
    remember,
    stored,
)
from tests.stepup import step_up_client
from tests.trust.test_forget_completeness import schema_hits

pytestmark = pytest.mark.django_db

T1 = timezone.now() - timedelta(days=60)
T2 = T1 + timedelta(days=30)
NAME = "Samwise Example"


def sam(member, *, now=None, body="Sam works at the bakery", note="my sister", **fields):
    return remember(
        member,
        category="relationship",
        subject=fields.pop("subject", "job"),
        body=body,
        multi_actor={"actor_name": NAME, "relationship_note": note},
        now=now,
        **fields,
    )


def entity_of(member, kind) -> MemoryEntity:
    return MemoryEntity.objects.get(member=member, kind=kind)


def recall(member, **kw):
    request = recall_request_build(
        member_id=member.pk,
        capabilities=capabilities_for("notebook"),
        surface="notebook",
        scope={"kind": "profile"},
        query=kw.pop("query", ""),
    )
    return recall_run(request=request, actor=Actor.system("test-surface"), **kw)


def returned_bodies(result) -> list[str]:
    return [e.body for e in result.entries]


# --- Derivation ---------------------------------------------------------------------------------


def test_an_ordinary_remember_links_the_person_the_subject_and_relationships():
    member = consenting_member()
    entry = sam(member).entry
    person, subject, me = (entity_of(member, k) for k in ("person", "subject", "self"))
    assert {link.entity_id for link in MemoryEntryEntity.objects.filter(entry=entry)} == {
        person.pk,
        subject.pk,
    }
    # the person's label is the name the write gave, sealed at rest; never a digest input
    assert entity_label(person) == NAME and NAME not in stored(person, "label")
    assert stored(person, "label").startswith("iris1:")
    assert entity_label(subject) == "job"
    rels = {(r.from_entity_id, r.to_entity_id): r for r in MemoryRelationship.objects.all()}
    sister = rels[(me.pk, person.pk)]
    assert (sister.type, sister.note, sister.valid_to) == ("sister", "my sister", None)
    assert rels[(person.pk, subject.pk)].type == "about"
    assert sister.valid_from == entry.created_at and sister.source_entry_id == entry.pk
    # a fact about no one else is about the member themself
    own = remember(member, body="I take my coffee black", subject="coffee").entry
    assert me.pk in set(
        MemoryEntryEntity.objects.filter(entry=own).values_list("entity_id", flat=True)
    )
    # the same person again is the same entity; entities never cross members
    sam(member, subject="birthday", body="Sam's birthday is in May")
    assert MemoryEntity.objects.filter(member=member, kind="person").count() == 1
    other = consenting_member()
    sam(other)
    assert entity_of(other, "person").digest != person.digest


def test_superseding_a_fact_closes_its_relationships_interval():
    member = consenting_member()
    old = sam(member, now=T1).entry
    new = sam(member, now=T2, body="Sam now works at the library", note="my colleague").entry
    old.refresh_from_db()
    assert old.lifecycle == "superseded"
    closed = MemoryRelationship.objects.get(source_entry=old, type="sister")
    assert (closed.valid_from, closed.valid_to, closed.end_learned_at) == (T1, T2, T2)
    # Sam and the job still go together: the new fact restates that period, not a second
    about = MemoryRelationship.objects.filter(type="about")
    assert {(r.valid_from, r.valid_to) for r in about} == {(T1, None)}
    assert len({r.period_id for r in about}) == 1
    current = MemoryRelationship.objects.get(source_entry=new, type="colleague")
    assert (current.valid_from, current.valid_to) == (T2, None)
    # nothing was deleted: the history says when each held
    detail = entity_detail(member, entity_of(member, "person").pk)
    assert [(r.type, r.valid_to) for r in detail.relationships if r.type != "about"] == [
        ("sister", T2),
        ("colleague", None),
    ]


def test_recall_as_of_a_time_returns_what_held_then():
    member = consenting_member()
    sam(member, now=T1)
    sam(member, now=T2, body="Sam now works at the library", note="my colleague")
    then = recall(member, as_of=T1 + timedelta(days=1))
    assert returned_bodies(then) == ["Sam works at the bakery"]
    graph = recalled_graph(
        member_id=member.pk, entry_ids=then.audit_envelope.returned_ids, as_of=T1 + timedelta(1)
    )
    assert {r.type for r in graph.relationships} == {"sister", "about"}
    now = recall(member, as_of=T2 + timedelta(days=1))
    assert returned_bodies(now) == ["Sam now works at the library"]
    assert returned_bodies(recall(member)) == ["Sam now works at the library"]
    # before anything was said, nothing held
    assert returned_bodies(recall(member, as_of=T1 - timedelta(days=1))) == []


def test_recall_narrowed_to_one_entity_and_never_to_anothers():
    member = consenting_member()
    sam(member)
    remember(member, body="I take my coffee black", subject="coffee")
    person = entity_of(member, "person")
    result = recall(member, entity_id=person.pk)
    assert returned_bodies(result) == ["Sam works at the bakery"]
    other = consenting_member()
    sam(other)
    with pytest.raises(NotFound):
        recall(member, entity_id=entity_of(other, "person").pk)


# --- Retirement ---------------------------------------------------------------------------------


def test_retiring_a_person_erases_every_trace_and_a_later_mention_does_not_bring_them_back():
    member = consenting_member()
    marker = "zqvbakery4411k7"
    first = sam(member, body=f"Sam bakes {marker} bread", note=f"my sister, {marker} baker").entry
    sam(member, subject="birthday", body="Sam's birthday is in May")
    kept = remember(member, body="I take my coffee black", subject="coffee").entry
    person = entity_of(member, "person")
    handle = first.actor_handle
    # when
    result = entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    # then
    assert (result.outcome, result.erased_count) == ("retired", 2)
    person.refresh_from_db()
    assert (person.state, person.label) == ("retired", "")
    assert set(
        MemoryEntry.objects.filter(actor_handle=handle).values_list("lifecycle", flat=True)
    ) == {"tombstoned"}
    assert not MemoryRelationship.objects.filter(member=member).exclude(source_entry=kept).exists()
    assert not MemoryEntryEntity.objects.filter(entity=person).exists()
    texts = [f"Sam bakes {marker} bread", f"my sister, {marker} baker", "Sam's birthday is in May"]
    assert (
        memory_erasure_residue(
            member_id=member.pk, entry_ids=[str(first.pk)], texts=[*texts, NAME], purge=False
        )
        == {}
    )
    assert schema_hits(marker) == []
    assert_no_audit_mentions(NAME, "sister", marker, "birthday")
    # a later mention by a surface or job is refused, and the person stays retired
    with pytest.raises(PolicyRefusal) as refused:
        sam(member, body="Sam called again", origin="model-inferred", actor=INFERENCE_JOB)
    assert refused.value.code == "actor-retired"
    person.refresh_from_db()
    assert person.state == "retired"
    assert person.pk not in {e.id for e in member_entities(member)}
    with pytest.raises(NotFound):
        entity_detail(member, person.pk)
    # the member introducing them again brings them back
    sam(member, body="Sam is back in my life")
    person.refresh_from_db()
    assert person.state == "active" and entity_label(person) == NAME


def test_retiring_is_idempotent_refuses_the_member_themself_and_never_reaches_another_member():
    member = consenting_member()
    sam(member)
    remember(member, body="I take my coffee black", subject="coffee")
    person = entity_of(member, "person")
    entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    again = entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    assert (again.outcome, again.erased_count) == ("already-retired", 0)
    with pytest.raises(Exception) as caught:
        entity_retire(member=member, entity_id=entity_of(member, "self").pk, actor=Actor.of(member))
    assert caught.value.code == "entity-self"
    other = consenting_member()
    with pytest.raises(NotFound):
        entity_retire(member=other, entity_id=person.pk, actor=Actor.of(other))


def test_forgetting_every_mention_by_handle_retires_the_person_entity_too():
    member = consenting_member()
    entry = sam(member).entry
    person_forget(member=member, actor_handle=entry.actor_handle, actor=Actor.of(member))
    assert entity_of(member, "person").state == "retired"


# --- Decay --------------------------------------------------------------------------------------


def test_decay_at_anonymises_entries_and_archives_relationships_on_time():
    member = consenting_member()
    session = remember(
        member,
        scope={"kind": "session", "session_id": "s-9"},
        body="We talked about the bakery opening",
        subject="bakery",
    ).entry
    # session memory: the envelope's raw retention (30 days) after its last assertion
    assert session.decay_at == session.updated_at + timedelta(days=30)
    # the member's auto-forget choice for the profile sets it too
    memory_settings(member, auto_forget_months={"profile": 3})
    entry = sam(member).entry
    assert entry.decay_at == entry.updated_at + timedelta(days=91)
    rel = MemoryRelationship.objects.filter(source_entry=entry).first()
    assert rel.decay_at == entry.decay_at
    # not yet
    assert memory_decay_due(now=session.decay_at - timedelta(seconds=1))["entries_anonymized"] == 0
    # on time
    counts = memory_decay_due(now=session.decay_at + timedelta(seconds=1))
    session.refresh_from_db()
    assert counts["entries_anonymized"] == 1
    assert (session.lifecycle, session.body) == ("tombstoned", "(forgotten)")
    # a relationship whose time comes first is archived in place, its interval closed
    MemoryRelationship.objects.filter(pk=rel.pk).update(decay_at=rel.valid_from + timedelta(1))
    memory_decay_due(now=rel.valid_from + timedelta(days=2))
    rel.refresh_from_db()
    assert (rel.state, rel.valid_to) == ("archived", rel.valid_from + timedelta(1))
    # the member lengthening their choice later moves the time on: nothing goes early
    memory_settings(member, auto_forget_months={"profile": 12})
    memory_decay_due(now=entry.decay_at + timedelta(seconds=1))
    entry.refresh_from_db()
    assert entry.lifecycle == "active"
    assert entry.decay_at == entry.updated_at + timedelta(days=365)
    [event] = AuditEvent.objects.filter(action="memory.retention.decayed").order_by("sequence")[:1]
    assert set(event.payload) == {
        "entries_anonymized",
        "relationships_archived",
        "entities_archived",
        "member_count",
    }


def test_an_entity_nothing_live_is_about_is_archived_and_audited():
    member = consenting_member()
    entry = remember(member, body="I take my coffee black", subject="coffee").entry
    remember(member, body="I switched to tea", subject="coffee")
    entry.refresh_from_db()
    assert entry.lifecycle == "superseded"
    subject = entity_of(member, "subject")
    memory_decay_due(now=timezone.now())
    subject.refresh_from_db()
    assert subject.state == "active"  # the new fact is about it
    MemoryEntry.objects.filter(member=member).update(lifecycle="superseded")
    memory_decay_due(now=timezone.now())
    subject.refresh_from_db()
    assert subject.state == "archived"
    audits = memory_audit(member, "memory.entity.archived")
    [audit] = [a for a in audits if a.payload["entity_id"] == str(subject.pk)]
    assert (audit.payload["entry_count"], audit.payload["open_relationship_count"]) == (2, 0)


# --- Audit: ids and counts only -----------------------------------------------------------------


def test_every_entity_event_carries_ids_and_counts_only():
    member = consenting_member()
    sam(member)
    person = entity_of(member, "person")
    entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    actions = {
        "memory.entity.create": {"entity_id", "kind"},
        "memory.entity.state_transition": {
            "entity_id",
            "kind",
            "from_state",
            "to_state",
            "reason",
        },
        "memory.entity.retire_attempted": {"entity_id", "kind", "from_state", "outcome"},
    }
    for action, keys in actions.items():
        events = memory_audit(member, action)
        assert events, action
        for event in events:
            assert set(event.payload) == keys, action
    [attempt] = memory_audit(member, "memory.entity.retire_attempted")
    assert attempt.payload["outcome"] == "retired"
    dumped = json.dumps([e.payload for e in memory_audit(member)])
    assert NAME not in dumped and "sister" not in dumped and "job" not in dumped


# --- The member's API ---------------------------------------------------------------------------

ENTITIES = "/api/v1/me/entities/"


def test_the_member_lists_reads_and_retires_an_entity_over_the_api():
    member = consenting_member()
    sam(member)
    client = step_up_client(member)
    listed = client.get(ENTITIES).json()
    people = [e for e in listed if e["kind"] == "person"]
    assert [(p["label"], p["entry_count"]) for p in people] == [(NAME, 1)]
    pid = people[0]["id"]
    detail = client.get(f"{ENTITIES}{pid}/").json()
    assert [e["body"] for e in detail["entries"]] == ["Sam works at the bakery"]
    assert {r["type"] for r in detail["relationships"]} == {"sister", "about"}
    assert detail["history"][0]["action"] == "memory.entity.create"
    bad = client.get(f"{ENTITIES}?kind=galaxy")
    assert bad.status_code == 400 and "kind" in bad.json()["error"]["fields"]
    # another member's entity is 404, to read and to retire
    other = step_up_client(consenting_member())
    assert other.get(f"{ENTITIES}{pid}/").status_code == 404
    assert other.post(f"{ENTITIES}{pid}/retire/").status_code == 404
    # retire, with an idempotency key: the retry replays the first answer
    headers = {"HTTP_IDEMPOTENCY_KEY": "retire-sam-0001"}
    first = client.post(f"{ENTITIES}{pid}/retire/", **headers)
    assert first.status_code == 200
    assert first.json() == {"id": pid, "outcome": "retired", "erased_count": 1}
    replay = client.post(f"{ENTITIES}{pid}/retire/", **headers)
    assert replay.status_code == 200 and replay.json() == first.json()
    assert len(memory_audit(member, "memory.entity.retire_attempted")) == 1
    assert client.get(f"{ENTITIES}{pid}/").status_code == 404
    assert pid not in {e["id"] for e in client.get(ENTITIES).json()}


def test_recall_over_the_api_filters_by_entity_and_returns_freshness_and_the_graph():
    member = consenting_member()
    sam(member)
    remember(member, body="I take my coffee black", subject="coffee")
    person = entity_of(member, "person")
    client = bearer_client(ServiceClientFactory(consumer="assistant"))
    url = f"/api/v1/members/{member.pk}/recall/"
    body = {"surface": "assistant", "scope": {"kind": "profile"}, "entity": str(person.pk)}
    answer = client.post(url, body, format="json")
    assert answer.status_code == 200
    data = answer.json()
    [entry] = data["entries"]
    assert entry["body"] == "Sam works at the bakery"
    assert 0.99 <= entry["freshness"] <= 1.0
    assert str(person.pk) in entry["entity_ids"]
    assert {e["kind"] for e in data["entities"]} == {"person", "subject", "self"}
    assert all(set(e) == {"id", "kind", "state"} for e in data["entities"])  # never a name
    assert {r["type"] for r in data["relationships"]} == {"sister", "about"}
    # the plain recall carries freshness too
    plain = client.post(url, {"surface": "assistant", "scope": {"kind": "profile"}}, format="json")
    assert all("freshness" in e for e in plain.json()["entries"])
    # another member's (or a retired) entity is 404
    other = consenting_member()
    sam(other)
    foreign = {**body, "entity": str(entity_of(other, "person").pk)}
    assert client.post(url, foreign, format="json").status_code == 404
    entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    assert client.post(url, body, format="json").status_code == 404
    bad = client.post(url, {**body, "as_of": "yesterday"}, format="json")
    assert bad.status_code == 400 and "as_of" in bad.json()["error"]["fields"]


def test_the_context_bundle_takes_an_entity_and_a_time():
    cache.clear()
    member = consenting_member()
    sam(member, now=T1)
    sam(member, now=T2, body="Sam now works at the library", note="my colleague")
    remember(member, body="I take my coffee black", subject="coffee")
    client = ServiceClientFactory(consumer="assistant")
    person = entity_of(member, "person")

    def bundle(**kw):
        return get_context_bundle(
            member=member,
            scope_id="s-1",
            actor=Actor.of(client),
            capabilities=principal_capabilities(client),
            **kw,
        )["ltm"]

    ltm = bundle(entity=str(person.pk))
    assert [e["body"] for e in ltm["entries"]] == ["Sam now works at the library"]
    assert str(person.pk) in ltm["entries"][0]["entity_ids"]
    assert {r["type"] for r in ltm["relationships"]} == {"colleague", "about"}
    then = bundle(entity=str(person.pk), as_of=T1 + timedelta(days=1))
    assert [e["body"] for e in then["entries"]] == ["Sam works at the bakery"]
    assert {r["type"] for r in then["relationships"]} == {"sister", "about"}
    entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    with pytest.raises(NotFound):
        bundle(entity=str(person.pk))
    cache.clear()


def _graph_reference(member, entry_ids, as_of):
    """The graph as the ORM reads it, each part on its own: what the one statement of
    `recalled_graph` must answer."""
    ids = [str(i) for i in entry_ids]
    links = (
        MemoryEntryEntity.objects.filter(member_id=member.pk, entry_id__in=ids)
        .exclude(entity__state="retired")
        .values_list("entry_id", "entity_id")
    )
    rels = MemoryRelationship.objects.filter(member=member, source_entry_id__in=ids).exclude(
        from_entity__state="retired"
    )
    rels = rels.exclude(to_entity__state="retired")
    if as_of is None:
        rels = rels.filter(valid_to=None)
    else:
        rels = rels.filter(valid_from__lte=as_of).exclude(valid_to__lte=as_of)
    entity_ids = {e for _, e in links} | {
        end for r in rels for end in (r.from_entity_id, r.to_entity_id)
    }
    entry_entities: dict[str, set[str]] = {}
    for entry_id, entity_id in links:
        entry_entities.setdefault(str(entry_id), set()).add(str(entity_id))
    return (
        [
            (e.pk, e.kind, e.state)
            for e in MemoryEntity.objects.filter(pk__in=entity_ids).order_by(
                "kind", "created_at", "id"
            )
        ],
        [
            (r.pk, r.type, r.note, r.valid_from, r.valid_to)
            for r in rels.order_by("valid_from", "id")
        ],
        entry_entities,
    )


@pytest.mark.parametrize("when", ["now", "then", "before"])
@pytest.mark.parametrize("retire", [False, True])
def test_the_recalled_graph_is_one_statement_that_says_what_the_orm_says(when, retire):
    # given a member whose facts about Sam changed, another person, and another member
    member, other = consenting_member(), consenting_member()
    first = sam(member, now=T1).entry
    second = sam(member, now=T2, body="Sam now works at the library", note="my colleague").entry
    third = remember(
        member,
        category="relationship",
        subject="friend",
        body="Robin lends me books",
        multi_actor={"actor_name": "Robin Example", "relationship_note": "my friend"},
    ).entry
    sam(other, now=T1)
    if retire:
        robin = MemoryEntryEntity.objects.filter(entry=third).values_list("entity_id", flat=True)
        MemoryEntity.objects.filter(pk__in=list(robin), kind="person").update(
            state="retired", label=""
        )
    as_of = {"now": None, "then": T1 + timedelta(days=1), "before": T1 - timedelta(days=1)}[when]
    entry_ids = [str(first.pk), str(second.pk), str(third.pk)]
    # when the graph of those entries is read
    with CaptureQueriesContext(connection) as captured:
        graph = recalled_graph(member_id=member.pk, entry_ids=entry_ids, as_of=as_of)
    # then in one statement, exactly the ORM's answer
    assert len(captured.captured_queries) == 1
    entities, relationships, entry_entities = _graph_reference(member, entry_ids, as_of)
    assert [(e.id, e.kind, e.state) for e in graph.entities] == entities
    assert [
        (r.id, r.type, r.note, r.valid_from, r.valid_to) for r in graph.relationships
    ] == relationships
    assert {k: set(v) for k, v in graph.entry_entities.items()} == entry_entities
    assert relationships or when == "before"  # the case is not empty
