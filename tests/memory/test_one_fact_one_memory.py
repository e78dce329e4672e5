"""One fact, one memory: the same fact written again without an Idempotency-Key is the
memory already stored, and recall never returns one fact twice.

Writing an exact restatement (case, spacing and punctuation aside: `fact_of`) into the
scope that holds it answers `unchanged` with that memory and stores nothing; the member's
own word restating an inference replaces it. A fact the promotion rule takes into the
profile (its third occurrence across conversations) supersedes its session copies, which
still count as occurrences. Recall's dedupe (`memory.recall.pipeline`, shared by REST
recall, the context bundle and MCP, which calls REST) keeps the best-ranked entry of each
fact, for what was stored before any of this too.
"""

import pytest
from django.core.cache import cache
from django.db import transaction
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from hierarchy.bundle import get_context_bundle
from iris_site.audit.events import Actor
from memory.enums import Lifecycle
from memory.models import MemoryEntry
from memory.policy.fingerprints import fact_of
from memory.selectors import principal_capabilities
from memory.services import memory_remember
from tests.conftest import bearer_client
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember, write_request

pytestmark = pytest.mark.django_db

BICYCLE = "Has a red bicycle"
# A few facts, each in spellings that are one fact; and one that only looks alike.
BODIES = [BICYCLE, "has a red  bicycle.", "HAS A RED BICYCLE!", "Has a blue bicycle", "Likes tea"]
SESSIONS = ["s-1", "s-2", "s-3"]


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()
    yield
    cache.clear()


def surface_write(member, client, body, *, session="s-1", kind="profile", **fields):
    """What a surface sends: an inference aimed at the profile (the promotion rule decides
    where it goes) or at its conversation, from conversation `session`."""
    scope = {"kind": "profile"} if kind == "profile" else {"kind": "session", "session_id": session}
    return memory_remember(
        member=member,
        write=write_request(member, scope=scope, body=body, origin="model-inferred", **fields),
        actor=Actor.of(client),
        consumer=client.consumer,
        session_id=session,
    )


def rest_recall(api, member, *, session="s-1", query="bicycle") -> list[dict]:
    response = api.post(
        f"/api/v1/members/{member.pk}/recall/",
        {
            "surface": "assistant",
            "scope": {"kind": "session", "session_id": session},
            "query": query,
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()["entries"]


def bundle_recall(member, client, *, session="s-1", query="bicycle") -> list[dict]:
    cache.clear()
    result = get_context_bundle(
        member=member,
        scope_id=session,
        query=query,
        actor=Actor.of(client),
        capabilities=principal_capabilities(client),
    )
    return result["ltm"]["entries"]


def live(member) -> list[MemoryEntry]:
    return list(
        MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.ACTIVE).order_by("created_at")
    )


def test_the_same_fact_written_three_times_in_one_conversation_is_one_memory():
    # given
    member = consenting_member()
    assistant = ServiceClientFactory(consumer="assistant")
    first = surface_write(member, assistant, BICYCLE, kind="session")
    # when the same fact comes twice more, without an Idempotency-Key
    again = [surface_write(member, assistant, body, kind="session") for body in BODIES[1:3]]
    # then the write path answers with the memory it holds, and stores nothing
    assert first.created
    for result in again:
        assert not result.created and result.unchanged
        assert result.entry.pk == first.entry.pk
        assert result.entry.revision_id == first.entry.revision_id
    assert [e.pk for e in live(member)] == [first.entry.pk]
    [recalled] = rest_recall(bearer_client(assistant), member)
    assert recalled["id"] == str(first.entry.pk)


def test_an_exact_restatement_over_rest_answers_unchanged_with_the_memory_it_holds():
    member = consenting_member()
    api = bearer_client(member)
    body = {"scope": {"kind": "profile"}, "category": "preference", "body": BICYCLE}
    stored = api.post("/api/v1/me/memories/", body, format="json")
    assert stored.status_code == 201, stored.content
    again = api.post("/api/v1/me/memories/", body | {"body": "has a red bicycle"}, format="json")
    assert again.status_code == 200, again.content
    assert again.json()["outcome"] == "unchanged"
    assert again.json()["conflict_rule"] is None
    assert again.json()["entry"]["id"] == stored.json()["id"]
    assert MemoryEntry.objects.filter(member=member).count() == 1


def test_the_third_occurrence_promotes_and_its_session_copies_leave_recall():
    # given: an assistant infers the same fact in three conversations
    member = consenting_member()
    assistant = ServiceClientFactory(consumer="assistant")
    results = [surface_write(member, assistant, BICYCLE, session=s) for s in SESSIONS]
    # then the rule still counts them: the third is promoted
    assert [r.promotion for r in results] == [
        "implicit-promotion-blocked",
        "repeated-occurrence-threshold-not-met",
        "repeated-occurrence-threshold-met",
    ]
    assert [r.stored_as for r in results] == ["session", "session", "profile"]
    # and the profile copy is the one memory of it: the session copies are superseded
    [profile] = live(member)
    assert profile.scope_kind == "profile" and profile.pk == results[2].entry.pk
    superseded = MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.SUPERSEDED)
    assert sorted(e.session_id for e in superseded) == ["s-1", "s-2"]
    for session in SESSIONS:
        assert [
            e["id"] for e in rest_recall(bearer_client(assistant), member, session=session)
        ] == [str(profile.pk)]
        assert [e["id"] for e in bundle_recall(member, assistant, session=session)] == [
            str(profile.pk)
        ]
    # a fourth occurrence is the profile memory, unchanged
    fourth = surface_write(member, assistant, BICYCLE, session="s-4")
    assert fourth.unchanged and fourth.entry.pk == profile.pk


