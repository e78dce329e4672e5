"""The stems' bounds over postings, without a database: what a stem can add to any
entry's BM25 is never less than what it adds to one that holds it, so the shortlist's
certificate (`memory.recall.store.plan`) stays exact however the bounds were widened."""

from hypothesis import given
from hypothesis import strategies as st

from memory.models import MemoryEntry, ranking
from memory.recall.rankers import BM25, CorpusStats, TermStats
from memory.recall.store.bounds import NO_BOUNDS, Shape, impact, posting_bounds, widened

STEM = "garden"

postings = st.tuples(
    st.integers(0, 30),  # own count
    st.integers(0, 60),  # context count
    st.integers(1, 600),  # length
    st.integers(0, 1200),  # context length
).filter(lambda p: p[0] or p[1])


def entry_holding(own: int, context: int, length: int, context_length: int) -> MemoryEntry:
    stats = TermStats(
        terms={STEM: own} if own else {},
        length=length,
        context_terms={STEM: context} if context else {},
        context_length=context_length,
    )
    return MemoryEntry(term_stats=stats.to_json())


@given(
    held=st.lists(postings, min_size=1, max_size=12),
    k1=st.floats(0.1, 3.0),
    b=st.floats(0.0, 1.0),
    context_weight=st.floats(0.0, 1.5),
    average=st.floats(0.5, 400.0),
    average_context=st.floats(0.0, 800.0),
)
def test_a_stem_never_weighs_more_in_an_entry_than_its_bounds_allow(
    held, k1, b, context_weight, average, average_context
):
    # given the bounds of every posting the stem has had, for any BM25 and corpus
    entries = [entry_holding(*posting) for posting in held]
    bounds = posting_bounds(entries)[STEM]
    ranker = BM25(k1=k1, b=b, context_weight=context_weight)
    corpus = CorpusStats(
        document_count=1000,
        total_length=round(average * 1000),
        total_context_length=round(average_context * 1000),
        document_frequency={STEM: len(entries)},
    )
    # when
    ceiling = impact(ranker, corpus, bounds)
    # then no entry's term part (its normalised score times k1 + 1) exceeds it
    score = ranker.bind(STEM, corpus)
    for entry in entries:
        stats = TermStats.from_json(entry.term_stats)
        part = score(_Scorable(stats)) * (k1 + 1.0)
        assert part <= ceiling + 1e-9
    assert ceiling <= k1 + 1.0


@given(st.lists(postings, min_size=1, max_size=8), st.lists(postings, min_size=1, max_size=8))
def test_bounds_widen_in_any_order_and_never_narrow(first, then):
    # given the bounds of some postings
    before = posting_bounds([entry_holding(*p) for p in first])[STEM]
    # when more are written (widened one write at a time)
    after = before
    for posting in then:
        after = widened(after, posting_bounds([entry_holding(*posting)])[STEM])
    # then they are the bounds of all of them at once, and cover what they covered
    assert after == posting_bounds([entry_holding(*p) for p in first + then])[STEM]
    assert after[0] >= before[0] and after[1] >= before[1]
    assert after[2] <= before[2] and after[3] <= before[3]


def test_a_stem_without_postings_adds_nothing():
    corpus = CorpusStats(document_count=10, total_length=40, document_frequency={})
    assert impact(BM25(), corpus, NO_BOUNDS) == 0.0


class _Scorable:
    def __init__(self, stats: TermStats) -> None:
        self.term_stats = stats


def test_no_posting_length_is_the_model_s():
    """The pure module spells the vocabulary rows' default shortest lengths itself."""
    assert NO_BOUNDS[2:] == (ranking.NO_POSTING_LENGTH, ranking.NO_POSTING_LENGTH)
    stem = ranking.MemoryStem()
    assert (stem.min_length, stem.min_context_length) == NO_BOUNDS[2:]


weight = st.floats(0.0, 1.0)
unit = st.floats(0.0, 1.0)


@given(
    weights=st.tuples(weight, weight, weight, weight).filter(lambda w: w[0] + w[1] + w[2] > 0),
    relevance_first=st.booleans(),
    lift=st.floats(0.0, 2.0),
    floor=st.floats(0.0, 0.5),
    semantic=st.tuples(unit, unit).map(sorted),
    prior=st.tuples(unit, unit).map(sorted),
    has_query=st.booleans(),
)
def test_a_blend_s_bound_never_falls_as_the_factors_rise(
    weights, relevance_first, lift, floor, semantic, prior, has_query
):
    """The certificate bounds an unread entry by the blend at bounds of its factors: the
    blend must not fall where a factor rises (step 1 of `memory.recall.store.plan`)."""
    recency, reference, origin, semantic_weight = weights
    shape = Shape(recency, reference, origin, semantic_weight)
    if relevance_first:
        shape = Shape(recency, reference, origin, semantic_weight, lift, floor)
    scaled = [p * shape.best_prior for p in prior]  # weighted priors, at most the best
    low = shape.bound(semantic[0], scaled[0], has_query=has_query)
    high = shape.bound(semantic[1], scaled[1], has_query=has_query)
    assert low <= high + 1e-12
