"""An index that holds no words (issue 45, item 3): the recall index names each stem by
the member's keyed token (`iris_site.keys.envelope.member_tokens`), never by the stem;
recall still finds by words; an entry whose body cannot be opened is never returned; an
index written before keyed tokens is re-keyed in place (`member_index_rekey`)."""

import json
from collections import Counter

import pytest
from django.db import connection

from iris_site.audit.events import Actor
from iris_site.keys import envelope
from iris_site.keys.envelope import member_token
from memory.access.capabilities import capabilities_for
from memory.models import MemoryCorpusShard, MemoryEntry, MemoryEntryTerm, MemoryStem
from memory.recall.rankers import TermStats, analyze, corpus_stats_for, term_stats_for
from memory.recall.service import recall_request_build, recall_run
from memory.recall.store import (
    CORPUS_SHARDS,
    corpus_stats_get,
    member_candidates,
    member_index_rekey,
    term_stats_keyed,
)
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db

BODY = "Levothyroxine refill at the pharmacy, and my therapist said the anxiety eased"


def recall(member, query: str = "", **kw):
    request = recall_request_build(
        member_id=member.pk,
        capabilities=capabilities_for("notebook"),
        surface="notebook",
        scope={"kind": "profile"},
        query=query,
        **kw,
    )
    return recall_run(request=request, actor=Actor.system())


