"""Every copy of the ranking score computes the same value for the same entry.

An entry's score is spelt more than once, because the recall store ranks in the
database what the pure pipeline then ranks again in Python:

1. Python, the reference: the pipeline's stage 6 (`memory.recall.pipeline.resolve`:
   BM25 from `rankers`, the recency, reference and origin factors, the blend's
   ``score``);
2. the store's bound arithmetic (`memory.recall.store.bounds.Shape.bound`), which at an
   entry's own semantic factor and prior must give its score;
3. the matching statement (`memory.recall.store.sql.matching_statement`): BM25 from the
   postings blended with the prior, its one shape read three ways (every stem's
   postings read, every match in the head; the rarest stem read and the others probed;
   a head of two and a tail);
4. the prior classes statement (`memory.recall.store.sql.prior_classes_statement`, the
   prior stream);

the statements on PostgreSQL (on SQLite a recall reads every entry: no copy there).

The store's result is exact only while these copies agree: its certificate compares
what the database says an unread entry could score with what the pipeline scored, and
allows them to disagree by `BOUND_MARGIN` (1e-9) at most. So that is the tolerance
here: every copy, entry by entry, within `BOUND_MARGIN` of the pipeline's value (the
values lie in [0, 1.x]; measured, PostgreSQL's copies agree to 5e-14; the bounds'
arithmetic to 5e-16).
A copy with one operator changed is off by far more on some of the generated rows, and
fails here, where the store's other tests (which compare results, not values) can stay
green.

The rows are generated from a seed: members with entries of every origin, references
below, at and past saturation, ages from the future to a year and more (with
microseconds), with and without a last reference, own and neighbour stems; queries of
rare and common words; the shipped blends and rankers and random ones.
"""

import random
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from iris_site.enums import Consumer
from memory.access.capabilities import capabilities_for
from memory.enums import Lifecycle, MemoryCategory, Origin, ScopeKind
from memory.models import MemoryEntry
from memory.recall import (
    BM25,
    RELEVANCE_V1,
    SEED_V1,
    AdditiveBlend,
    CorpusStats,
    RecallRequest,
    RelevanceFirstBlend,
    ScopeKey,
    bm25,
    query_terms,
    resolve,
    term_stats_for,
)
from memory.recall.store import member_candidates, member_index_load
from memory.recall.store.bounds import BOUND_MARGIN, Query
from memory.recall.store.index import MemberTermKey, statistics
from memory.recall.store.plan import shape_of
from memory.recall.store.streams import matching_stream, prior_classes_read
from tests.iris_site.factories import MemberFactory
from tests.memory.facts import alike

pytestmark = pytest.mark.django_db

TOLERANCE = BOUND_MARGIN
# Microseconds on purpose: the databases read timestamps with their own precision.
NOW = datetime(2026, 6, 1, 12, 0, 0, 654321, tzinfo=UTC)
DAY = 86_400.0
ENTRIES = 80
QUERIES = 8
SEEDS = [1, 2, 3]
# Rare to common: the generator draws the first words most often.
WORDS = [
    "coffee", "garden", "sister", "trip", "piano", "doctor", "budget", "wedding",
    "concert", "project", "deadline", "dog", "keys", "breakfast", "evening", "movie",
    "lisbon", "tokyo", "guitar", "medication", "rent", "birthday", "brother", "running",
]  # fmt: skip
STOP = ["the", "and", "my", "is", "a", "to"]
PROFILE = (ScopeKind.PROFILE, "", "")
BASE_CONSENTS = frozenset({"data_processing", "data_storage", "sensitive_data"})


def _words(rng: random.Random, n: int) -> list[str]:
    return rng.choices(WORDS, weights=[1 / (1 + i) for i in range(len(WORDS))], k=n)


def generated_member(seed: int):
    """A member with ``ENTRIES`` active profile entries the read gate shows the
    assistant, written in bulk with their postings and corpus statistics."""
    rng = random.Random(seed)
    member = MemberFactory()
    bodies = [" ".join(_words(rng, rng.randint(1, 14)) + rng.sample(STOP, 2)) for _ in range(60)]
    entries = []
    for index in range(ENTRIES):
        # A tenth repeat a body's words; each is its own fact (recall returns a fact once).
        body = alike(
            rng.choice(bodies) if rng.random() < 0.1 else " ".join(_words(rng, rng.randint(1, 14))),
            index,
        )
        updated = NOW - timedelta(seconds=rng.uniform(-2 * DAY, 500 * DAY))
        last_referenced = None
        if rng.random() < 0.6:
            last_referenced = updated + timedelta(seconds=rng.uniform(0, 40 * DAY))
        neighbours = rng.sample(bodies, k=rng.choice([0, 0, 1, 2]))
        entries.append(
            MemoryEntry(
                id=uuid.UUID(int=rng.getrandbits(128)),
                member=member,
                scope_kind=ScopeKind.PROFILE,
                scope_key="profile",
                category=rng.choice([MemoryCategory.FACT, MemoryCategory.PREFERENCE]),
                body=body,
                origin=rng.choice(list(Origin.values)),
                lifecycle=Lifecycle.ACTIVE,
                confidence=1.0,
                conflict_key=f"generated::{index}",
                term_stats=term_stats_for(body, neighbours=neighbours).to_json(),
                reference_count=rng.choice([0, 0, 1, 2, 5, 9, 10, 11, 40]),
                last_referenced_at=last_referenced,
                created_at=updated,
                updated_at=updated,
            )
        )
    MemoryEntry.objects.bulk_create(entries)
    member_index_load(member_id=member.pk, entries=entries)
    return member, rng


