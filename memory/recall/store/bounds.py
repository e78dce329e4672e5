"""The recall store's bound arithmetic, pure: no Django, no ORM, no database (an
import-linter contract in pyproject.toml keeps it so; `tests/memory/test_recall_bounds.py`
tests it without a database).

What the shortlist's certificate (`memory.recall.store.plan`) rests on:

- `Shape`: what the store needs of a blend (the prior's weights, the blend's own
  numbers) and the best score of an entry whose semantic factor and weighted prior are
  at most given values (the blend is non-decreasing in both);
- the stems' bounds over postings (`Bounds`, `posting_bounds`, `widened`) and the most
  one posting of a stem can weigh in BM25 (`impact`);
- a query's stems with their idf and impact (`Query`), and how many of its rarest
  stems the matching stream reads at first (`essential_count`);
- what a stream lists and the bound of what it did not (`Stream`);
- `BOUND_MARGIN`, by which every bound is widened against the floating-point
  disagreement between the database's arithmetic and Python's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from memory.recall.rankers import BM25, CorpusStats, TermStats

# Far above the floating-point disagreement between SQL and Python (about 1e-15 on
# values in [0, 1]) and far below any score difference that matters.
BOUND_MARGIN = 1e-9

# A length no posting has: `memory.models.ranking.NO_POSTING_LENGTH`, spelt here so this
# module needs no model (a test keeps the two equal).
NO_POSTING_LENGTH = 32767

# A stem's bounds over postings: (highest own count, highest context count, shortest
# length, shortest context length); none yet for a stem without postings.
Bounds = tuple[int, int, int, int]
NO_BOUNDS: Bounds = (0, 0, NO_POSTING_LENGTH, NO_POSTING_LENGTH)
# The vocabulary row's columns that hold them (`MemoryStem`), in that order.
BOUND_COLUMNS = ("max_own_count", "max_context_count", "min_length", "min_context_length")


@dataclass(frozen=True)
class Shape:
    """What the store needs to know of a blend: the prior's weights (recency,
    reference, origin), the additive blend's weight of the semantic factor, or the
    relevance-first blend's ``lift`` and ``floor`` (`memory.recall.pipeline`), and the
    bound of step 1 (`memory.recall.store.plan`). Built by `plan.shape_of`."""

    recency: float
    reference: float
    origin: float
    # The additive blend's weight of the semantic factor (a relevance-first blend's
    # prior's, which its score does not use).
    semantic: float
    # A relevance-first blend's lift, None for an additive blend.
    lift: float | None = None
    floor: float = 0.0

    @property
    def relevance_first(self) -> bool:
        return self.lift is not None

    @property
    def best_prior(self) -> float:
        return self.recency + self.reference + self.origin

    def bound(self, semantic: float, prior: float, *, has_query: bool) -> float:
        """The best score of an entry whose semantic factor is at most ``semantic`` and
        whose weighted prior is at most ``prior`` (the blend is non-decreasing in both)."""
        if not has_query:
            return prior  # the seed's blend with no semantic factor
        if self.lift is not None:
            share = min(1.0, prior / self.best_prior)
            raw = semantic * (1.0 + self.lift * share) + self.floor * share
            return raw / (1.0 + self.lift + self.floor)
        return self.semantic * semantic + prior


def idf(term: str, corpus: CorpusStats) -> float:
    # BM25's (Lucene's) idf, exactly as `rankers.BM25` computes it.
    n = corpus.document_frequency.get(term, 0)
    return math.log(1.0 + (corpus.document_count - n + 0.5) / (n + 0.5))


def impact(ranker: BM25, corpus: CorpusStats, bounds: Bounds) -> float:
    """The most one posting of a stem can weigh in BM25 before its idf, from the stem's
    bounds over postings: the term-frequency part at the highest count and the shortest
    length any of its postings has had (it grows with the count and falls with the
    length), never above BM25's own ceiling ``k1 + 1``; 0 for a stem without postings."""
    own, context, length, context_length = bounds
    k1, cw = ranker.k1, ranker.context_weight
    tf = own + cw * context
    if tf <= 0:
        return 0.0
    average = corpus.average_length + cw * corpus.average_context_length
    norm = k1
    if average > 0:
        norm = k1 * (1.0 - ranker.b + ranker.b * (length + cw * context_length) / average)
    return min(k1 + 1.0, tf * (k1 + 1.0) / (tf + max(norm, 0.0)))