def test_the_members_word_restating_an_inference_replaces_it():
    member = consenting_member()
    assistant = ServiceClientFactory(consumer="assistant")
    inferred = surface_write(member, assistant, BICYCLE, kind="session").entry
    stated = remember(member, scope={"kind": "session", "session_id": "s-1"}, body=BICYCLE)
    assert stated.created and stated.entry.origin == "user-stated"
    inferred.refresh_from_db()
    assert inferred.lifecycle == Lifecycle.SUPERSEDED
    # and an inference restating the member's word changes nothing
    again = surface_write(member, assistant, BICYCLE, kind="session")
    assert again.unchanged and again.entry.pk == stated.entry.pk


def test_one_fact_in_two_scopes_is_recalled_once():
    # given: the profile holds a fact, then a conversation states it again (a session copy
    # is no restatement in its scope: it is stored)
    member = consenting_member()
    assistant = ServiceClientFactory(consumer="assistant")
    remember(member, scope={"kind": "profile"}, body="has a red bicycle")
    remember(member, scope={"kind": "session", "session_id": "s-1"}, body=BICYCLE)
    assert len(live(member)) == 2
    # when / then: every door returns it once
    rest = rest_recall(bearer_client(assistant), member)
    bundled = bundle_recall(member, assistant)
    assert len(rest) == 1 and len(bundled) == 1
    assert rest[0]["id"] == bundled[0]["id"]


WRITES = st.lists(
    st.tuples(
        st.sampled_from(BODIES),
        st.sampled_from(SESSIONS),
        st.sampled_from(["profile", "session"]),  # where the write is aimed
        st.sampled_from(["surface", "member"]),
    ),
    min_size=1,
    max_size=10,
)


def test_no_history_of_writes_makes_recall_return_one_fact_twice():
    member = consenting_member()
    assistant = ServiceClientFactory(consumer="assistant")
    api = bearer_client(assistant)
    seen = {"unchanged": 0, "promoted": 0, "recalled": 0}

    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(writes=WRITES)
    def once(writes):
        note(repr(writes))
        with transaction.atomic():
            for body, session, kind, writer in writes:
                if writer == "surface":
                    result = surface_write(member, assistant, body, session=session, kind=kind)
                    seen["promoted"] += result.stored_as == "profile"
                else:
                    scope = (
                        {"kind": "profile"}
                        if kind == "profile"
                        else {"kind": "session", "session_id": session}
                    )
                    result = remember(member, scope=scope, body=body)
                seen["unchanged"] += result.unchanged
            # the write path: no scope holds one fact twice
            stored = [(e.scope_key, fact_of(e.body)) for e in live(member)]
            assert len(stored) == len(set(stored)), stored
            # recall, at every door, returns each fact once
            for session in SESSIONS:
                for query in ("bicycle", "", "tea"):
                    for entries in (
                        rest_recall(api, member, session=session, query=query),
                        bundle_recall(member, assistant, session=session, query=query),
                    ):
                        facts = [fact_of(e["body"]) for e in entries]
                        assert len(facts) == len(set(facts)), (session, query, facts)
                        seen["recalled"] += len(entries)
            transaction.set_rollback(True)

    once()
    assert all(seen.values()), seen


@pytest.mark.parametrize(
    "first, second",
    [
        # the same words about two people (multi-actor memories) are two facts
        (
            {"category": "relationship", "multi_actor": {"actor_name": "Anna"}},
            {"category": "relationship", "multi_actor": {"actor_name": "Ben"}},
        ),
        # ... about two subjects
        ({"subject": "anna"}, {"subject": "ben"}),
        # ... in two categories
        ({"category": "preference"}, {"category": "relationship"}),
    ],
)
def test_the_same_words_about_two_people_or_in_two_categories_are_both_recalled(first, second):
    """Recall's dedupe compared bodies alone: "Has a red bicycle" said of Anna hid the
    same words said of Ben (and of another subject, another category) from every recall,
    though the write path stores them as two facts (`_restated`: same category, conflict
    key and person). One fact is one fact on both paths."""
    member = consenting_member()
    assistant = ServiceClientFactory(consumer="assistant")
    a = remember(member, scope={"kind": "profile"}, body=BICYCLE, **first)
    b = remember(member, scope={"kind": "profile"}, body="has a red bicycle", **second)
    assert a.created and b.created
    rest = rest_recall(bearer_client(assistant), member)
    bundled = bundle_recall(member, assistant)
    assert {e["id"] for e in rest} == {str(a.entry.pk), str(b.entry.pk)}
    assert {e["id"] for e in bundled} == {str(a.entry.pk), str(b.entry.pk)}


def test_the_same_words_with_a_new_note_on_the_person_are_a_change_not_a_restatement():
    member = consenting_member()
    about_sam = {"actor_name": "Sam", "relationship_note": "my girlfriend"}
    first = remember(member, body="Sam and I go climbing", multi_actor=about_sam)
    again = remember(member, body="Sam and I go climbing", multi_actor=about_sam)
    assert again.outcome == "unchanged" and again.entry.pk == first.entry.pk
    ended = remember(
        member,
        body="Sam and I go climbing",
        multi_actor={**about_sam, "relationship_note": "my ex, we broke up in March"},
    )
    assert ended.outcome != "unchanged"
    [live] = MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.ACTIVE)
    assert live.relationship_note == "my ex, we broke up in March"