def blends(rng: random.Random) -> list:
    """The shipped blends and one random blend of each kind."""

    def additive(name: str) -> AdditiveBlend:
        weights = [rng.uniform(0.0, 1.0) for _ in range(4)]
        return AdditiveBlend(name, *weights)

    relevance = RelevanceFirstBlend(
        "generated-relevance",
        prior=additive("generated-prior"),
        lift=rng.uniform(0.0, 1.0),
        floor=rng.uniform(0.0, 0.1),
    )
    return [SEED_V1, RELEVANCE_V1, additive("generated-additive"), relevance]


def rankers(rng: random.Random) -> list[BM25]:
    """The default ranker and a random one (with or without neighbour context)."""
    context = rng.choice([0.0, rng.uniform(0.1, 1.5)])
    generated = BM25(k1=rng.uniform(0.4, 2.2), b=rng.uniform(0.0, 1.0), context_weight=context)
    return [bm25, generated]


def queries(rng: random.Random) -> list[str]:
    found = [rng.choice(WORDS[:8])]  # one stem alone: the statement sums nothing
    while len(found) < QUERIES:
        words = _words(rng, rng.randint(1, 4)) + rng.sample([*STOP, "zebra"], rng.randint(0, 2))
        found.append(" ".join(rng.sample(words, len(words))))
    return found


def request_for(member, query: str) -> RecallRequest:
    # The notebook surface returns up to 999 entries: every generated one, each scored.
    return RecallRequest(
        user_id=str(member.pk),
        surface="notebook",
        scope=ScopeKey(kind=ScopeKind.PROFILE, user_id=str(member.pk)),
        capabilities=capabilities_for(Consumer.ASSISTANT),
        consent_types=BASE_CONSENTS,
        query=query,
    )


def pipeline_scores(candidates, member, query: str, blend, ranker, corpus) -> dict:
    """Copy 1: the pipeline's score of every entry (its stage 6), by entry id."""
    result = resolve(
        candidates,
        request_for(member, query),
        NOW,
        semantic=ranker,
        blend=blend,
        corpus_stats=corpus,
    )
    assert len(result.entries) == ENTRIES  # every entry passed the gate and was scored
    return {entry.entry_id: entry for entry in result.entries}


def pipeline_priors(candidates, member, blend) -> dict[str, float]:
    """The pipeline's weighted prior of every entry: its score without a query (the
    seed's blend, the semantic factor 0), by entry id."""
    scored = pipeline_scores(candidates, member, "", blend, bm25, None)
    return {k: e.score for k, e in scored.items()}


def assert_agree(copy: str, computed: dict[str, float], expected: dict[str, float]) -> None:
    """Every value ``computed`` by a copy is the pipeline's (``expected``) within the
    tolerance; the message names the copy and the worst entry."""
    assert computed, f"{copy}: computed nothing"
    worst = max(computed, key=lambda k: abs(computed[k] - expected[k]))
    gap = abs(computed[worst] - expected[worst])
    assert gap <= TOLERANCE, (
        f"{copy}: entry {worst} scores {computed[worst]!r}, the pipeline {expected[worst]!r}"
        f" (|difference| {gap:.3g} > {TOLERANCE:g}; {len(computed)} values compared)"
    )


def keyed_terms(member, query_text: str) -> tuple[str, ...]:
    """The query's stems as the store names them: the member's keyed tokens, sorted."""
    return tuple(sorted(set(MemberTermKey(member.pk)(query_terms(query_text)).values())))


def corpus_of(member, terms):
    """The corpus statistics and vocabulary rows a recall reads (`index.statistics`) of
    ``terms`` (keyed tokens), the statistics as the plan builds them (with the member's
    term key, which names the pipeline's query stems alike)."""
    (count, length, context), vocabulary, _ = statistics(member.pk, terms)
    corpus = CorpusStats(
        count, length, context, vocabulary.frequency, term_key=MemberTermKey(member.pk)
    )
    return corpus, vocabulary


