"""Nothing comes back by itself. Once the member has Iris forget a fact, no surface,
consolidation or compaction re-creates it, and once they have it forget every mention of
a person, nothing tags that person again — until the member says so themselves. Over
real HTTP where a surface or the member acts; the jobs are called as the worker does."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from hierarchy.models import ShortTermMemory
from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.entities.services import person_forget
from memory.enums import Lifecycle, ScopeKind
from memory.forgetting.fingerprints import (
    fingerprint_refusal,
    fingerprints_erase_member,
    fingerprints_record,
)
from memory.forgetting.services import (
    memory_clear_purge_due,
    memory_clear_request,
    memory_tombstone,
)
from memory.models import ForgottenFact, MemoryEntry, RetiredName
from memory.sweeps.compaction import conversation_turns_compact, memory_entries_compact
from tests.conftest import http_request
from tests.datarights.factories import HARD_DELETE, process, submit
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember
from tests.stepup import step_up_token

FACT = "Allergic to penicillin since childhood"
ME = "/api/v1/me/memories/"
live = pytest.mark.django_db(transaction=True)


class World:
    """A member and one surface, each with a bearer token, against the live server."""

    def __init__(self, live_server, *consents: str):
        self.url = live_server.url
        self.member = consenting_member(*consents)
        self.member_token = step_up_token(self.member)
        _, self.surface_token = token_issue(owner=ServiceClientFactory(consumer="assistant"))

    def as_member(self, path: str, body=None, method: str = "POST"):
        return http_request(self.url + path, method=method, token=self.member_token, body=body)

    def as_surface(self, path: str, body=None, method: str = "POST"):
        return http_request(self.url + path, method=method, token=self.surface_token, body=body)

    def surface_remembers(self, **fields):
        body = {
            "scope": {"kind": "session", "session_id": "s-1"},
            "category": "preference",
            "subject": "medicine",
            "body": FACT,
            "origin": "model-inferred",
            **fields,
        }
        return self.as_surface(f"/api/v1/members/{self.member.pk}/memories/", body)

    def member_states(self, **fields):
        body = {"scope": {"kind": "profile"}, "category": "preference", "body": FACT, **fields}
        return self.as_member(ME, body)

    def member_forgets(self, entry_id):
        response = self.as_member(f"{ME}{entry_id}/forget/")
        assert response.status == 200, response.body
        return response


def entry_count(member) -> int:
    return MemoryEntry.objects.filter(member=member).count()


def active_bodies(member) -> list[str]:
    return list(
        MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.ACTIVE).values_list(
            "body", flat=True
        )
    )


@live
def test_a_surface_cannot_write_a_forgotten_fact_again_only_the_member_can(live_server):
    # given: the member stated a fact, then had Iris forget it
    world = World(live_server)
    stated = world.member_states(subject="medicine")
    assert stated.status == 201, stated.body
    world.member_forgets(stated.body["id"])
    assert ForgottenFact.objects.filter(member=world.member).exists()
    before = entry_count(world.member)
    # when: a surface writes it again, the same words or the same words dressed otherwise
    variants = [
        world.surface_remembers(),
        world.surface_remembers(
            subject="history", body="ALLERGIC to penicillin,  since childhood!"
        ),
        world.surface_remembers(subject="Medicine ", body="Takes no antibiotics at all"),
    ]
    # then: each is refused with the code, and nothing is stored
    for refused in variants:
        assert refused.status == 422, refused.body
        assert refused.body["error"]["code"] == "forgotten-fact"
    assert entry_count(world.member) == before
    assert FACT.casefold() not in " ".join(active_bodies(world.member)).casefold()
    # when: the member states it again through their own API
    restated = world.member_states(subject="medicine")
    # then: it is kept, its fingerprint is gone, and a surface may repeat it
    assert restated.status == 201, restated.body
    assert MemoryEntry.objects.get(pk=restated.body["id"]).lifecycle == Lifecycle.ACTIVE
    assert not ForgottenFact.objects.filter(member=world.member).exists()
    [event] = AuditEvent.objects.filter(action="memory.forgotten.restated")
    assert event.payload == {"fingerprints_cleared": 1, "handles_reinstated": 0}
    assert world.surface_remembers().status in (200, 201)


@live
def test_a_short_term_write_and_a_consolidation_cannot_bring_it_back(live_server):
    # given: a row of working memory carrying the fact in other punctuation, written
    # before the member forgot it
    world = World(live_server)
    short_term = f"/api/v1/members/{world.member.pk}/short-term/"
    row = {"scope_kind": "user_session", "scope_id": "s-1", "category": "preference"}
    carried = world.as_surface(
        short_term, {**row, "content": "Allergic, to penicillin: since childhood"}
    )
    assert carried.status == 201, carried.body
    stated = world.member_states()
    world.member_forgets(stated.body["id"])
    # The erasure's residue search folds case and spacing, not punctuation, so this row
    # outlives the forget; the fingerprint, which ignores punctuation too, still knows it.
    assert ShortTermMemory.objects.filter(pk=carried.body["id"]).exists()
    before = entry_count(world.member)
    # when
    written = world.as_surface(short_term, {**row, "content": FACT.upper()})
    consolidated = world.as_surface(
        f"/api/v1/members/{world.member.pk}/short-term/{carried.body['id']}/consolidate/", {}
    )
    # then: neither stores anything, and the refusal is on the chain with its reason
    assert written.status == 422 and written.body["error"]["code"] == "forgotten-fact"
    assert list(
        ShortTermMemory.objects.filter(member=world.member).values_list("pk", flat=True)
    ) == [uuid.UUID(carried.body["id"])]
    assert consolidated.status == 422, consolidated.body
    assert consolidated.body["error"]["code"] == "forgotten-fact"
    assert ShortTermMemory.objects.get(pk=carried.body["id"]).consolidated_to is None
    [refusal] = AuditEvent.objects.filter(action="hierarchy.stm.consolidation_refused")
    assert refusal.payload["reason"] == "forgotten-fact"
    assert entry_count(world.member) == before


@live
def test_compacting_turns_writes_the_summary_without_the_forgotten_fact(live_server):
    # given: the member forgot the fact; the conversation later mentions it among others
    world = World(live_server)
    stated = world.member_states()
    world.member_forgets(stated.body["id"])
    turns = f"/api/v1/members/{world.member.pk}/sessions/s-9/turns/"
    for text in (
        "We planned the trip to Lisbon in spring.",
        f"Remember I am {FACT.lower()}!",
        "The Lisbon trip needs a hotel near the tram.",
    ):
        assert world.as_surface(turns, {"speaker": "member", "text": text}).status == 201
    # when: the retention job compacts them
    result = conversation_turns_compact(
        member_id=world.member.pk, session_id="s-9", now=timezone.now() + timedelta(days=31)
    )
    # then: a summary of the rest, without the forgotten fact
    assert result.outcome == "summarized", result
    assert "Lisbon" in result.summary.body
    assert "penicillin" not in result.summary.body.casefold()
    assert all("penicillin" not in body.casefold() for body in active_bodies(world.member))


@pytest.mark.django_db
def test_a_summary_that_would_be_only_the_forgotten_fact_is_not_written():
    # given: the fact stands in session memory; a profile copy of it is then forgotten
    member = consenting_member()
    surface = ServiceClientFactory(consumer="assistant")
    session = {"kind": "session", "session_id": "s-2"}
    raw = remember(
        member,
        actor=Actor.of(surface),
        consumer="assistant",
        scope=session,
        subject="health note",
        body=FACT,
        origin="model-inferred",
    ).entry
    copy = remember(member, body=FACT.upper(), subject="penicillin")
    fingerprints_record(member_id=member.pk, entries=[copy.entry])
    # when: compaction folds the session memory after its raw retention
    result = memory_entries_compact(
        member_id=member.pk,
        scope_key=raw.scope_key,
        category=raw.category,
        actor_handle="",
        now=timezone.now() + timedelta(days=31),
    )
    # then: nothing else was worth keeping, so there is no summary; the raw entry retires
    assert result.summary is None and result.outcome == "nothing-to-summarize"
    raw.refresh_from_db()
    assert raw.lifecycle == Lifecycle.TOMBSTONED


@live
def test_withdrawing_multi_actor_sensitive_forgets_every_sensitive_interaction(live_server):
    # given: sensitive interactions with two people, in two categories, and a plain mention
    world = World(live_server, "multi-actor-sensitive")
    sensitive = [
        world.member_states(
            category=category,
            subject=f"talk {n}",
            body=f"A hard conversation {n}",
            multi_actor={"actor_name": name, "sensitive_interaction": True},
        )
        for n, (category, name) in enumerate([("relationship", "Anna"), ("preference", "Ben")])
    ]
    plain = world.member_states(
        category="relationship",
        subject="visit",
        body="Anna visits",
        multi_actor={"actor_name": "Anna"},
    )
    assert all(r.status == 201 for r in [*sensitive, plain]), [r.body for r in sensitive]
    # when: the member withdraws the consent
    withdrawn = world.as_member(
        "/api/v1/me/consents/events/",
        {
            "consent_type": "multi-actor-sensitive",
            "kind": "withdrawal",
            "legal_basis": "consent",
            "capture_method": "settings-toggle",
            "terms_version": "2026-11",
        },
    )
    # then: none of the sensitive interactions is active; the plain mention stays
    assert withdrawn.status == 201, withdrawn.body
    lifecycles = dict(
        MemoryEntry.objects.filter(member=world.member).values_list("pk", "lifecycle")
    )
    assert {lifecycles[_id(r)] for r in sensitive} == {Lifecycle.TOMBSTONED}
    assert lifecycles[_id(plain)] == Lifecycle.ACTIVE
    assert not MemoryEntry.objects.filter(
        member=world.member, sensitive_interaction=True, lifecycle=Lifecycle.ACTIVE
    ).exists()
    [event] = AuditEvent.objects.filter(action="memory.sensitive_interactions.forgotten")
    assert event.payload["tombstoned_count"] == 2


def _id(response):
    return uuid.UUID(response.body["id"])


@live
def test_a_write_tagging_a_retired_person_is_refused_until_the_member_reintroduces_them(
    live_server,
):
    # given: the member had Iris forget every mention of Anna
    world = World(live_server)
    mention = world.member_states(
        category="relationship",
        subject="anna",
        body="Anna visits",
        multi_actor={"actor_name": "Anna"},
    )
    handle = mention.body["multi_actor"]["actor_handle"]
    assert world.as_member(f"/api/v1/me/actors/{handle}/forget/").status == 200
    # the handle is kept as a keyed digest, never in the clear
    assert RetiredName.objects.filter(member=world.member).exists()
    assert not RetiredName.objects.filter(name_digest__icontains=handle).exists()
    before = entry_count(world.member)
    # when: a surface mentions her again, by name or by the handle it got back earlier
    by_name = world.surface_remembers(
        category="relationship",
        subject="call",
        body="Called today",
        multi_actor={"actor_name": " ANNA "},
    )
    by_handle = world.surface_remembers(
        category="relationship",
        subject="call",
        body="Called today",
        multi_actor={"actor_handle": handle},
    )
    # then
    for refused in (by_name, by_handle):
        assert refused.status == 422, refused.body
        assert refused.body["error"]["code"] == "actor-retired"
    assert entry_count(world.member) == before
    # when: the member introduces her again
    again = world.member_states(
        category="relationship",
        subject="anna",
        body="Anna moved nearby",
        multi_actor={"actor_name": "Anna"},
    )
    # then: the handle is usable again
    assert again.status == 201, again.body
    assert not RetiredName.objects.filter(member=world.member).exists()
    later = world.surface_remembers(
        category="relationship",
        subject="call",
        body="Called today",
        multi_actor={"actor_handle": handle},
    )
    assert later.status == 201, later.body


@pytest.mark.django_db
def test_fingerprints_keep_no_text_and_belong_to_their_member():
    member, other = consenting_member(), consenting_member()
    entry = remember(member, subject="medicine", body=FACT).entry
    assert fingerprints_record(member_id=member.pk, entries=[entry]) == 1
    [row] = ForgottenFact.objects.filter(member=member)
    assert "penicillin" not in f"{row.key_digest}{row.text_digest}".casefold()
    assert row.token_count == 5
    key = entry.conflict_key
    assert fingerprint_refusal(member_id=member.pk, conflict_key=key, text=FACT)
    assert fingerprint_refusal(member_id=other.pk, conflict_key=key, text=FACT) is None
    with pytest.raises(ValueError, match="one member"):
        fingerprints_record(member_id=other.pk, entries=[entry])
    # a data-rights hard delete takes even the digests
    assert fingerprints_erase_member(member_id=member.pk) == 1
    assert fingerprint_refusal(member_id=member.pk, conflict_key=key, text=FACT) is None


def _forgotten_fact_and_person(member):
    """A member who had Iris forget one fact and every mention of one person."""
    actor = Actor.of(member)
    memory_tombstone(entry=remember(member, subject="medicine", body=FACT).entry, actor=actor)
    anna = remember(
        member, category="relationship", body="Anna visits", multi_actor={"actor_name": "Anna"}
    ).entry
    person_forget(member=member, actor_handle=anna.actor_handle, actor=actor)
    assert ForgottenFact.objects.filter(member=member).exists()
    assert RetiredName.objects.filter(member=member).exists()


@pytest.mark.django_db
def test_a_hard_delete_of_every_scope_takes_the_fingerprints_a_narrower_one_does_not(
    settings, tmp_path
):
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")
    # given
    member = consenting_member()
    _forgotten_fact_and_person(member)
    # when: a hard delete of one scope
    narrow = process(submit(member, "delete", HARD_DELETE))
    # then: the fingerprints stay, they are not of that scope's content
    assert narrow.status == "completed", narrow.progress
    assert ForgottenFact.objects.filter(member=member).exists()
    # when: a hard delete of every scope
    wide = process(submit(member, "delete", {**HARD_DELETE, "scopes": ScopeKind.values}))
    # then: even the digests of what the member forgot are gone
    assert wide.status == "completed", wide.progress
    assert not ForgottenFact.objects.filter(member=member).exists()
    assert not RetiredName.objects.filter(member=member).exists()


@pytest.mark.django_db
def test_a_full_clear_takes_the_fingerprints_with_everything_else():
    # given
    member = consenting_member()
    _forgotten_fact_and_person(member)
    # when
    memory_clear_request(member=member, actor=Actor.of(member))
    memory_clear_purge_due(now=timezone.now() + timedelta(days=8))
    # then: the member asked for nothing to be kept, digests included
    assert not MemoryEntry.objects.filter(member=member).exists()
    assert not ForgottenFact.objects.filter(member=member).exists()
    assert not RetiredName.objects.filter(member=member).exists()
