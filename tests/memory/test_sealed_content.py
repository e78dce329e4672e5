"""Memory's content columns hold only sealed values (issue 45): what the database stores
is an `iris1:` token, every read opens it, search and dedupe still find the member's
words, and nothing writes plain text past the sealing."""

import pytest
from django.core.exceptions import FieldError
from django.db import connection, transaction
from django.utils import timezone

from iris_site.crypto import encrypt
from iris_site.keys.envelope import is_sealed, open_sealed
from memory.entities.derive import entity_label
from memory.entities.selectors import recalled_graph
from memory.models import (
    ConversationTurn,
    MemoryEntity,
    MemoryEntry,
    MemoryRelationship,
    MemoryRevision,
    RecallRecord,
    conflict_token,
)
from memory.policy.conflicts import conflict_key
from memory.selectors import memory_entry_list, memory_session_occurrences
from tests.memory.factories import consenting_member, member_turn, remember, stored

pytestmark = pytest.mark.django_db

MARK = "Zorbulax"  # a word no test text holds by chance


def sister(member):
    return remember(
        member,
        category="relationship",
        subject=f"{MARK} job",
        body=f"Sam works at the {MARK} bakery",
        multi_actor={"actor_name": "Samwise Example", "relationship_note": f"my {MARK} sister"},
    ).entry


def test_every_content_column_is_stored_sealed_and_reads_back():
    member = consenting_member()
    entry = sister(member)
    for field in ("body", "subject", "relationship_note"):
        raw = stored(entry, field)
        assert is_sealed(raw) and MARK not in raw, field
    # the conflict key is the member's keyed token of the plain key, never its words
    raw_key = stored(entry, "conflict_key")
    assert "::" not in raw_key and MARK.casefold() not in raw_key.casefold()
    assert raw_key == conflict_token(
        member.pk,
        conflict_key(
            category="relationship", actor_handle=entry.actor_handle, subject=entry.subject
        ),
    )
    revision = MemoryRevision.objects.get(entry=entry, number=1)
    assert is_sealed(stored(revision, "content"))
    person = MemoryEntity.objects.get(member=member, kind="person")
    assert is_sealed(stored(person, "label"))
    relationship = MemoryRelationship.objects.get(member=member, type="sister")
    assert is_sealed(stored(relationship, "note"))
    turn = ConversationTurn.objects.get(pk=member_turn(member, text=f"I said {MARK} myself"))
    assert is_sealed(stored(turn, "text"))

    # every read opens them: instances, values_list, raw reads through the field
    fresh = MemoryEntry.objects.get(pk=entry.pk)
    assert (fresh.subject, fresh.body, fresh.relationship_note) == (
        f"{MARK} job",
        f"Sam works at the {MARK} bakery",
        f"my {MARK} sister",
    )
    assert MemoryEntry.objects.filter(pk=entry.pk).values_list("body", flat=True).get() == (
        fresh.body
    )
    assert revision.content["body"] == fresh.body
    assert entity_label(person) == "Samwise Example"
    assert ConversationTurn.objects.get(pk=turn.pk).text == f"I said {MARK} myself"
    field = MemoryEntry._meta.get_field("body")
    assert open_sealed(stored(entry, "body"), field.seal_context) == fresh.body
    # the recalled graph (raw SQL) opens the relationship's note
    graph = recalled_graph(member_id=member.pk, entry_ids=[str(entry.pk)])
    assert [r.note for r in graph.relationships if r.type == "sister"] == [f"my {MARK} sister"]


def test_a_recall_record_keeps_its_rationales_sealed():
    member = consenting_member()
    record = RecallRecord.objects.create(
        member=member,
        surface="notebook",
        consumer="notebook",
        scope_key="profile",
        context="default",
        rationales={"e1": f"matched '{MARK}'"},
        created_at=timezone.now(),
    )
    assert is_sealed(stored(record, "rationales"))
    assert RecallRecord.objects.get(pk=record.pk).rationales == {"e1": f"matched '{MARK}'"}


def test_search_finds_the_members_words_in_any_case_and_only_theirs():
    member, other = consenting_member(), consenting_member()
    coffee = remember(member, subject="Coffee", body="I take my coffee black").entry
    remember(member, subject="walks", body="I walk every morning")
    remember(other, subject="coffee", body="I take my coffee with milk")
    found = memory_entry_list(member_id=member.pk, filters={"q": "COFFEE"})
    assert list(found) == [coffee]
    by_body = memory_entry_list(
        member_id=member.pk, filters={"q": "black", "category": "preference"}
    )
    assert list(by_body) == [coffee]
    assert not memory_entry_list(member_id=member.pk, filters={"q": "milk"}).exists()


def test_session_dedupe_compares_opened_bodies_and_keyed_conflict_keys():
    member = consenting_member()
    session = {"kind": "session", "session_id": "s-1"}
    remember(member, scope=session, body="I like rain")
    # Another conversation: in the same one it would be a restatement, stored once.
    remember(member, scope={**session, "session_id": "s-2"}, body="i like RAIN")
    remember(member, scope=session, subject="tea", body="Green tea")
    count = memory_session_occurrences(
        member_id=member.pk,
        category="preference",
        conflict_key=conflict_key(category="preference", actor_handle="", subject=None),
        body="I LIKE RAIN",
    )
    assert count == 2
    by_key = memory_session_occurrences(
        member_id=member.pk,
        category="preference",
        conflict_key=conflict_key(category="preference", actor_handle="", subject=" Tea"),
        body="whatever",
    )
    assert by_key == 1


def test_plain_text_never_reaches_a_sealed_column_and_no_lookup_reads_one():
    member = consenting_member()
    entry = remember(member, subject="coffee", body="I take my coffee black").entry
    entries = MemoryEntry.objects.filter(pk=entry.pk)
    refusals = [
        (ValueError, "sealed", lambda: entries.update(body="plain text")),
        (ValueError, "keyed tokens", lambda: entries.update(conflict_key="preference::::coffee")),
        (
            ValueError,
            "sealed",
            lambda: MemoryEntry.objects.bulk_update(
                [MemoryEntry(pk=entry.pk, body="plain")], ["body"]
            ),
        ),
        (FieldError, "sealed", lambda: list(MemoryEntry.objects.filter(body__icontains="c"))),
        (ValueError, "sealed", lambda: list(MemoryEntry.objects.filter(subject="coffee"))),
        (
            ValueError,
            "keyed tokens",
            lambda: list(MemoryEntry.objects.filter(conflict_key="preference::::coffee")),
        ),
    ]
    for error, message, attempt in refusals:
        with pytest.raises(error, match=message), transaction.atomic():
            attempt()
    assert is_sealed(stored(entry, "body"))


def test_values_written_before_sealing_still_read():
    member = consenting_member()
    entry = sister(member)
    person = MemoryEntity.objects.get(member=member, kind="person")
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {quote(MemoryEntry._meta.db_table)} SET {quote('body')} = %s"
            f" WHERE {quote('id')} = %s",
            ["legacy plain body", MemoryEntry._meta.pk.get_db_prep_value(entry.pk, connection)],
        )
        cursor.execute(
            f"UPDATE {quote(MemoryEntity._meta.db_table)} SET {quote('label')} = %s"
            f" WHERE {quote('id')} = %s",
            [
                encrypt("Legacy Name"),
                MemoryEntity._meta.pk.get_db_prep_value(person.pk, connection),
            ],
        )
    assert MemoryEntry.objects.get(pk=entry.pk).body == "legacy plain body"
    # a label of before: a Fernet token under the application key
    assert entity_label(MemoryEntity.objects.get(pk=person.pk)) == "Legacy Name"