@dataclass(frozen=True)
class Query:
    """A query's stems, rarest first, with their idf and the most a posting of each can
    weigh (`impact`)."""

    terms: tuple[str, ...]
    idf: Mapping[str, float]
    impact: Mapping[str, float]
    k1: float

    @classmethod
    def of(
        cls,
        terms: Iterable[str],
        corpus: CorpusStats,
        ranker: BM25,
        bounds: Mapping[str, Bounds],
    ) -> Query:
        weights = {term: idf(term, corpus) for term in terms}
        impacts = {term: impact(ranker, corpus, bounds.get(term, NO_BOUNDS)) for term in weights}
        return cls(
            tuple(sorted(weights, key=lambda t: (-weights[t], t))), weights, impacts, ranker.k1
        )

    def held_by(self, corpus: CorpusStats) -> int:
        """How many entries hold one of the query's stems, at most (whatever their
        lifecycle or scope)."""
        return sum(corpus.document_frequency.get(term, 0) for term in self.terms)

    def share(self, terms: Iterable[str]) -> float:
        """The most these stems can add to the semantic factor: a stem's BM25 term score
        stays below ``idf * impact``, and the factor divides by ``sum(idf * (k1 + 1))``."""
        total = sum(self.idf.values()) * (self.k1 + 1.0)
        return sum(self.idf[t] * self.impact[t] for t in terms) / total if total > 0 else 0.0


def essential_count(query: Query, corpus: CorpusStats, wanted: int, budget: int = 4000) -> int:
    """How many of the rarest stems to read postings for at first: those no entry states
    (nearly free), then as many as fit in ``budget`` postings by document frequency, at
    least one, and more while fewer entries hold them than the result's ``wanted``: their
    holders alone cannot fill it, and the next stem's would be read in the next round.
    A budget of 8,000 or 16,000 made some recalls a round shorter and others 5-8 ms
    slower on the bench's 100k member (docs/recall.md, History: speed, 2026-12-05)."""
    count, postings, reading = 0, 0, False
    for term in query.terms:
        frequency = corpus.document_frequency.get(term, 0)
        if frequency and reading and postings + frequency > budget and postings >= wanted:
            break
        postings += frequency
        reading = reading or frequency > 0
        count += 1
    return count


def posting_counts(stats: TermStats) -> dict[str, list[int]]:
    """Stem → [own count, context count] of an entry's stems: one posting each."""
    counts: dict[str, list[int]] = {}
    for stem, n in stats.terms.items():
        counts.setdefault(stem, [0, 0])[0] += n
    for stem, n in stats.context_terms.items():
        counts.setdefault(stem, [0, 0])[1] += n
    return counts


def widened(bounds: Bounds | None, other: Bounds) -> Bounds:
    if bounds is None:
        return other
    return (
        max(bounds[0], other[0]),
        max(bounds[1], other[1]),
        min(bounds[2], other[2]),
        min(bounds[3], other[3]),
    )


def posting_bounds(entries: Iterable) -> dict[str, Bounds]:
    """Stem → the bounds of the postings these entries hold (their stored statistics,
    ``entry.term_stats``)."""
    bounds: dict[str, Bounds] = {}
    for entry in entries:
        stats = TermStats.from_json(entry.term_stats)
        for stem, (own, context) in posting_counts(stats).items():
            posting = (own, context, stats.length, stats.context_length)
            bounds[stem] = widened(bounds.get(stem), posting)
    return bounds


# --- what the streams list and bound ----------------------------------------------------


@dataclass(frozen=True)
class Stream:
    """Entry ids ranked by a value (best first), and an upper bound of the value of every
    entry the stream did not list (None when it listed them all)."""

    ranked: list[tuple[str, float]]
    rest: float | None

    def prefix(self, size: int) -> tuple[list[str], float | None, float | None]:
        """The first ``size`` ids, the value of the next one listed (None if none) and
        the bound of the unlisted."""
        following = self.ranked[size][1] if len(self.ranked) > size else None
        return [entry_id for entry_id, _ in self.ranked[:size]], following, self.rest
