"""Migration 0015 rebuilds the index rows from the entries (vocabulary, shards,
postings, context anchors) and drops the per-member JSON statistics; 0016 gives each
stem its bounds over the postings it holds."""

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


def test_the_index_is_rebuilt_from_the_entries():
    # given the old schema with a member's entries, one citing a stored turn
    apps = _migrate(BEFORE)
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
    apps = _migrate(AFTER)
    # then the entry citing a turn has its neighbours as context, and the counters and
    # postings are those of the unforgotten entries
    from memory.models import MemoryContextAnchor, MemoryEntry, MemoryEntryTerm
    from memory.recall.rankers import TermStats
    from memory.recall_store import corpus_stats_get

    coffee = MemoryEntry.objects.get(pk=uuid.UUID(int=1))
    assert TermStats.from_json(coffee.term_stats) == term_stats_for(
        "coffee at dawn", neighbours=["my sister Ana", "pasta night"]
    )
    live = MemoryEntry.objects.exclude(lifecycle="tombstoned")
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
