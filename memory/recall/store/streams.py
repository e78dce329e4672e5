"""The two ranked streams a recall's shortlist is read from, each with a bound for what
it has not listed yet (`bounds.Stream`):

- `matching_stream`: the entries holding one of the query's rarer stems, best first by
  their score, from the `MemoryEntryTerm` postings index (its statement:
  `sql.matching_statement`);
- `prior_stream`: live entries by weighted prior, best first, from the
  `memory_recall_prior` index one class at a time (`sql.prior_classes_statement`).

PostgreSQL only: on SQLite (a development database) a recall reads every entry
(`plan.recall_resolve`).

Which rows a stream lists, and how deep, only decides how soon the plan
(`memory.recall.store.plan`) can certify its result, never what the result is.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime

from django.db import connection

from memory.enums import ScopeKind
from memory.recall import BM25, CorpusStats, RecallRequest
from memory.recall.pipeline import ORIGIN_WEIGHTS, REFERENCE_SATURATION

from .bounds import BOUND_MARGIN, Query, Shape, Stream
from .sql import matching_statement, prior_classes_statement

# How many more matches than the depth it was asked for the matching statement may join
# when they could still outscore the result's last entry (`matching_stream`; the depth:
# `plan.MATCHING_DEPTH`): with the head, 2,048 rows at most, which covers the near-tied
# holders of the bench's commonest one-word queries at 100k ("coffee": 782, "where did
# I leave my guitar": 2,237 of which most cannot reach the result); docs/recall.md,
# History: speed, 2026-12-05.
MATCHING_EXTRA_DEPTH = 1792
# How many times the prefix it needs the matching stream lists: rows past the prefix
# cost next to nothing (every joined row is ranked anyway) and spare a wider read when
# the gate withholds part of the prefix (measured with the rewrite of 2026-12-03:
# docs/recall.md, History: speed).
MATCHING_READ_AHEAD = 4
# --- matches ----------------------------------------------------------------------------


def _stem_weights(query: Query, terms, ids: Mapping[str, int]) -> dict[int, float]:
    """The vocabulary rows of ``terms`` by id, with their idf (a stem the member's
    vocabulary lacks has no posting)."""
    return {ids[term]: query.idf[term] for term in terms if term in ids}


def matching_stream(
    shape: Shape,
    now: datetime,
    ranker: BM25,
    corpus: CorpusStats,
    query: Query,
    ids: Mapping[str, int],
    essential: int,
    size: int,
    depth: int,
    *,
    wanted: int,
    partitions: Sequence[tuple[str, str, str]] | None,
) -> Stream:
    """Entries with a posting for one of the ``essential`` rarest stems, best first by
    their score as far as the postings tell it: BM25 over every query stem (the common
    stems' postings are only probed for these entries, never scanned for others:
    MaxScore) from the counts and lengths, blended with the entry's prior (its counters,
    read from the entry row by its key). An entry without any of those stems scores at
    most the common stems' share, which the caller bounds. ``ids``: the query stems'
    vocabulary rows, which scope the postings to the member. One raw query
    (`sql.matching_statement`): the ORM would spend longer building it than the
    database spends running it.

    The ``depth`` entries with the highest BM25 are joined to their rows for the prior,
    and then, in the same statement, every further match (at most
    ``MATCHING_EXTRA_DEPTH``, best by BM25 first) that could still outscore the
    ``wanted``-th best of them that can surface: an active row of one of ``partitions``
    (`prior_partitions`), a superset of what the read gate lets through, so that score
    is never below the one the recall ends with and the guess joins too few rather
    than too many. Where hundreds of entries hold the query's stems with nearly equal
    BM25 and only their priors tell them apart, they are joined at once instead of in a
    second, deeper statement. The score grows with both BM25 and the prior, so any
    entry not joined scores at most the blend of the highest BM25 of a match not joined
    and the best prior, the stream's ``rest`` (None when every match was joined). A
    query stem held by thousands of entries is otherwise summed from its postings alone,
    never joined entry by entry. Which rows are joined only decides how soon the caller
    can certify its result, never what the result is. One statement shape for every
    query (the head-only form it replaced, chosen where no tail seemed needed, gave the
    same p50 at 1k and 100k: docs/recall.md)."""
    ceiling = sum(query.idf.values()) * (ranker.k1 + 1.0)
    weights = _stem_weights(query, query.terms, ids)
    rare = sorted(_stem_weights(query, query.terms[:essential], ids))
    if ceiling <= 0 or not rare:
        return Stream([], None)  # no entry holds a stem the stream lists
    # Rows past the prefix cost next to nothing here (all joined rows are ranked anyway)
    # and spare a second query when the gate withholds part of the prefix.
    fetch = MATCHING_READ_AHEAD * size + 1
    statement, params = matching_statement(
        shape,
        now,
        ranker,
        corpus,
        weights,
        rare,
        ceiling,
        depth=depth,
        fetch=fetch,
        wanted=wanted,
        extra_depth=MATCHING_EXTRA_DEPTH,
        partitions=partitions,
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        found = cursor.fetchall()
    rows = [(entry_id, value) for entry_id, value, _ in found]
    following = found[0][2] if found else None
    rest = None
    if following is not None:
        rest = shape.bound(min(1.0, following / ceiling), shape.best_prior, has_query=True)
    ranked = [(str(entry_id), value) for entry_id, value in rows]
    return Stream(ranked, rest)


# --- priors -----------------------------------------------------------------------------

# Kinds whose rows carry the session id, each reaching the ones before it.
_SESSION_BOUND = (ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE)


def prior_partitions(request: RecallRequest) -> list[tuple[str, str, str]] | None:
    """The (scope kind, session id, notebook id) prefixes of `memory_recall_prior` that
    hold every row this recall can reach, or None when they cannot be listed (a crisis
    recall reaches every session). Check constraints keep the identifier columns empty
    for kinds that do not carry them."""
    scope, kind = request.scope, request.scope.kind
    profile = (ScopeKind.PROFILE, "", "")
    if kind == ScopeKind.PROFILE:
        return [profile]
    if kind in _SESSION_BOUND:
        kinds = _SESSION_BOUND[: _SESSION_BOUND.index(kind) + 1]
        return [profile, *((k, scope.session_id or "", "") for k in kinds)]
    if kind == ScopeKind.NOTEBOOK:
        partitions = [profile, (ScopeKind.NOTEBOOK, "", scope.notebook_id or "")]
        if request.effective_tenant_id is not None:
            partitions.append((ScopeKind.TENANT, "", ""))
        return partitions
    if kind in (ScopeKind.TENANT, ScopeKind.OPERATOR_COPILOT):
        return [(kind, "", "")]
    return None


def prior_stream(
    request: RecallRequest,
    kinds: Sequence[str],
    shape: Shape,
    now: datetime,
    per_class: int,
    size: int,
    *,
    partitions: Sequence[tuple[str, str, str]],
) -> Stream:
    """Active entries of the reachable partitions of ``kinds`` by weighted prior, best
    first. ``partitions``: those partitions, each of one of ``kinds`` (the caller's
    `prior_partitions`, narrowed to the kinds read).

    Each (partition, reference bucket, origin) class is one range of the
    `memory_recall_prior` index, in which the prior falls with the recency anchor: the
    first ``per_class`` rows of each class are read (``size`` of the few classes that
    hold the best priors, `deep_from`), and a class cut short bounds its unread rows by
    its last row's prior."""
    if not partitions:
        return Stream([], None)
    # A class without a row has nothing to list nor to bound.
    classes = prior_classes_read(request, shape, now, partitions, depth=per_class, deep=size)
    ranked = sorted((row for rows, _ in classes for row in rows), key=lambda r: (-r[1], r[0]))
    return Stream(ranked, max((cut for _, cut in classes if cut is not None), default=None))


