"""The plan: `recall_resolve`, one read of the two streams, one bound check, at most one
wider read, else every entry.

`recall_resolve` is the production path. It hands the pipeline a shortlist instead of
every live entry of the member, chosen so that the returned entries are exactly what
the pipeline returns over all of them (same ids, order, scores and rationales):

1. Under BM25 an entry that shares no stem with the query has semantic factor 0, so its
   score is a non-decreasing function of its weighted prior (recency, references,
   origin); any entry scores at most the blend of an upper bound of its semantic
   factor and an upper bound of its prior (`bounds.Shape.bound`).
2. Two ranked streams, each with a bound for what it has not produced yet:
   - matches, from the `MemoryEntryTerm` postings index alone: the entries holding
     one of the query's rarer stems, best first by their score (BM25 over every query
     stem from the stored counts and lengths, the common stems' postings only probed
     for these entries, never scanned: MaxScore; the prior from the entry's counters,
     joined by its key in the same query, for the best few hundred by BM25 and every
     further match that could still reach the result, the others bounded by the BM25
     where the join stopped and the best prior). Entries holding
     only common stems are bounded by what those stems can weigh in any entry: each
     stem's highest counts and shortest lengths over its postings (`MemoryStem`, widened
     as postings are written), not BM25's ceiling of ``k1 + 1``;
   - live entries by prior, read best first from the `memory_recall_prior` index one
     (scope partition, reference bucket, origin) class at a time, in which the prior
     falls with the recency anchor (PostgreSQL; elsewhere one sort); read only without
     a query, when fewer entries hold the query's stems than the result takes, or when
     the bound check says an entry only its prior lifts could still win.
3. A prefix of each stream is loaded, with every live entry sharing a conflict key with
   a loaded one (dedupe must see whole clusters) in the same statement, and the pipeline
   runs on it.
4. One bound check: the result stands only if its last entry beats the best score any
   entry outside the shortlist could reach (the streams' bounds, widened by a margin
   far above the floating-point disagreement between SQL and Python). Otherwise one
   wider read of only the streams that block (`WIDER` times as deep; every stem's
   postings where an unread stem blocks; the prior stream at its first depth if it was
   not read), one more load and check, and if that still cannot certify, every live
   entry is read: always exact. Exhausted streams bound nothing.

What is read, and what the audit envelope counts:

- The envelope's `suppression_counts` do not come from the shortlist: one aggregate
  query (`gates.withheld_in_reach`) groups the member's entries in reach (not forgotten,
  within the tenant boundary, reachable from the request's scope) that the gate could
  withhold by every column the gate reads, and the pure gate judges one representative
  of each group, so every withheld entry in reach is counted under the gate's own reason
  however little the shortlist read; entries out of reach (another tenant, another
  session, a kind the scope does not reach) are counted nowhere. `evaluated_count` is
  those withheld entries plus the visible entries the ranking weighed (a visible entry
  the certificate did not need is not counted), never more than every entry in reach.
- Kinds the read gate withholds as a whole (`memory.access.gate.kind_reason`: not on the
  reader's allow-list, a missing base consent or an opt-out, a pending full clear, off the
  record) are in no stream and never read row by row; when every reachable kind is
  withheld no ranking query runs at all.
- Of the other reachable kinds the shortlist loads, and the pipeline gates one by one:
  every entry the matching stream lists in the prefix read, whatever its lifecycle or
  hold; the best active entries by prior (held ones among them; the prior index holds
  active rows only); every paused entry whose timed pause has ended by the recall's
  `now` (the gate sees it as active, so the store reads it whatever the caller did;
  `recall_run` resumes such entries first); the live entries sharing a conflict key with
  a loaded one. A crisis frame, which lets only safety entries through, loads those
  (active, in a safety-critical context) instead of any stream.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from memory.enums import MemoryCategory
from memory.recall import (
    BM25,
    DEFAULT_BLEND,
    AdditiveBlend,
    Blend,
    CorpusStats,
    RecallCandidate,
    RecallRequest,
    RecallResult,
    RelevanceFirstBlend,
    blend_named,
    bm25,
    budget_for,
    query_cut,
    query_terms,
    resolve,
)
from memory.recall.rankers import SemanticFn

from .bounds import BOUND_MARGIN, Query, Shape, Stream, essential_count
from .gates import (
    NOT_FORGOTTEN,
    member_rows,
    pool_of,
    reach_of,
    withheld_in_reach,
)
from .index import MemberTermKey, corpus_stats_get
from .reads import candidates, entries_load, first_read
from .streams import matching_stream, prior_partitions, prior_stream


def shape_of(blend: Blend) -> Shape | None:
    """The blend's shape (`bounds.Shape`), or None for a blend whose bounds the store
    cannot vouch for."""
    if isinstance(blend, RelevanceFirstBlend) and isinstance(blend.prior, AdditiveBlend):
        prior = blend.prior
        if blend.lift < 0 or blend.floor < 0:
            return None
    elif isinstance(blend, AdditiveBlend):
        prior = blend
    else:
        return None
    weights = (prior.recency, prior.reference, prior.origin, prior.semantic)
    if min(weights) < 0 or prior.recency + prior.reference + prior.origin <= 0:
        return None
    if isinstance(blend, RelevanceFirstBlend):
        return Shape(
            prior.recency, prior.reference, prior.origin, prior.semantic, blend.lift, blend.floor
        )
    return Shape(prior.recency, prior.reference, prior.origin, prior.semantic)


_CHUNK = 1000
# How many of the best matches by BM25 the matching stream first joins to their rows
# for a result of `MATCHING_DEPTH_FOR` entries (the assistant's budget) or more: on the
# bench's 100k member, interleaved per query in one process, 256 answers about 0.7 ms
# sooner at the median than 512 (fewer rows joined) and 128 about 4 ms later (more
# queries need a deeper second read); the same at 1k. A smaller result joins
# proportionally fewer (`matching_depth`); past them the same statement joins at most
# `streams.MATCHING_EXTRA_DEPTH` more that could still outscore the result's last entry.
MATCHING_DEPTH = 256
MATCHING_DEPTH_FOR = 12
# How many times the result's size (plus 8) a recall's first round loads: on the bench's
# 100k member, one time left 33 of 50 recalls short after the first round (two or three
# rounds); two leaves 18 (only 2 with three), and three gains nothing more.
FIRST_PREFIX = 2
# How much deeper the one wider read goes when the first cannot certify the result:
# every blocking stream this many times as deep (the matching stream with every stem's
# postings; the prior stream read at its first depth if the first round did not read
# it). The rounds it replaces grew each stream by four; eight loaded up to 256 entries
# more and cost some recalls 15-100 ms (interleaved on the bench's 1k and 100k
# members). A wider read that still cannot certify reads every entry.
WIDER = 4


def per_class(limit: int) -> int:
    """How many rows of each prior class the first read of the prior stream takes for a
    result of ``limit`` entries, beside the few classes read as deep as the prefix
    (`streams.deep_from`), which hold the best priors more often than not: three for the
    assistant's twelve (interleaved on the bench's 100k member, a recall without a
    query 0.5 ms sooner than five; two send some 1k recalls to a second read), a sixth
    of a larger result. A class cut short bounds its unread rows, so this decides how
    soon the result is certified, never what it is."""
    return max(3, limit // 6 + 1)


def matching_depth(limit: int) -> int:
    """How many matches the first matching statement joins for a result of ``limit``
    entries: `MATCHING_DEPTH` from `MATCHING_DEPTH_FOR` entries on, proportionally fewer
    below (at least a quarter of it). The shell's three entries are certified among the
    best 64 as often as twelve among the best 256, a millisecond sooner on the bench's
    100k member; the depth only decides how soon the result is certified, never what it
    is."""
    scaled = MATCHING_DEPTH * min(limit, MATCHING_DEPTH_FOR) // MATCHING_DEPTH_FOR
    return max(MATCHING_DEPTH // 4, scaled)


def chunks(values: list, size: int = _CHUNK):
    for start in range(0, len(values), size):
        yield values[start : start + size]


@dataclass
class Plan:
    """How far each stream is read; the loop grows it until the result is certified."""

    essential: int = 0
    matching_size: int = 0
    matching_depth: int = 0
    per_class: int = 0
    prior_size: int = 0


def recall_resolve(
    *,
    request: RecallRequest,
    now: datetime,
    semantic: SemanticFn | None = None,
    blend: Blend | str | None = None,
) -> RecallResult:
    """The pipeline's result over every entry of the member, from a certified shortlist
    (see the module docstring)."""
    ranker = semantic or bm25
    chosen = blend_named(blend) if isinstance(blend, str) else (blend or DEFAULT_BLEND)
    reader, state = request.reader(), request.member_state()
    reach = reach_of(request, reader, state)
    shape = shape_of(chosen)
    # The reachable partitions of the kinds read row by row (None: not listable, a
    # recall that reaches every session), for both streams.
    reachable = prior_partitions(request)
    if reachable is not None:
        reachable = [p for p in reachable if p[0] in reach.kinds]
    shortlist = (
        connection.vendor == "postgresql"
        and isinstance(ranker, BM25)
        and shape is not None
        and (reachable is not None or request.crisis_frame)
    )
    if not reach.kinds or not shortlist:
        # Every entry in reach the gate withholds, exactly, by its reason: the envelope's
        # counts, whatever is read below.
        withheld = withheld_in_reach(request, reach, reader, state, now)
        if not reach.kinds:
            # Every reachable kind is withheld as a whole: nothing to rank, nothing to read.
            return resolve(
                (), request, now, semantic=ranker, blend=chosen, withheld=withheld, counted=True
            )
        # Read everything: only BM25 promises "no shared stem, no semantic factor"; the
        # shortlist's streams are PostgreSQL's (SQLite, a development database, reads
        # every entry); a recall that reaches every session has no prior partitions.
        corpus = corpus_stats_get(member_id=request.user_id)
        every = member_rows(request.user_id, reach.kinds).filter(NOT_FORGOTTEN)
        return resolve(
            candidates(every, many=True).values(),
            request,
            now,
            semantic=ranker,
            blend=chosen,
            corpus_stats=corpus,
            withheld=withheld,
            counted=True,
        )

    def run(loaded: Mapping[str, RecallCandidate]) -> RecallResult:
        return resolve(
            loaded.values(),
            request,
            now,
            semantic=ranker,
            blend=chosen,
            corpus_stats=corpus,
            withheld=withheld,
            counted=True,
        )

    has_query = request.has_query
    # The query's stems named as the member's index names them, by keyed token (one
    # key-store read; the pipeline's ranking and rationale reuse them through the
    # corpus's `term_key`): from here on the store compares tokens only.
    term_key = MemberTermKey(request.user_id)
    stems = query_terms(request.query) if has_query else ()
    terms = tuple(sorted(set(term_key(stems).values()))) if stems else ()
    # One statement: the corpus statistics of the query's stems, the ended timed pauses
    # and the audit's counts of every entry in reach the gate withholds, by its reason.
    (count, length, context), vocabulary, ended, withheld = first_read(
        request, reach, reader, state, terms, now
    )
    # The query as the pipeline ranks it: at most `MAX_QUERY_TERMS` stems, the rarest
    # (`BM25.bind` cuts it with the same document frequencies, handed over below).
    terms = query_cut(terms, vocabulary.frequency)
    stem_ids = vocabulary.ids
    corpus = CorpusStats(count, length, context, vocabulary.frequency, term_key=term_key)
    query = Query.of(terms, corpus, ranker, vocabulary.bounds)
    _, budget = budget_for(request.surface)
    limit = budget.max_entries
    if request.budget is not None:
        limit = min(limit, request.budget)
    # The first prefix read of each stream: the gate and the dedupe drop part of it (other
    # lifecycles, holds, clusters), and a round short of entries costs two more statements.
    first = FIRST_PREFIX * limit + 8
    plan = Plan()

    def read_matching() -> Stream:
        return matching_stream(
            shape,
            now,
            ranker,
            corpus,
            query,
            stem_ids,
            plan.essential,
            plan.matching_size,
            max(plan.matching_depth, plan.matching_size),
            wanted=limit,
            partitions=reachable,
        )

    def read_prior(partitions=None) -> Stream:
        return prior_stream(
            request,
            reach.kinds,
            shape,
            now,
            plan.per_class,
            plan.prior_size,
            partitions=reachable if partitions is None else partitions,
        )

    loaded: dict[str, RecallCandidate] = {}
    # The paused entries whose timed pause has ended are read with the first load.
    pending = ended

    def load(entry_ids: Sequence[str]) -> None:
        nonlocal pending
        # Each id once, however many pauses ended unswept; a chunk at most a statement.
        for chunk in chunks([i for i in dict.fromkeys([*entry_ids, *pending]) if i not in loaded]):
            for entry_id, candidate in entries_load(request, reach.kinds, chunk).items():
                loaded.setdefault(entry_id, candidate)
        pending = []

    if request.crisis_frame:
        # A crisis frame lets only safety entries through, and only in a safety-critical
        # context (`memory.access.gate`): those few are all read, with the ended pauses,
        # and the pipeline gates each one; no stream is needed.
        if limit and request.safety_critical_context:
            safety = pool_of(request, reach.kinds).filter(category=MemoryCategory.SAFETY)
            loaded.update(candidates(safety, many=True))
            load([])
        return run(loaded)
    matching = prior = None
    if limit and query.terms:
        plan.essential, plan.matching_size = essential_count(query, corpus, limit), first
        plan.matching_depth = matching_depth(limit)
        matching = read_matching()
    if limit and (not query.terms or query.held_by(corpus) < limit):
        # Without a query the prior ranks everything. With fewer entries holding the
        # query's stems than the result takes, entries ranked by their prior alone fill
        # the rest: that stream is read in the same round, not after a round of matches
        # that cannot fill the result. (Not with fewer than the first prefix: where the
        # matches did fill it, the prior's 30-odd rows loaded and gated for nothing
        # cost a 1k recall 1-3 ms.)
        plan.per_class, plan.prior_size = per_class(limit), first
        prior = read_prior()
    matching_blocks, prior_blocks = (False, False, False), False
    for wider in (False, True):
        if wider:
            # One wider read of every stream that could still hold a better entry.
            if any(matching_blocks):
                listed, unjoined, unread = matching_blocks
                if unread:
                    plan.essential = len(query.terms)  # every stem's postings: no common share
                if listed:
                    plan.matching_size *= WIDER
                if unjoined:
                    plan.matching_depth *= WIDER
                matching = read_matching()
            if prior_blocks and prior is None:
                plan.per_class, plan.prior_size = per_class(limit), first
                prior = read_prior()
            elif prior_blocks:
                plan.per_class *= WIDER
                plan.prior_size *= WIDER
                prior = read_prior()
        wanted: list[str] = []
        matching_next = matching_rest = prior_next = prior_rest = None
        if matching is not None:
            ids, matching_next, matching_rest = matching.prefix(plan.matching_size)
            wanted += ids
        if prior is not None:
            ids, prior_next, prior_rest = prior.prefix(plan.prior_size)
            wanted += ids
        missing = [i for i in dict.fromkeys(wanted) if i not in loaded]
        # A listed match of any lifecycle is loaded, so the gate counts it.
        if missing or pending:
            load(missing)
        result = run(loaded)
        if not limit:
            return result  # nothing to return
        if prior is not None and prior_next is None and prior_rest is None:
            return result  # the prior stream listed every live entry, and all are loaded
        # The one bound check: could an entry outside the shortlist still beat the last
        # one? Per way of being left out: a match listed past the prefix or not joined,
        # one with only unread (common) stems, one ranked by its prior alone.
        last = result.entries[-1].score if len(result.entries) >= limit else -math.inf
        unread_prior = shape.best_prior
        if prior is not None:
            unread_prior = max(v for v in (prior_next, prior_rest) if v is not None)
        common = query.share(query.terms[plan.essential :])

        def beats(bound: float | None, last: float = last) -> bool:
            return bound is not None and bound + BOUND_MARGIN >= last

        def blend(semantic: float, prior_value: float | None) -> float | None:
            if prior_value is None:
                return None
            return shape.bound(
                semantic + BOUND_MARGIN, prior_value + BOUND_MARGIN, has_query=has_query
            )

        # A match listed past the prefix, a match not joined, one with only unread stems.
        matching_blocks = (
            beats(matching_next),
            beats(matching_rest),
            common > 0 and beats(blend(common, unread_prior)),
        )
        prior_blocks = beats(blend(0.0, prior_rest if prior else shape.best_prior)) or beats(
            blend(0.0, prior_next)
        )
        if not (any(matching_blocks) or prior_blocks):
            return result
    # Still open after the wider read (massive ties at the cut-off): every live entry.
    unread = pool_of(request, reach.kinds).exclude(pk__in=list(loaded))
    loaded.update(candidates(unread, many=True))
    if pending:
        load([])
    return run(loaded)