def holders(candidates, terms) -> set[str]:
    """The entries with a posting for one of ``terms`` (own or neighbour stems)."""
    found = set()
    for candidate in candidates:
        stats = candidate.term_stats
        if set(terms) & (set(stats.terms) | set(stats.context_terms)):
            found.add(candidate.entry_id)
    return found


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the streams: PostgreSQL")
@pytest.mark.parametrize("seed", SEEDS)
def test_the_matching_statement_scores_every_match_as_the_pipeline_does(seed):
    # given a generated member, its queries, blends and rankers
    member, rng = generated_member(seed)
    candidates = member_candidates(member_id=member.pk)
    # How many statements of each form scored rows (of the tail: rows past the head).
    forms = {"head and tail": 0, "one stem": 0, "common stems probed": 0}
    for query_text in queries(rng):
        terms = keyed_terms(member, query_text)
        for ranker in rankers(rng):
            corpus, vocabulary = corpus_of(member, terms)
            query = Query.of(terms, corpus, ranker, vocabulary.bounds)
            stated = [i for i, term in enumerate(query.terms) if term in vocabulary.ids]
            for blend in blends(rng):
                shape = shape_of(blend)
                scored = pipeline_scores(candidates, member, query_text, blend, ranker, corpus)
                expected = {k: e.score for k, e in scored.items()}
                # when the statement scores the matches: every stem's postings read, every
                # match joined; only the rarest stem's read, the others probed; a head of
                # two joined and a tail of those that could still win
                for essential, depth in (
                    (len(query.terms), ENTRIES),
                    (stated[0] + 1 if stated else 0, ENTRIES),
                    (len(query.terms), 2),
                ):
                    with CaptureQueriesContext(connection) as statements:
                        stream = matching_stream(
                            shape,
                            NOW,
                            ranker,
                            corpus,
                            query,
                            vocabulary.ids,
                            essential,
                            ENTRIES,
                            depth,
                            wanted=depth,
                            partitions=[PROFILE],
                        )
                    computed = dict(stream.ranked)
                    if not stated:
                        assert not computed
                        continue
                    # then each match it lists scores what the pipeline scores it
                    sql = statements.captured_queries[-1]["sql"]
                    seen = {
                        "head and tail": "tail AS MATERIALIZED" in sql,
                        "one stem": "p.w AS total FROM" in sql,
                        "common stems probed": "UNION ALL SELECT t.entry_id" in sql,
                    }
                    form = ", ".join([f"{len(computed)} rows", *(k for k, v in seen.items() if v)])
                    where = f"{blend.name}/{ranker.name}(b={ranker.b:.2f}), query {query_text!r}"
                    assert_agree(f"matching statement ({form}), {where}", computed, expected)
                    if depth == ENTRIES and essential == len(query.terms):
                        # every match listed: the comparison left none out
                        assert set(computed) == holders(candidates, vocabulary.ids)
                    for name, present in seen.items():
                        forms[name] += present and len(computed) > depth * (name == "head and tail")
    # and every form of the statement scored rows
    assert all(value > 0 for value in forms.values()), forms


@pytest.mark.parametrize("seed", SEEDS)
def test_the_bound_of_an_entry_s_own_factors_is_its_score(seed):
    # given a generated member, its queries, blends and rankers
    member, rng = generated_member(seed)
    candidates = member_candidates(member_id=member.pk)
    for query_text in queries(rng)[:3]:
        corpus, _ = corpus_of(member, keyed_terms(member, query_text))
        for ranker in rankers(rng):
            for blend in blends(rng):
                shape = shape_of(blend)
                scored = pipeline_scores(candidates, member, query_text, blend, ranker, corpus)
                priors = pipeline_priors(candidates, member, blend)
                # when the store's bound is taken at each entry's exact factors
                computed = {
                    k: shape.bound(e.factors.semantic, priors[k], has_query=True)
                    for k, e in scored.items()
                }
                # then it is the entry's score, and without a query its prior
                expected = {k: e.score for k, e in scored.items()}
                where = f"{blend.name}/{ranker.name}, query {query_text!r}"
                assert_agree(f"bounds.Shape.bound, {where}", computed, expected)
                unqueried = {k: shape.bound(0.0, p, has_query=False) for k, p in priors.items()}
                assert_agree(f"bounds.Shape.bound without a query, {where}", unqueried, priors)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prior classes: PostgreSQL")
@pytest.mark.parametrize("seed", SEEDS)
def test_the_prior_classes_statement_weighs_every_entry_as_the_pipeline_does(seed):
    # given a generated member and blends
    member, rng = generated_member(seed)
    candidates = member_candidates(member_id=member.pk)
    for blend in blends(rng):
        # when the prior statement reads every class to its end
        classes = prior_classes_read(
            request_for(member, ""),
            shape_of(blend),
            NOW,
            partitions=[PROFILE],
            depth=ENTRIES,
            deep=ENTRIES,
        )
        computed = dict(row for rows, _ in classes for row in rows)
        # then it read every entry, each with the pipeline's prior
        assert len(computed) == ENTRIES
        assert_agree(
            f"prior classes statement, {blend.name}",
            computed,
            pipeline_priors(candidates, member, blend),
        )
