"""A bounded query (issue 43, item 2): a query is ranked on at most `MAX_QUERY_TERMS`
distinct stems, the rarest in the member's memory, and the store and the pure pipeline
cut it alike, so the store's result is still the pipeline's over every entry."""

import random
from datetime import timedelta

import pytest

from memory.recall import (
    MAX_QUERY_TERMS,
    RELEVANCE_V1,
    CorpusStats,
    bm25,
    query_cut,
    query_terms,
    resolve,
    term_stats_for,
)
from memory.recall.store import corpus_stats_get, member_candidates, recall_resolve
from tests.memory.test_recall_store import (
    NAMES,
    NOW,
    WORDS,
    random_request,
    returned,
    synthetic_member,
)

UNSEEN = [f"unseenword{letter}" for letter in "abcdefghij"]


def test_a_short_query_is_not_cut():
    terms = tuple(f"w{i:02d}" for i in range(MAX_QUERY_TERMS))
    assert query_cut(terms, {}) == terms


def test_a_long_query_keeps_the_rarest_stems_the_memory_holds_then_unseen_ones():
    # given 40 stems: 30 held (the higher the number, the more holders), 10 unseen
    held = {f"h{i:02d}": i + 1 for i in range(30)}
    unseen = [f"u{i:02d}" for i in range(10)]
    # when
    kept = query_cut([*held, *unseen], held)
    # then every held stem, and the first unseen ones by name, fill the cut
    assert len(kept) == MAX_QUERY_TERMS
    assert set(kept) == set(held) | {"u00", "u01"}
    # and with more held stems than the cut, the commonest go first
    many = {f"h{i:02d}": i + 1 for i in range(40)}
    assert set(query_cut(many, many)) == {f"h{i:02d}" for i in range(MAX_QUERY_TERMS)}


def test_bm25_ranks_a_long_query_as_its_cut():
    # given a corpus and a query of more distinct stems than the cut
    rng = random.Random(3)
    bodies = [" ".join(rng.choices(WORDS + NAMES, k=8)) for _ in range(50)]
    stats = [term_stats_for(body) for body in bodies]
    frequency: dict[str, int] = {}
    for entry in stats:
        for stem in entry.terms:
            frequency[stem] = frequency.get(stem, 0) + 1
    corpus = CorpusStats(len(stats), sum(s.length for s in stats), 0, frequency)
    words = WORDS + NAMES + UNSEEN
    query = " ".join(words)
    assert len(query_terms(query)) > MAX_QUERY_TERMS
    kept = set(query_cut(query_terms(query), frequency))
    # the query's own words whose stems the cut keeps
    cut = " ".join(w for w in words if set(query_terms(w)) <= kept)
    assert set(query_terms(cut)) == kept

    class Entry:
        def __init__(self, term_stats):
            self.term_stats = term_stats

    # then every entry scores as under the cut query
    for entry in stats:
        assert bm25(query, Entry(entry), corpus) == bm25(cut, Entry(entry), corpus)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2])
def test_the_store_ranks_a_long_query_exactly_as_the_pipeline_over_every_entry(seed):
    # given random members and requests whose queries hold more stems than the cut
    rng = random.Random(seed)
    member = synthetic_member(seed, n=300)
    everything = member_candidates(member_id=member.pk)
    corpus = corpus_stats_get(member_id=member.pk)
    for _ in range(12):
        words = rng.sample(WORDS + NAMES + UNSEEN, k=rng.randint(MAX_QUERY_TERMS + 1, 50))
        request = random_request(rng, member)
        request = type(request)(**{**request.__dict__, "query": " ".join(words)})
        now = NOW + timedelta(days=rng.uniform(-6, 6))
        # when
        produced = recall_resolve(request=request, now=now, blend=RELEVANCE_V1)
        # then
        expected = resolve(everything, request, now, blend=RELEVANCE_V1, corpus_stats=corpus)
        assert returned(produced) == returned(expected), request
