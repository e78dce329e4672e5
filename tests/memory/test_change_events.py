"""Issue 44's core: the surfaces that received a memory — and only they — learn that it
was forgotten, corrected, covered by a withdrawn consent, about a forgotten person, or
erased with the member, from their change feed, over real HTTP. Ids and times only."""

import json

import pytest
from django.utils import timezone
from iris_client import Iris, change_pages
from iris_client.api.recall import recall
from iris_client.models import RecallRequest
from iris_client.types import UNSET

from iris_site.audit.events import Actor
from memory.entities.services import entity_retire
from memory.enums import EntityKind, ScopeKind
from memory.forgetting.services import memory_tombstone
from memory.models import ChangeEvent, MemoryEntity, RecallRecord
from memory.sweeps.retention import retention_sweep
from tests.conftest import http_request
from tests.consent.factories import record
from tests.datarights.factories import HARD_DELETE, process, submit
from tests.memory.factories import consenting_member, remember
from tests.memory.test_full_clear import service, token_of

pytestmark = pytest.mark.django_db(transaction=True)

COFFEE = "I take my coffee black"
PENICILLIN = "Allergic to penicillin since childhood"


class Surfaces:
    """The assistant surfaces as an integrator writes them: the Python client."""

    def __init__(self, live_server, member) -> None:
        self.base = live_server.url
        self.member = member
        self.tokens = {name: service(name) for name in ("assistant", "shell", "tara")}
        self.clients = {
            name: Iris(base_url=self.base, token=token) for name, token in self.tokens.items()
        }
        self.cursors: dict[str, str | None] = dict.fromkeys(self.tokens)

    def recall(self, consumer: str, query: str, context: str = "general") -> list[str]:
        body = RecallRequest.from_dict(
            {"surface": consumer, "scope": {"kind": "profile"}, "query": query, "context": context}
        )
        answer = recall.sync(self.member.pk, client=self.clients[consumer], body=body)
        return [str(e.id) for e in answer.entries]

    def feed(self, consumer: str) -> list[dict]:
        """The events since this surface's last read."""
        after = self.cursors[consumer] or UNSET
        [*read, end] = change_pages(self.clients[consumer], after=after)
        self.cursors[consumer] = end.next_
        return [event.to_dict() for page in read for event in page.events]


def only(events: list[dict], type_: str) -> dict:
    [event] = events
    assert event["type"] == type_, event
    return event


def test_a_forgotten_memory_is_told_to_the_surfaces_that_received_it_and_no_other(live_server):
    member = consenting_member()
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    kept = remember(member, subject="tea", body="Green tea after lunch").entry
    surfaces = Surfaces(live_server, member)
    assert str(coffee.pk) in surfaces.recall("assistant", "coffee")
    assert str(coffee.pk) in surfaces.recall("shell", "coffee black")
    # tara is given nothing of it (it never recalls)
    me = token_of(member)
    forgot = http_request(
        f"{live_server.url}/api/v1/me/memories/{coffee.pk}/forget/", method="POST", token=me
    )
    assert forgot.status == 200, forgot.body
    for consumer in ("assistant", "shell"):
        event = only(surfaces.feed(consumer), "memory.forgotten")
        assert event["entry_ids"] == [str(coffee.pk)] and event["member_id"] == str(member.pk)
        assert event["revision_ids"]  # the revisions it was given, by id
        assert COFFEE not in json.dumps(event) and "coffee" not in json.dumps(event)
    assert surfaces.feed("tara") == []  # never given it: never told of it
    assert surfaces.feed("assistant") == []  # the cursor moved on
    assert str(kept.pk) not in json.dumps(list(ChangeEvent.objects.values("entry_ids")))


def test_a_correction_a_withdrawn_consent_a_forgotten_person_and_an_erasure(live_server):
    member = consenting_member("category:medical")
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    allergy = remember(member, category="medical", subject="allergy", body=PENICILLIN).entry
    surfaces = Surfaces(live_server, member)
    surfaces.recall("shell", "coffee")  # before the sister is mentioned: never given her
    remember(
        member,
        category="relationship",
        body="My sister Quorvex7 lives by the harbour",
        multi_actor={"actor_name": "Quorvex7", "relationship_note": "sister"},
    )
    assert str(allergy.pk) in surfaces.recall("assistant", "coffee penicillin", "health")
    surfaces.recall("assistant", "harbour sister")
    me = token_of(member)

    # the member corrects the coffee fact: both recipients refresh
    edited = http_request(
        f"{live_server.url}/api/v1/me/memories/{coffee.pk}/",
        method="PATCH",
        token=me,
        body={"body": "I take my coffee with oat milk"},
    )
    assert edited.status == 200, edited.body
    for consumer in ("assistant", "shell"):
        assert only(surfaces.feed(consumer), "memory.corrected")["entry_ids"] == [str(coffee.pk)]

    # the medical consent ends: named only to the surface given medical memory
    record(member, "category:medical", kind="withdrawal")
    withdrawn = surfaces.feed("assistant")
    assert {e["type"] for e in withdrawn} >= {"consent.withdrawn"}
    told = [e for e in withdrawn if e["type"] == "consent.withdrawn"]
    assert told[0]["consent_type"] == "category:medical"
    assert told[0]["entry_ids"] == [str(allergy.pk)]
    assert "category:medical" not in json.dumps(surfaces.feed("shell"))

    # the person is forgotten: the surface given memory about them is told
    person = MemoryEntity.objects.get(member=member, kind=EntityKind.PERSON)
    entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    event = only(surfaces.feed("assistant"), "person.forgotten")
    assert event["entity_ids"] == [str(person.pk)] and "Quorvex" not in json.dumps(event)
    assert surfaces.feed("shell") == []

    # a data-rights hard delete of everything: every surface ever given memory is told
    every_scope = {**HARD_DELETE, "scopes": list(ScopeKind.values)}
    request = process(submit(member, "delete", every_scope))
    assert request.status == "completed", request.progress
    for consumer in ("assistant", "shell"):
        assert "member.erased" in {e["type"] for e in surfaces.feed(consumer)}
    assert surfaces.feed("tara") == []
    # who was given what goes with the member (the events keep ids and times only)
    assert not RecallRecord.objects.filter(member=member).exists()


