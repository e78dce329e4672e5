"""Neighbour context computed by the write path (`memory.recall.context`), and the
sharded, per-stem corpus statistics the write path keeps."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from iris_site.audit.events import Actor
from iris_site.keys.envelope import member_token
from memory.forgetting.services import memory_tombstone
from memory.models import MemoryContextAnchor, MemoryCorpusShard, MemoryEntry, MemoryStem
from memory.recall.context import session_date
from memory.recall.rankers import NEIGHBOUR_WINDOW, TermStats, corpus_stats_for, term_stats_for
from memory.recall.store import CORPUS_SHARDS, corpus_stats_get, term_stats_keyed
from memory.services import memory_edit
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, member_turn, quoting, remember

pytestmark = pytest.mark.django_db


def said(member, text: str, session_id: str = "s-1"):
    """A turn the member spoke, and the memory a surface writes quoting it."""
    turn = member_turn(member, text, session_id=session_id)
    entry = remember(
        member,
        actor=Actor.of(ServiceClientFactory(consumer="assistant")),
        body=text,
        category="fact",
        provenance=quoting(turn),
        session_id=session_id,
    ).entry
    return turn, entry


def when(entry):
    """The session date the write path tags an entry with (its cited turn's time)."""
    return session_date(entry.provenance_chain)


def stats(entry) -> TermStats:
    entry.refresh_from_db()
    return TermStats.from_json(entry.term_stats)


def keyed(member, expected: TermStats) -> TermStats:
    """Statistics as the write path stores them: stems named by the member's tokens."""
    return term_stats_keyed(member.pk, [expected])[0]


def assert_corpus_matches(member):
    """The stored counters equal the corpus folded from every unforgotten entry."""
    live = MemoryEntry.objects.filter(member=member).exclude(lifecycle="tombstoned")
    expected = corpus_stats_for(TermStats.from_json(e.term_stats) for e in live)
    assert corpus_stats_get(member_id=member.pk) == expected


def test_a_turns_memory_is_indexed_with_its_neighbouring_turns_as_they_arrive():
    # given a conversation of five turns, each remembered as it is said
    member = consenting_member()
    # (speaker labels, as transcripts carry them: a refresh keeps the entry's own)
    texts = [
        "Ana: coffee at dawn",
        "Ben: my sister Ana",
        "Ana: we hiked Sintra",
        "Ben: rain all day",
        "Ana: pasta night",
    ]
    entries = [said(member, text)[1] for text in texts]
    # then each entry's context is the turns within the window on both sides
    for index, entry in enumerate(entries):
        lo, hi = max(0, index - NEIGHBOUR_WINDOW), index + NEIGHBOUR_WINDOW + 1
        neighbours = [t for j, t in enumerate(texts[lo:hi], start=lo) if j != index]
        assert stats(entry) == keyed(
            member, term_stats_for(texts[index], neighbours=neighbours, when=when(entry))
        )
    assert MemoryContextAnchor.objects.filter(member_id=member.pk).count() == len(texts)
    assert_corpus_matches(member)


def test_forgetting_a_turns_memory_drops_its_stems_from_the_neighbours_context():
    # given
    member = consenting_member()
    _, first = said(member, "coffee at dawn")
    _, middle = said(member, "zanzibar holiday plans")
    _, last = said(member, "pasta night")
    zanzibar = member_token(member.pk, "zanzibar")
    assert zanzibar in stats(first).context_terms
    # when the middle memory is forgotten (its turn is erased with it)
    memory_tombstone(entry=middle, actor=Actor.of(member))
    # then no neighbour keeps its stems, and the vocabulary forgot them
    assert zanzibar not in stats(first).context_terms
    assert zanzibar not in stats(last).context_terms
    assert stats(first) == keyed(
        member, term_stats_for("coffee at dawn", neighbours=["pasta night"], when=when(first))
    )
    assert not MemoryStem.objects.filter(member=member, key=zanzibar).exists()
    assert not MemoryContextAnchor.objects.filter(entry_id=middle.pk).exists()
    assert_corpus_matches(member)


def test_an_edit_restates_the_body_and_keeps_the_context():
    # given
    member = consenting_member()
    _, first = said(member, "coffee at dawn")
    said(member, "pasta night")
    # when
    memory_edit(entry=first, actor=Actor.of(member), body="green tea at dawn")
    # then
    assert stats(first) == keyed(
        member,
        term_stats_for("green tea at dawn", neighbours=["pasta night"], when=when(first)),
    )
    # the turn still says "coffee": its neighbour's context keeps it, no entry states it
    coffee = member_token(member.pk, "coffe")
    assert MemoryStem.objects.get(member=member, key=coffee).document_frequency == 0
    assert_corpus_matches(member)


def test_turns_of_another_session_are_not_context():
    member = consenting_member()
    _, first = said(member, "coffee at dawn", session_id="s-1")
    said(member, "pasta night", session_id="s-2")
    assert when(first) is not None
    assert stats(first) == keyed(member, term_stats_for("coffee at dawn", when=when(first)))


def test_the_counters_are_spread_over_shards_and_no_row_takes_every_write():
    # given many writes
    member = consenting_member()
    for index in range(40):
        remember(member, body=f"note {index} about coffee", subject=f"s{index}")
    # then the document count is split over several shard rows, summed at read
    shards = list(MemoryCorpusShard.objects.filter(member=member))
    assert 1 < len(shards) <= CORPUS_SHARDS
    assert max(s.document_count for s in shards) < 40
    assert corpus_stats_get(member_id=member.pk).document_count == 40
    coffee = member_token(member.pk, "coffe")
    assert MemoryStem.objects.get(member=member, key=coffee).document_frequency == 40
    assert_corpus_matches(member)


def test_a_turn_re_indexes_its_neighbours_in_as_many_statements_for_one_as_for_several():
    # given two conversations: one memory before the next turn, and two (the window)
    member = consenting_member()
    said(member, "Ana: coffee at dawn", session_id="one")
    for text in ("Ana: coffee at dawn", "Ben: my sister Ana"):
        said(member, text, session_id="two")

    def statements(session_id: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            member_turn(member, "Ana: pasta night", session_id=session_id)
        return len(captured.captured_queries)

    # when the next turn arrives in each, then both re-index their neighbours...
    one, two = statements("one"), statements("two")
    # ...with the same statements: the batch grows in rows, not in round trips
    assert one == two
    assert_corpus_matches(member)
