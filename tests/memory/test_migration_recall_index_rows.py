"""Migration 0015 rebuilds the index rows from the entries (vocabulary, shards,
postings, context anchors) and drops the per-member JSON statistics; 0016 gives each
stem its bounds over the postings it holds; 0019 keys the postings by (stem, entry).

Each test leaves the schema migrated to the latest state, whatever it asserted on the way:
the tests after it run on that schema."""

import uuid
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memory.recall.rankers import corpus_stats_for, term_stats_for

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("memory", "0014_entities_relationships")]
# Through the stems' bounds (0016), so today's code can read the rebuilt rows.
AFTER = [("memory", "0016_stem_impact_bounds")]
NOW = datetime(2026, 11, 30, tzinfo=UTC)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def migrate():
    yield _migrate
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_the_index_is_rebuilt_from_the_entries(migrate):
    # given the old schema with a member's entries, one citing a stored turn
    apps = migrate(BEFORE)
    User = apps.get_model("iris_site", "User")
    Entry = apps.get_model("memory", "MemoryEntry")
    Turn = apps.get_model("memory", "ConversationTurn")
    member = User.objects.create(email="m@example.test", kind="member")
    turns = [
        Turn.objects.create(
            member=member,
            session_id="s-1",
            sequence=n,
            speaker="member",
            consumer="assistant",
            text=text,
            created_at=NOW,
        )
        for n, text in enumerate(["coffee at dawn", "my sister Ana", "pasta night"], start=1)
    ]
    bodies = {"coffee at dawn": turns[0], "tea after lunch": None, "forgotten": None}
    for index, (body, turn) in enumerate(bodies.items()):
        Entry.objects.create(
            id=uuid.UUID(int=index + 1),
            member=member,
            scope_kind="profile",
            scope_key="profile",
            category="fact",
            body=body,
            origin="user-stated",
            lifecycle="tombstoned" if body == "forgotten" else "active",
            confidence=1.0,
            conflict_key=f"fact::::{index}",
            provenance_chain=[
                {"kind": "session-turn", "ref": str(turn.pk), "captured_at": NOW.isoformat()}
            ]
            if turn
            else [],
            term_stats=term_stats_for(body).to_json(),
            created_at=NOW,
            updated_at=NOW,
        )
    # when
    apps = migrate(AFTER)
    # then the entry citing a turn has its neighbours as context, and the counters and
    # postings are those of the unforgotten entries
    from memory.models import MemoryContextAnchor, MemoryEntry, MemoryEntryTerm
    from memory.recall.rankers import TermStats
    from memory.recall.store import corpus_stats_get

    # Today's model on the schema of then: only the columns that schema has.
    entries = MemoryEntry.objects.only("id", "term_stats", "lifecycle")
    coffee = entries.get(pk=uuid.UUID(int=1))
    assert TermStats.from_json(coffee.term_stats) == term_stats_for(
        "coffee at dawn", neighbours=["my sister Ana", "pasta night"]
    )
    live = entries.exclude(lifecycle="tombstoned")
    assert corpus_stats_get(member_id=member.pk) == corpus_stats_for(
        TermStats.from_json(e.term_stats) for e in live
    )
    stems = {p.stem.key for p in MemoryEntryTerm.objects.filter(entry_id=coffee.pk)}
    assert stems == {"coffe", "dawn", "sister", "ana", "pasta", "night"}
    assert not MemoryEntryTerm.objects.filter(entry_id=uuid.UUID(int=3)).exists()
    assert list(MemoryContextAnchor.objects.values_list("entry_id", "sequence")) == [(coffee.pk, 1)]
    # and every stem bounds its postings exactly (0016)
    from memory.models import MemoryStem

    for stem in MemoryStem.objects.filter(member_id=member.pk):
        held = list(MemoryEntryTerm.objects.filter(stem=stem))
        assert stem.max_own_count == max(p.own_count for p in held)
        assert stem.max_context_count == max(p.context_count for p in held)
        assert stem.min_length == min(p.length for p in held)
        assert stem.min_context_length == min(p.context_length for p in held)


def _postings_key(table: str) -> str:
    """How the postings table's primary key is declared, quotes dropped: PostgreSQL's
    definition of its index, SQLite's clause of the table (introspection lists a key's
    columns in the table's order, not the key's)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT pg_get_indexdef(conindid) FROM pg_constraint"
                " WHERE conrelid = %s::regclass AND contype = 'p'",
                [table],
            )
        else:
            cursor.execute("SELECT sql FROM sqlite_master WHERE name = %s", [table])
        (definition,) = cursor.fetchone()
    return definition.replace('"', "")


def test_postings_are_rekeyed_by_stem_and_back_keeping_every_row(migrate):
    # given postings keyed by (entry, stem)
    apps = migrate([("memory", "0018_conflict_cluster_freshness")])
    User = apps.get_model("iris_site", "User")
    Entry = apps.get_model("memory", "MemoryEntry")
    Stem = apps.get_model("memory", "MemoryStem")
    Term = apps.get_model("memory", "MemoryEntryTerm")
    table = Term._meta.db_table
    member = User.objects.create(email="m@example.test", kind="member")
    entries = [
        Entry.objects.create(
            id=uuid.UUID(int=n),
            member=member,
            scope_kind="profile",
            scope_key="profile",
            category="fact",
            body=f"entry {n}",
            origin="user-stated",
            lifecycle="active",
            confidence=1.0,
            conflict_key=f"fact::::{n}",
            provenance_chain=[],
            term_stats={},
            created_at=NOW,
            updated_at=NOW,
        )
        for n in (1, 2)
    ]
    stems = [Stem.objects.create(member=member, key=key) for key in ("coffe", "dawn")]
    for entry in entries:
        for stem in stems:
            Term.objects.create(entry=entry, stem=stem, own_count=1, length=entry.pk.int + 2)
    rows = set(Term.objects.values_list("stem_id", "entry_id", "own_count", "length"))
    assert "(entry_id, stem_id)" in _postings_key(table)

    # when keyed by stem
    apps = migrate([("memory", "0019_postings_by_stem")])
    # then every row is kept, a stem's postings lead the key, and on PostgreSQL the key's
    # index carries the counts a recall reads
    Term = apps.get_model("memory", "MemoryEntryTerm")
    assert set(Term.objects.values_list("stem_id", "entry_id", "own_count", "length")) == rows
    definition = _postings_key(table)
    assert "(stem_id, entry_id)" in definition
    if connection.vendor == "postgresql":
        assert "INCLUDE (own_count, context_count, length, context_length)" in definition
    # and an entry's postings go with it, through the (entry) index
    Entry.objects.filter(pk=entries[0].pk).delete()
    assert set(Term.objects.values_list("entry_id", flat=True)) == {entries[1].pk}

    # and back: keyed by (entry, stem) again, the rows kept
    apps = migrate([("memory", "0018_conflict_cluster_freshness")])
    Term = apps.get_model("memory", "MemoryEntryTerm")
    assert "(entry_id, stem_id)" in _postings_key(table)
    assert Term.objects.count() == 2
