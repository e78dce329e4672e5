"""Issue 41, "forget everything about this person", over real HTTP.

It used to leave the person: a short-term note naming them and an untagged session memory
("Met … at the harbour") were still served by recall and the context bundle, the turn
mentioning them stayed in the log and the export, a surface wrote "… is back in town"
with the name as subject (201) and a new person appeared, and `Quorvex7.`, `Quorvex 7`
and a Cyrillic look-alike each created a new person.

Now one normalisation decides what is the same name (`memory.policy.names`), the person
extent erases everything that mentions any of their names in every store, and every write
path refuses to bring them back unless the member introduces them again.
"""

import json

import pytest

from datarights.export import artifact_path, read_member
from hierarchy.models import ShortTermMemory
from memory.enums import EntityKind
from memory.models import ConversationTurn, MemoryEntity, MemoryEntry, RetiredName
from tests.datarights.factories import EXPORT, process, submit
from tests.datarights.test_erasure_extents import Http
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db(transaction=True)

NAME = "Quorvex7"
# Spelling variants no reader tells apart: punctuation, spacing, case, a Cyrillic o.
VARIANTS = ("Quorvex7.", "Quorvex 7", "QUORVEX 7", "Qu\u043ervex7")


class Person(Http):
    def remember(self, body: str, *, name: str | None = None, subject: str = "", **scope):
        payload = {
            "scope": scope or {"kind": "session", "session_id": "s-1"},
            "category": "relationship",
            "body": body,
            "origin": "model-inferred",
        }
        if subject:
            payload["subject"] = subject
        if name is not None:
            payload["multi_actor"] = {"actor_name": name, "relationship_note": "old friend"}
        return self.members("memories/", body=payload)

    def people(self) -> list[dict]:
        response = self.call("/api/v1/me/entities/?kind=person", self.me)
        assert response.status == 200, response.body
        return response.body

    def recalled(self, session: str = "s-1") -> list[str]:
        response = self.members(
            "recall/",
            body={
                "surface": "assistant",
                "scope": {"kind": "session", "session_id": session},
                "query": "harbour boat town Quorvex",
            },
        )
        assert response.status == 200, response.body
        return [e["body"] for e in response.body["entries"]]


def exported(member) -> str:
    export = process(submit(member, "export", EXPORT))
    assert export.status == "completed", export.progress
    return read_member(artifact_path(export)).decode()


def refused(response) -> bool:
    return response.status == 422 and response.body["error"]["code"] == "actor-retired"


def mentions(text: str) -> bool:
    return "quorvex" in text.casefold() or "qu\u043ervex" in text.casefold()


def test_spelling_variants_of_a_name_are_one_person(live_server):
    member = consenting_member()
    http = Person(live_server, member)
    for i, name in enumerate((NAME, *VARIANTS)):
        assert http.remember(f"Went sailing, trip {i}", name=name).status == 201
    people = MemoryEntity.objects.filter(member=member, kind=EntityKind.PERSON)
    assert people.count() == 1
    assert len(set(MemoryEntry.objects.filter(member=member).values_list("actor_handle"))) == 1


def test_forgetting_a_person_leaves_nothing_that_mentions_them_and_they_do_not_return(
    live_server,
):
    # given: a tagged memory, an untagged one naming them, a turn, a short-term note
    member = consenting_member()
    http = Person(live_server, member)
    tagged = http.remember("Lent me the blue kayak", name=NAME)
    assert tagged.status == 201, tagged.body
    assert http.remember("Met Quorvex 7 at the harbour").status == 201
    assert http.remember("Prefers window seats on trains").status == 201  # not about them
    http.turn("s-1", "I told Quorvex7 about the boat yesterday")
    http.turn("s-1", "The weather was lovely")
    http.short_term("user_session", "s-1", "Call QUORVEX 7 about the boat")
    assert any(mentions(b) for b in http.recalled())
    [person] = [p for p in http.people() if p["state"] == "active"]

    # when: the member forgets everything about them
    response = http.call(f"/api/v1/me/entities/{person['id']}/retire/", http.me, "POST")
    assert response.status == 200, response.body

    # then: no store serves or keeps a mention
    assert not any(mentions(b) for b in http.recalled())
    assert "Prefers window seats on trains" in http.recalled()
    listed, _ = http.listed("s-1")
    assert not any(mentions(c) for c in listed)
    bundled, _ = http.bundled("s-1")
    assert not any(mentions(c) for c in bundled)
    assert [t.text for t in ConversationTurn.objects.filter(member=member)] == [
        "The weather was lovely"
    ]
    assert not ShortTermMemory.objects.filter(member=member).exists()
    assert not any(
        mentions(b)
        for b in MemoryEntry.objects.filter(member=member).values_list("body", flat=True)
    )
    assert not mentions(exported(member))
    # the names are kept as keyed digests only
    assert RetiredName.objects.filter(member=member).exists()
    digests = json.dumps(list(RetiredName.objects.values_list("name_digest", flat=True)))
    assert not mentions(digests)

    # and: no surface brings them back, by subject, tag, body or short-term note
    for variant in (NAME, *VARIANTS):
        back = http.remember(f"{variant} is back in town", subject=variant)
        assert refused(back), back.body
        tagged_again = http.remember("Borrowed the kayak again", name=variant)
        assert refused(tagged_again), tagged_again.body
    note = http.members(
        "short-term/",
        body={
            "scope_kind": "user_session",
            "scope_id": "s-2",
            "category": "preference",
            "content": "Quorvex 7 called",
        },
    )
    assert refused(note), note.body
    assert [p for p in http.people() if p["state"] == "active"] == []
    # a turn naming them is logged without the name, however it is spelled
    http.turn("s-2", "Quorvex 7. said hi, and so did Sam")
    [logged] = ConversationTurn.objects.filter(member=member, session_id="s-2")
    assert logged.text == "[someone you asked Iris to forget]. said hi, and so did Sam"
    assert "forgotten-person" in logged.redacted_kinds

    # but: the member introducing them again themselves is heard
    again = http.call(
        "/api/v1/me/memories/",
        http.me,
        "POST",
        {"scope": {"kind": "profile"}, "category": "relationship", "body": "Quorvex7 is back"},
    )
    assert again.status == 201, again.body
    assert http.remember("Quorvex7 brought cake").status == 201


def test_forgetting_a_person_keeps_other_members_mentions(live_server):
    member, bystander = consenting_member(), consenting_member()
    http, other = Person(live_server, member), Person(live_server, bystander)
    assert http.remember("Lent me the kayak", name=NAME).status == 201
    assert other.remember("Met Quorvex7 at the harbour", name=NAME).status == 201
    other.turn("s-1", "Quorvex7 says hello")
    [person] = http.people()
    assert http.call(f"/api/v1/me/entities/{person['id']}/retire/", http.me, "POST").status == 200
    assert other.remember("Quorvex7 is back in town").status == 201
    assert ConversationTurn.objects.filter(member=bystander).count() == 1
    # and another member's person is not this member's to forget: 404
    [theirs] = other.people()
    assert http.call(f"/api/v1/me/entities/{theirs['id']}/retire/", http.me, "POST").status == 404