def test_the_feed_is_the_callers_own(live_server):
    member = consenting_member()
    surfaces = Surfaces(live_server, member)
    assert surfaces.feed("assistant") == []
    theirs = surfaces.cursors["assistant"]
    url = f"{live_server.url}/api/v1/events/"
    for bad in (theirs, "not-a-cursor"):
        refused = http_request(f"{url}?after={bad}", token=surfaces.tokens["shell"])
        assert refused.status == 400 and "after" in refused.body["error"]["fields"]
    assert http_request(f"{url}?limit=0", token=surfaces.tokens["shell"]).status == 400
    assert http_request(url, token=token_of(member)).status == 403
    assert http_request(url).status == 401
    ack = http_request(
        f"{url}ack/", method="POST", token=surfaces.tokens["shell"], body={"cursor": theirs}
    )
    assert ack.status == 400, ack.body


def test_acknowledging_marks_what_the_surface_applied(live_server):
    member = consenting_member()
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    surfaces = Surfaces(live_server, member)
    surfaces.recall("assistant", "coffee")
    http_request(
        f"{live_server.url}/api/v1/me/memories/{coffee.pk}/forget/",
        method="POST",
        token=token_of(member),
    )
    assert only(surfaces.feed("assistant"), "memory.forgotten")
    url = f"{live_server.url}/api/v1/events/ack/"
    body = {"cursor": surfaces.cursors["assistant"]}
    first = http_request(url, method="POST", token=surfaces.tokens["assistant"], body=body)
    assert first.status == 200 and first.body == {"acknowledged_count": 1}
    again = http_request(url, method="POST", token=surfaces.tokens["assistant"], body=body)
    assert again.body == {"acknowledged_count": 0}
    assert ChangeEvent.objects.get(consumer="assistant").acknowledged_at is not None


def test_a_surface_given_a_memory_through_short_term_memory_is_told_too(live_server):
    member = consenting_member()
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    surfaces = Surfaces(live_server, member)
    members = f"{live_server.url}/api/v1/members/{member.pk}/"
    note = http_request(
        members + "short-term/",
        method="POST",
        token=surfaces.tokens["assistant"],
        body={
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": "Remember: black, no sugar",
            "related_entry_ids": [str(coffee.pk)],
        },
    )
    assert note.status == 201, note.body
    # tara reads the row (never recalls): it was given what the row points at
    read = http_request(members + "short-term/?scope_id=s-1", token=surfaces.tokens["tara"])
    assert read.status == 200 and read.body["results"], read.body
    forgot = http_request(
        f"{live_server.url}/api/v1/me/memories/{coffee.pk}/forget/",
        method="POST",
        token=token_of(member),
    )
    assert forgot.status == 200, forgot.body
    assert only(surfaces.feed("tara"), "memory.forgotten")["entry_ids"] == [str(coffee.pk)]
    assert surfaces.feed("shell") == []


def test_a_recall_racing_an_erasure_is_told_by_the_next_sweep(live_server):
    """A recall that read an entry just before an erasure committed records it after the
    erasure scrubbed the records (recall takes no member lock): the sweep tells that
    surface and scrubs the record, once."""
    member = consenting_member()
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    memory_tombstone(entry=coffee, actor=Actor.of(member))
    now = timezone.now()
    # what the racing recall committed after the erasure
    RecallRecord.objects.create(
        member=member,
        surface="tara",
        consumer="tara",
        scope_key="",
        context="general",
        returned_ids=[str(coffee.pk)],
        created_at=now,
    )
    assert retention_sweep(now=now).recipients_told_late == 1
    surfaces = Surfaces(live_server, member)
    assert only(surfaces.feed("tara"), "memory.forgotten")["entry_ids"] == [str(coffee.pk)]
    assert RecallRecord.objects.get(member=member).returned_ids == []
    assert retention_sweep(now=now).recipients_told_late == 0  # told once