def raw(sql: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def stored_words(stems) -> list[str]:
    """Which of ``stems`` the raw index rows hold: vocabulary keys, the whole-stem
    column, any text of an entry's statistics (keys or values) and the postings."""
    stem_table = MemoryStem._meta.db_table
    has_long = any(f.name == "long_stem" for f in MemoryStem._meta.concrete_fields)
    columns = "key, long_stem" if has_long else "key"
    texts = [" ".join(str(v) for v in row) for row in raw(f"SELECT {columns} FROM {stem_table}")]
    texts += [str(row[0]) for row in raw(f"SELECT term_stats FROM {MemoryEntry._meta.db_table}")]
    keys: set[str] = set()
    for (text,) in raw(f"SELECT term_stats FROM {MemoryEntry._meta.db_table}"):
        data = json.loads(text) if isinstance(text, str) else text
        for part in ("terms", "context_terms", "tags"):
            keys |= set(data.get(part, {}))
    keys |= {row[0] for row in raw(f"SELECT key FROM {stem_table}")}
    blob = "\n".join(texts)
    return sorted(s for s in set(stems) if s in keys or (len(s) >= 5 and s in blob))


def test_after_remember_the_raw_index_holds_no_stem_of_the_body():
    # given
    member = consenting_member()
    # when
    remember(member, body=BODY)
    # then the vocabulary, the postings and the entry's statistics name tokens only
    stems = analyze(BODY)
    assert {"levothyroxin", "pharmaci", "therapist", "anxieti"} <= set(stems)
    assert MemoryEntryTerm.objects.count() >= len(set(stems))
    assert stored_words(stems) == []
    keys = set(MemoryStem.objects.filter(member=member).values_list("key", flat=True))
    assert member_token(member.pk, "levothyroxin") in keys
    assert all(len(key) == envelope.TOKEN_CHARS for key in keys)
    assert TermStats.from_json(MemoryEntry.objects.get(member=member).term_stats).keyed


def test_two_members_tokens_for_the_same_word_differ():
    # given two members who remember the same words
    one, other = consenting_member(), consenting_member()
    remember(one, body=BODY)
    remember(other, body=BODY)
    # then each names the stem by a token of their own
    assert member_token(one.pk, "pharmaci") != member_token(other.pk, "pharmaci")
    assert member_token(one.pk, "pharmaci") == member_token(one.pk, "pharmaci")
    keys = {
        member: set(MemoryStem.objects.filter(member=member).values_list("key", flat=True))
        for member in (one, other)
    }
    assert keys[one] and keys[other] and not keys[one] & keys[other]


def test_recall_still_finds_the_entry_by_its_words_and_names_them_in_its_rationale():
    # given
    member = consenting_member()
    wanted = remember(member, body=BODY).entry
    remember(member, body="Pasta night with the neighbours", subject="pasta")
    # when
    result = recall(member, "what did the pharmacy refill?")
    # then
    assert result.entries[0].entry_id == str(wanted.pk)
    assert result.entries[0].factors.semantic > 0
    assert "'pharmacy'" in result.entries[0].explanation
    assert "'refill'" in result.entries[0].explanation


def test_the_corpus_statistics_and_the_query_are_keyed_alike():
    member = consenting_member()
    remember(member, body=BODY)
    corpus = corpus_stats_get(member_id=member.pk)
    assert corpus.document_count == 1
    assert corpus.document_frequency.get(member_token(member.pk, "pharmaci")) == 1
    assert "pharmaci" not in corpus.document_frequency
    asked = corpus_stats_get(member_id=member.pk, terms=["pharmaci", "zanzibar"])
    assert asked.document_frequency == {member_token(member.pk, "pharmaci"): 1}


def test_an_unreadable_candidate_is_never_returned():
    # given two memories, one of whose stored body was altered (it fails authentication)
    member = consenting_member()
    altered = remember(member, body=BODY).entry
    kept = remember(member, body="The pharmacy opens at nine", subject="hours").entry
    table, column = MemoryEntry._meta.db_table, MemoryEntry._meta.get_field("body").column
    bodies = [row[0] for row in raw(f"SELECT {column} FROM {table}")]
    assert all(envelope.is_sealed(body) for body in bodies)
    forged = "iris1:" + "A" * 60
    MemoryEntry.objects.filter(pk=altered.pk).update(body=forged)
    # when the member recalls by words the altered entry holds, and with no query
    by_words = recall(member, "levothyroxine pharmacy refill")
    by_prior = recall(member)
    # then it is in neither: dropped before the pipeline, never ranked
    for result in (by_words, by_prior):
        ids = [entry.entry_id for entry in result.entries]
        assert str(altered.pk) not in ids
        assert str(kept.pk) in ids
    assert str(altered.pk) not in {c.entry_id for c in member_candidates(member_id=member.pk)}


def test_a_shredded_members_memories_are_never_recalled():
    # given
    member = consenting_member()
    remember(member, body=BODY)
    bodies = [row[0] for row in raw(f"SELECT body FROM {MemoryEntry._meta.db_table}")]
    assert all(envelope.is_sealed(body) for body in bodies)
    # when the member's keys are destroyed
    envelope.shred(member.pk)
    # then nothing of theirs is returned, by words or otherwise
    assert recall(member, "levothyroxine pharmacy").entries == ()
    assert recall(member).entries == ()
    # and the old tokens name nothing any more: a query's tokens are a new key's
    assert member_token(member.pk, "pharmaci") not in set(
        MemoryStem.objects.filter(member=member).values_list("key", flat=True)
    )


def _index_in_clear(member) -> None:
    """The member's index as it was before keyed tokens: statistics, vocabulary and
    postings naming stems in clear (what a database indexed before this change holds)."""
    MemoryEntryTerm.objects.filter(entry__member=member).delete()
    MemoryStem.objects.filter(member=member).delete()
    MemoryCorpusShard.objects.filter(member=member).delete()
    entries = list(MemoryEntry.objects.filter(member=member).exclude(lifecycle="tombstoned"))
    frequency: Counter[str] = Counter()
    shards: dict[int, list[int]] = {}
    plain = {}
    for entry in entries:
        stats = term_stats_for(entry.body)
        plain[entry.pk] = stats
        MemoryEntry.objects.filter(pk=entry.pk).update(term_stats=stats.to_json())
        frequency.update(set(stats.terms))
        shard = shards.setdefault(entry.pk.int % CORPUS_SHARDS, [0, 0, 0])
        shard[0] += 1
        shard[1] += stats.length
        shard[2] += stats.context_length
    stems = set().union(*(s.stems() for s in plain.values()))
    MemoryStem.objects.bulk_create(
        MemoryStem(member=member, key=stem, document_frequency=frequency[stem], max_own_count=9)
        for stem in sorted(stems)
    )
    ids = dict(MemoryStem.objects.filter(member=member).values_list("key", "id"))
    MemoryEntryTerm.objects.bulk_create(
        MemoryEntryTerm(
            entry_id=pk,
            stem_id=ids[stem],
            own_count=stats.terms.get(stem, 0),
            context_count=stats.context_terms.get(stem, 0),
            length=stats.length,
            context_length=stats.context_length,
        )
        for pk, stats in plain.items()
        for stem in sorted(stats.index_terms())
    )
    MemoryCorpusShard.objects.bulk_create(
        MemoryCorpusShard(
            member=member,
            shard=number,
            document_count=count,
            total_length=length,
            total_context_length=context,
        )
        for number, (count, length, context) in shards.items()
    )


def test_an_index_written_before_keyed_tokens_is_rekeyed_in_place_once():
    # given a member whose index names stems in clear, beside another member's
    member, other = consenting_member(), consenting_member()
    wanted = remember(member, body=BODY).entry
    for number in range(6):
        remember(member, body=f"Pasta night number {number} with the neighbours")
    remember(other, body=BODY)
    _index_in_clear(member)
    assert stored_words(["pharmaci"]) == ["pharmaci"]
    # when it is re-keyed, in batches smaller than the member's entries
    assert member_index_rekey(member_id=member.pk, batch_size=3) == 7
    # then no stem is left in clear, the statistics are the entries' own, by token
    assert stored_words(analyze(BODY) + analyze("pasta night neighbours")) == []
    live = MemoryEntry.objects.filter(member=member)
    expected = corpus_stats_for(TermStats.from_json(e.term_stats) for e in live)
    assert corpus_stats_get(member_id=member.pk) == expected
    assert expected.document_frequency[member_token(member.pk, "pasta")] == 6
    keyed = term_stats_keyed(member.pk, [term_stats_for(BODY)])[0]
    assert TermStats.from_json(MemoryEntry.objects.get(pk=wanted.pk).term_stats) == keyed
    # and recall finds by words again
    assert recall(member, "pharmacy refill").entries[0].entry_id == str(wanted.pk)
    # and a second run has nothing to do (idempotent, and resumable by member)
    assert member_index_rekey(member_id=member.pk) == 0
    assert member_index_rekey(member_id=other.pk) == 0