def prior_classes_read(
    request: RecallRequest,
    shape: Shape,
    now: datetime,
    partitions: Sequence[tuple[str, str, str]],
    *,
    depth: int,
    deep: int,
) -> list[tuple[list[tuple[str, float]], float | None]]:
    """The first ``depth`` rows (and the one after them) of every class of
    ``partitions``, ``deep`` rows of the few classes whose references and origin could
    hold the best priors (`deep_from`), by prior, in one statement
    (`sql.prior_classes_statement`): per class with rows, its rows read, best first,
    and the bound of its unread rows (the last row's prior; None when it has no more)."""
    statement, params = prior_classes_statement(
        shape,
        now,
        uuid.UUID(request.user_id),
        partitions=partitions,
        depth=depth,
        deep=deep,
        deep_from=deep_from(shape),
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        rows = cursor.fetchall()
    read: dict[tuple, tuple[int, list[tuple[str, float]]]] = {}
    for kind, session_id, notebook_id, bucket, origin, read_depth, entry_id, prior in rows:
        key = (kind, session_id, notebook_id, bucket, origin)
        read.setdefault(key, (read_depth, []))[1].append((str(entry_id), prior))
    classes = []
    for read_depth, part in read.values():
        part.sort(key=lambda item: -item[1])
        classes.append((part, part[-1][1] if len(part) > read_depth else None))
    return classes


def deep_from(shape: Shape) -> float:
    """The least weighted reference and origin part of a class read ``deep`` at first:
    the best class's, less one reference step. Recency falls alike in every class, so
    the classes of much-used entries stated by the member hold the best priors unless
    their entries are old, and a recall without a query would otherwise read them a
    second time (reading a few dozen rows more costs less than a round)."""
    best = shape.reference + shape.origin * max(ORIGIN_WEIGHTS.values())
    return best - shape.reference / REFERENCE_SATURATION - BOUND_MARGIN
