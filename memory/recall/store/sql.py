"""Every raw SQL statement of the recall store, each built by one named function.

The hot reads and the index's writes are written by hand where the ORM would spend
longer building a statement than the database spends running it. Each builder returns
the statement's text (and, where the builder places them, its parameters); the caller
runs it and reads the rows:

- `entries_statement`: a recall's entry loads, with the conflict clusters of the listed
  entries (`reads.entries_load`);
- `matching_statement`: the matching stream, BM25 over the postings blended with the
  entry's prior (`streams.matching_stream`);
- `prior_classes_statement`: the prior stream's classes on PostgreSQL
  (`streams.prior_classes_read`);
- `statistics_statement`: the member's corpus counts, the query stems' vocabulary rows
  and the ended timed pauses (`index.statistics`);
- `stems_upsert_statement`, `postings_delete_statement`, `shards_upsert_statement`: the
  index's writes (`index`);
- `withheld_statement`: the entries in reach the read gate could withhold, counted by
  the columns it reads, for the audit envelope (`gates.withheld_in_reach`; run unprepared,
  so that PostgreSQL plans it with the recall's values).

The score the matching statement computes and the priors both prior reads compute are
copies of the pipeline's (`memory.recall.pipeline`): a test evaluates every copy on the
same rows and requires them equal (`tests/memory/test_recall_score_equivalence.py`).
Values go in as parameters; only numbers the code computes and fixed names are written
into the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache

from django.db import connection

from iris_site.rawsql import RowReader, member_param, one_of, values_of
from memory.enums import SENSITIVE_CATEGORIES, Lifecycle
from memory.models import (
    MemoryCorpusShard,
    MemoryDeletionHold,
    MemoryEntry,
    MemoryEntryTerm,
    MemoryStem,
)
from memory.recall import BM25, CorpusStats
from memory.recall.pipeline import ORIGIN_WEIGHTS, RECENCY_TIME_CONSTANT, REFERENCE_SATURATION

from .bounds import BOUND_COLUMNS, Shape
from .rows import CANDIDATE_COLUMNS, ENTRY_ROWS


class Dialect:
    """The few spellings that differ between PostgreSQL and SQLite in the raw queries."""

    def __init__(self) -> None:
        self.postgres = connection.vendor == "postgresql"
        self.greatest = "GREATEST" if self.postgres else "MAX"
        self.least = "LEAST" if self.postgres else "MIN"

    def number(self, value: float) -> str:
        # A double-precision literal (repr round-trips exactly): arithmetic stays in
        # floating point on PostgreSQL instead of NUMERIC.
        return f"CAST({float(value)!r} AS {'double precision' if self.postgres else 'REAL'})"

    def epoch(self, column: str) -> str:
        # As `streams.EpochSeconds`: date_part is double precision, EXTRACT NUMERIC.
        if self.postgres:
            return f"date_part('epoch', {column})"
        return f"((julianday({column}) - 2440587.5) * 86400.0)"


def lifecycle_literal(value: Lifecycle) -> str:
    # A lifecycle as SQL text: a constant of the code, of lowercase letters only.
    if not re.fullmatch(r"[a-z]+", value.value):
        raise ValueError(f"not a plain lifecycle: {value.value!r}")
    return f"'{value.value}'"


# --- the entry loads --------------------------------------------------------------------


@lru_cache(maxsize=256)
def entries_statement(vendor: str, kinds: int, ids: int) -> str:
    """`reads.entries_load`'s statement for ``kinds`` scope kinds and ``ids`` listed ids
    (one text per count on SQLite; one on PostgreSQL, whose arrays take any number): the
    same text each time, so PostgreSQL can keep its plan (a prepared statement) instead
    of planning it again on every recall. (It used to list the ended timed pauses
    itself, by a range whose size PostgreSQL cannot know before the instant is bound: it
    judged any kept plan dearer and planned the first load of every recall anew, about
    half a millisecond each time. `index.statistics` lists them now.) Parameters: the
    member, the kinds, the ids, the member, the kinds."""
    fields = MemoryEntry._meta
    quote = connection.ops.quote_name
    tombstoned, active = (
        lifecycle_literal(Lifecycle.TOMBSTONED),
        lifecycle_literal(Lifecycle.ACTIVE),
    )

    def column(name: str) -> str:
        return f"e.{quote(fields.get_field(name).column)}"

    hold = MemoryDeletionHold._meta
    hold_key = quote(hold.get_field("entry").column)
    selected = (
        f"{ENTRY_ROWS.select('e')}, (SELECT h.{hold_key} FROM {quote(hold.db_table)} h"  # noqa: S608 - fixed names
        f" WHERE h.{hold_key} = {column('id')}) AS {quote(CANDIDATE_COLUMNS[-1])}"
    )
    names = ", ".join(quote(name) for name in CANDIDATE_COLUMNS)
    table = quote(fields.db_table)
    in_kinds = one_of(column("scope_kind"), kinds)
    key, subject, updated = quote("conflict_key"), quote("subject"), quote("updated_at")
    return (
        f"WITH listed AS (SELECT {selected}, {column('conflict_key')} AS {key}"  # noqa: S608 - fixed names, values as parameters
        f" FROM {table} e WHERE {column('member')} = %s AND {in_kinds}"
        f" AND {column('lifecycle')} <> {tombstoned} AND {one_of(column('id'), ids)})"
        f" SELECT {names} FROM listed UNION ALL SELECT {selected}"
        f" FROM (SELECT {key}, MIN({updated}) AS since FROM listed WHERE {subject} <> ''"
        f" GROUP BY {key}) k JOIN {table} e ON {column('member')} = %s"
        f" AND {column('conflict_key')} = k.{key} AND {column('updated_at')} >= k.since"
        f" WHERE {in_kinds} AND {column('lifecycle')} = {active}"
        f" AND {column('id')} NOT IN (SELECT {quote('id')} FROM listed)"
    )


# --- the matching stream ----------------------------------------------------------------


def matching_statement(
    shape: Shape,
    now: datetime,
    ranker: BM25,
    corpus: CorpusStats,
    weights: Mapping[int, float],
    rare: Sequence[int],
    ceiling: float,
    *,
    depth: int,
    fetch: int,
    wanted: int,
    extra_depth: int,
    partitions: Sequence[tuple[str, str, str]] | None,
) -> tuple[str, list]:
    """The matching stream's statement and its parameters (`streams.matching_stream`
    says what it reads and why). ``weights``: the query stems' vocabulary rows with their
    idf; ``rare``: the rows whose postings are read (the others' are only probed for
    their holders); ``ceiling``: the query's BM25 ceiling, ``sum(idf) * (k1 + 1)``.

    Its rows: (entry id, score, the highest BM25 of a match not joined): the best
    ``depth`` by BM25 (the head), then every further match that could still reach the
    ``wanted``-th best score of the head's rows that can surface (the tail).
    The score is the pipeline's: the blend (`shape`) of the semantic factor, BM25 over
    every query stem from the stored counts and lengths divided by ``ceiling``, and the
    entry's weighted prior from its counters."""
    sql = Dialect()
    n = sql.number
    stems = sorted(weights)
    # BM25's term score, idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average)),
    # with its constants folded so each posting costs PostgreSQL as few operations as it
    # can (it sums thousands of them on a large member).
    k1, b, cw = ranker.k1, ranker.b, ranker.context_weight
    weight = "CASE t.stem_id " + " ".join(
        f"WHEN {s:d} THEN {n(weights[s] * (k1 + 1.0))}" for s in stems
    )
    weight += f" ELSE {n(0.0)} END"
    tf = f"(t.own_count + {n(cw)} * t.context_count)"
    average = corpus.average_length + cw * corpus.average_context_length
    norm = n(k1)
    if average > 0:
        norm = (
            f"{n(k1 * (1.0 - b))} + {n(k1 * b / average)} * t.length"
            f" + {n(k1 * b * cw / average)} * t.context_length"
        )
    posting = f"{weight} * {tf} / ({tf} + {norm})"
    table = connection.ops.quote_name(MemoryEntryTerm._meta.db_table)
    entries = connection.ops.quote_name(MemoryEntry._meta.db_table)
    # The rare stems' postings, read once; then only the common stems' postings of the
    # entries holding a rare one, each probed by (entry, stem).
    listed = ", ".join(f"{s:d}" for s in rare)
    common = sorted(set(stems) - set(rare))
    rare_postings = (
        f"SELECT t.entry_id, {posting} AS w FROM {table} t WHERE t.stem_id IN ({listed})"  # noqa: S608 - ids, numbers
    )
    # One stem's postings hold each entry once (they are keyed by stem and entry):
    # nothing to sum.
    single = len(rare) == 1 and not common
    if single:
        grouped = "SELECT p.entry_id, p.w AS total FROM r p"
    else:
        postings = "SELECT r.entry_id, r.w FROM r"
        if common:
            postings += (
                f" UNION ALL SELECT t.entry_id, {posting} AS w FROM {table} t"  # noqa: S608 - ids
                f" WHERE t.stem_id IN ({', '.join(f'{s:d}' for s in common)})"
                " AND t.entry_id IN (SELECT r.entry_id FROM r)"
            )
        grouped = f"SELECT p.entry_id, SUM(p.w) AS total FROM ({postings}) p GROUP BY p.entry_id"  # noqa: S608 - numbers, fixed names
    origin = "CASE e.origin " + " ".join(f"WHEN %s THEN {n(w)}" for w in ORIGIN_WEIGHTS.values())
    origin += f" ELSE {n(0.0)} END"
    anchor = "COALESCE(e.last_referenced_at, e.updated_at)"
    age = f"{sql.greatest}({n(0.0)}, {n(now.timestamp())} - {sql.epoch(anchor)})"
    prior = (
        f"({n(shape.recency)} * EXP(-{age} / {n(RECENCY_TIME_CONSTANT.total_seconds())})"
        f" + {n(shape.reference)} * {sql.least}({n(1.0)}, e.reference_count"
        f" / {n(REFERENCE_SATURATION)}) + {n(shape.origin)} * ({origin}))"
    )

    def semantic(total: str) -> str:
        return f"{sql.least}({n(1.0)}, {total} / {n(ceiling)})"

    def score(row: str, prior: str | None = None) -> str:
        """The blend of ``row``'s BM25 (``total``) and its weighted prior (``prior``)."""
        relevance = semantic(f"{row}.total")
        prior = prior or f"{row}.prior"
        if not shape.relevance_first:
            return f"{n(shape.semantic)} * {relevance} + {prior}"
        share = f"{sql.least}({n(1.0)}, {prior} / {n(shape.best_prior)})"
        return (
            f"({relevance} * ({n(1.0)} + {n(shape.lift)} * {share})"
            f" + {n(shape.floor)} * {share}) / {n(1.0 + shape.lift + shape.floor)}"
        )

    def reaching(target: str) -> str:
        """The least BM25 total whose blend with the best prior reaches ``target`` (a
        hair lower: joining one match too many costs a row, never a result)."""
        if shape.relevance_first:
            least = (
                f"({target} * {n(1.0 + shape.lift + shape.floor)} - {n(shape.floor)})"
                f" / {n(1.0 + shape.lift)}"
            )
        elif shape.semantic > 0:
            least = f"({target} - {n(shape.best_prior)}) / {n(shape.semantic)}"
        else:
            return n(-1.0)  # the semantic factor weighs nothing: any match may reach it
        return f"{least} * {n(ceiling * (1.0 - 1e-9))}"

    origins = list(ORIGIN_WEIGHTS)
    # The rows that can surface at all, for the threshold: active, in a reachable
    # partition (no partition listed: any active row).
    surfaces = f"e.lifecycle = {lifecycle_literal(Lifecycle.ACTIVE)}"
    surface_params: list = []
    if partitions:
        each = "(e.scope_kind = %s AND e.session_id = %s AND e.notebook_id = %s)"
        surfaces += f" AND ({' OR '.join([each] * len(partitions))})"
        surface_params = [str(value) for partition in partitions for value in partition]
    # One stem's postings are the sums already: materialized once, as ``g``.
    ctes = (
        f"g AS MATERIALIZED (SELECT p.entry_id, p.w AS total FROM ({rare_postings}) p)"  # noqa: S608 - numbers, fixed names
        if single
        else f"r AS MATERIALIZED ({rare_postings}), g AS MATERIALIZED ({grouped})"
    )
    statement = (
        f"WITH {ctes},"  # noqa: S608 - numbers, fixed names
        # The best ``depth`` by BM25, with their prior and whether they can surface.
        f" head AS MATERIALIZED (SELECT g.entry_id, g.total, {prior} AS prior,"
        f" CASE WHEN {surfaces} THEN 1 ELSE 0 END AS surfaces FROM (SELECT * FROM g"
        " ORDER BY g.total DESC, g.entry_id LIMIT %s) g"
        f" JOIN {entries} e ON e.id = g.entry_id),"
        # Every other match that could still reach the ``wanted``-th best score of
        # those that can surface, best first by BM25, at most so many.
        f" tail AS MATERIALIZED (SELECT g.entry_id, g.total, {prior} AS prior FROM"
        f" (SELECT * FROM g WHERE g.total >= (SELECT {reaching('MIN(s.score)')} FROM"
        f" (SELECT {score('h')} AS score FROM head h WHERE h.surfaces = 1 ORDER BY 1 DESC"
        " LIMIT %s) s HAVING COUNT(*) >= %s) AND g.entry_id NOT IN (SELECT h.entry_id"
        " FROM head h) ORDER BY g.total DESC, g.entry_id LIMIT %s) g"
        f" JOIN {entries} e ON e.id = g.entry_id),"
        " j AS (SELECT entry_id, total, prior FROM head UNION ALL"
        " SELECT entry_id, total, prior FROM tail)"
        # The joined rows, best first, with the highest BM25 of a match not joined:
        # they are the first of ``g`` by BM25 (then id), so it is their lowest BM25
        # where more matches have that much, else the best below it (no anti-join).
        f" SELECT j.entry_id, {score('j')} AS score, (SELECT CASE WHEN COUNT(*)"
        " FILTER (WHERE g.total >= b.least) > (SELECT COUNT(*) FROM j) THEN b.least"
        " ELSE MAX(g.total) FILTER (WHERE g.total < b.least) END FROM g,"
        " (SELECT MIN(j.total) AS least FROM j) b GROUP BY b.least) FROM j"
        " ORDER BY score DESC, j.entry_id LIMIT %s"
    )
    wanted = max(1, wanted)
    params = [*origins, *surface_params, depth, *origins, wanted, wanted]
    return statement, [*params, extra_depth, fetch]


# --- the prior stream's classes (PostgreSQL) --------------------------------------------

# The classes to read, as c(kind, session_id, notebook_id, bucket, origin, weight, depth):
# every class of some partitions.
_EVERY_CLASS = """(
    SELECT p.kind, p.session_id, p.notebook_id, r.bucket, o.origin, o.weight,
           CASE WHEN %(w_reference)s * LEAST(1.0, r.bucket::double precision / %(saturation)s)
                     + %(w_origin)s * o.weight >= %(deep_from)s
                THEN %(deep)s ELSE %(depth)s END AS depth
    FROM unnest(%(kinds)s::text[], %(sessions)s::text[], %(notebooks)s::text[])
             AS p(kind, session_id, notebook_id)
    CROSS JOIN generate_series(0, %(saturation)s) AS r(bucket)
    CROSS JOIN unnest(%(origins)s::text[], %(weights)s::double precision[]) AS o(origin, weight)
)"""
_PRIOR_CLASSES_SQL = """
SELECT c.kind, c.session_id, c.notebook_id, c.bucket, c.origin, c.depth, e.id, e.prior
FROM {classes} AS c(kind, session_id, notebook_id, bucket, origin, weight, depth)
CROSS JOIN LATERAL (
    SELECT m.id,
           %(w_recency)s * EXP(-GREATEST(0.0, %(now)s - date_part('epoch',
               COALESCE(m.last_referenced_at, m.updated_at))) / %(tau)s)
           + %(w_reference)s * LEAST(1.0, m.reference_count::double precision / %(saturation)s)
           + %(w_origin)s * c.weight AS prior
    FROM {table} m
    WHERE m.member_id = %(member)s AND m.lifecycle = 'active'
      AND m.scope_kind = c.kind AND m.session_id = c.session_id
      AND m.notebook_id = c.notebook_id
      -- literal, as in the index expression (REFERENCE_SATURATION)
      AND LEAST(m.reference_count, 10) = c.bucket AND m.origin = c.origin
    ORDER BY COALESCE(m.last_referenced_at, m.updated_at) DESC
    LIMIT c.depth + 1
) AS e
"""


def prior_classes_statement(
    shape: Shape,
    now: datetime,
    member,
    *,
    partitions: Sequence[tuple[str, str, str]] = (),
    depth: int = 0,
    deep: int = 0,
    deep_from: float = 0.0,
) -> tuple[str, dict]:
    """The prior stream's statement on PostgreSQL and its parameters
    (`streams.prior_classes_read`): the first ``depth`` rows (and the one after them) of
    every (partition, reference bucket, origin) class of ``partitions`` and ``deep`` rows
    of the classes whose weighted reference and origin part is at least ``deep_from``,
    best first by their weighted prior.
    Its rows: (kind, session id, notebook id, bucket, origin, depth read, entry id,
    prior)."""
    weights = {str(origin): float(weight) for origin, weight in ORIGIN_WEIGHTS.items()}
    params = {
        "saturation": REFERENCE_SATURATION,
        "w_recency": shape.recency,
        "w_reference": shape.reference,
        "w_origin": shape.origin,
        "now": now.timestamp(),
        "tau": RECENCY_TIME_CONSTANT.total_seconds(),
        "member": member,
    }
    params |= {
        "kinds": [str(kind) for kind, _, _ in partitions],
        "sessions": [session_id for _, session_id, _ in partitions],
        "notebooks": [notebook_id for _, _, notebook_id in partitions],
        "origins": list(weights),
        "weights": list(weights.values()),
        "depth": depth,
        "deep": max(deep, depth),
        "deep_from": deep_from,
    }
    table = connection.ops.quote_name(MemoryEntry._meta.db_table)
    return _PRIOR_CLASSES_SQL.format(classes=_EVERY_CLASS, table=table), params


# --- the corpus statistics and the index ------------------------------------------------


# A recall's first statement reads the member's corpus statistics and the audit's counts
# at once (`reads_statement`), every row in one layout: (part, four texts, six numbers).
TOTALS, VOCABULARY, ENDED_PAUSE, WITHHELD = 0, 1, 2, 3
_TEXTS, _NUMBERS = 4, 6


def _row(part: int, texts: Sequence[str] = (), numbers: Sequence[str] = ()) -> str:
    """A select list in the reads' layout: ``part``, then ``texts`` and ``numbers``
    padded with typed NULLs (a union's columns must agree on their types)."""
    padded = [*texts, *["CAST(NULL AS text)"] * (_TEXTS - len(texts))]
    padded += [*numbers, *["CAST(NULL AS bigint)"] * (_NUMBERS - len(numbers))]
    return ", ".join([str(part), *padded])


def reads_statement(*parts: tuple[str, list]) -> tuple[str, list]:
    """Statements of the reads' layout (`statistics_statement`, `withheld_statement`) as
    one: a recall's round trip less."""
    return " UNION ALL ".join(s for s, _ in parts), [p for _, params in parts for p in params]


def statistics_statement(
    member_id, keys: Sequence[str], ended_by: datetime | None
) -> tuple[str, list]:
    """`index.statistics`'s statement and its parameters, in the reads' layout: the
    member's document count and total lengths summed over their counter shards
    (`TOTALS`: three numbers), their vocabulary rows of the stem ``keys``
    (`VOCABULARY`: the key; id, document frequency, the four bounds) and, with
    ``ended_by``, the ids of their paused entries whose timed pause has ended by then
    (`ENDED_PAUSE`: the id as text)."""
    quote = connection.ops.quote_name
    shard, stem = MemoryCorpusShard._meta, MemoryStem._meta
    member = member_param(MemoryCorpusShard, member_id)
    # Integers in every column (PostgreSQL sums a bigint as numeric).
    sums = [f"CAST(SUM({c}) AS bigint)" for c in ("document_count", "total_length")]
    sums.append("CAST(SUM(total_context_length) AS bigint)")
    statement = (
        f"SELECT {_row(TOTALS, numbers=sums)} FROM {quote(shard.db_table)}"  # noqa: S608 - fixed names
        " WHERE member_id = %s"
    )
    params = [member]
    if keys:
        numbers = [quote(c) for c in ("id", "document_frequency", *BOUND_COLUMNS)]
        statement += (
            f" UNION ALL SELECT {_row(VOCABULARY, [quote('key')], numbers)}"  # noqa: S608 - fixed names
            f" FROM {quote(stem.db_table)}"
            f" WHERE member_id = %s AND {one_of(quote('key'), len(keys))}"
        )
        params += [member, *values_of(keys)]
    if ended_by is not None:
        entries = MemoryEntry._meta
        paused = lifecycle_literal(Lifecycle.PAUSED)  # literal: `memory_pause_due` is partial
        statement += (
            f" UNION ALL SELECT {_row(ENDED_PAUSE, ['CAST(id AS text)'])}"  # noqa: S608 - fixed names
            f" FROM {quote(entries.db_table)}"
            f" WHERE member_id = %s AND lifecycle = {paused} AND suppression_ends_at <= %s"
        )
        ends = entries.get_field("suppression_ends_at").get_db_prep_value(ended_by, connection)
        params += [member_param(MemoryEntry, member_id), ends]
    return statement, params


def _has_long_stem() -> bool:
    return any(field.name == "long_stem" for field in MemoryStem._meta.concrete_fields)


def stems_upsert_statement(member_id, rows: Sequence[MemoryStem]) -> tuple[str, list]:
    """`index.stems_upsert`'s statement and its parameters: insert the vocabulary
    ``rows`` (in the order given), or add their document frequency to the member's row
    of the same key and widen its bounds (``GREATEST``/``LEAST``), writing a row only
    when it changes."""
    sql = Dialect()
    table = connection.ops.quote_name(MemoryStem._meta.db_table)
    member = member_param(MemoryStem, member_id)
    # The whole-stem column is no longer written (a keyed token fits the key): empty
    # while the column is there.
    long_stem = _has_long_stem()
    width = 8 if long_stem else 7
    values, params = [], []
    for row in rows:
        values.append("(" + ", ".join(["%s"] * width) + ")")
        params += [member, row.key, *([""] if long_stem else []), row.document_frequency]
        params += [getattr(row, column) for column in BOUND_COLUMNS]
    own, context, length, context_length = (f"{table}.{c}" for c in BOUND_COLUMNS)
    widen = {
        "max_own_count": f"{sql.greatest}({own}, excluded.max_own_count)",
        "max_context_count": f"{sql.greatest}({context}, excluded.max_context_count)",
        "min_length": f"{sql.least}({length}, excluded.min_length)",
        "min_context_length": f"{sql.least}({context_length}, excluded.min_context_length)",
    }
    updates = ", ".join(
        [
            f"document_frequency = {table}.document_frequency + excluded.document_frequency",
            *(f"{column} = {value}" for column, value in widen.items()),
        ]
    )
    changes = " OR ".join(
        [
            "excluded.document_frequency <> 0",
            f"excluded.max_own_count > {own}",
            f"excluded.max_context_count > {context}",
            f"excluded.min_length < {length}",
            f"excluded.min_context_length < {context_length}",
        ]
    )
    statement = (
        f"INSERT INTO {table} (member_id, key,{' long_stem,' if long_stem else ''}"  # noqa: S608
        " document_frequency,"
        f" {', '.join(BOUND_COLUMNS)}) VALUES {', '.join(values)}"
        f" ON CONFLICT (member_id, key) DO UPDATE SET {updates} WHERE {changes}"
    )
    return statement, params


def postings_delete_statement(keys: Sequence) -> str:
    """Delete the postings of the entries ``keys`` (their primary keys as the database
    takes them, one parameter each), returning each deleted posting's stem."""
    table = connection.ops.quote_name(MemoryEntryTerm._meta.db_table)
    return (
        f"DELETE FROM {table} WHERE entry_id IN ({', '.join(['%s'] * len(keys))})"  # noqa: S608
        " RETURNING stem_id"
    )


def shards_upsert_statement(member_id, shards: Mapping[int, list[int]]) -> tuple[str, list]:
    """Add (count, length, context length) changes to the member's counter shards: the
    statement and its parameters."""
    table = connection.ops.quote_name(MemoryCorpusShard._meta.db_table)
    member = member_param(MemoryCorpusShard, member_id)
    values, params = [], []
    for number, (count, length, context) in sorted(shards.items()):
        values.append("(%s, %s, %s, %s, %s)")
        params += [member, number, count, length, context]
    columns = ("document_count", "total_length", "total_context_length")
    updates = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in columns)
    statement = (
        f"INSERT INTO {table} (member_id, shard, {', '.join(columns)})"  # noqa: S608
        f" VALUES {', '.join(values)} ON CONFLICT (member_id, shard) DO UPDATE SET {updates}"
    )
    return statement, params


# --- what a recall withholds ------------------------------------------------------------

# A suppression's state at a recall's `now`, as the gate reads it: no end, running,
# ended (a timed pause that is over).
NO_END, RUNNING, ENDED = 0, 1, 2
# The columns the read gate reads of an entry beyond its boundary, grouped on as they
# are: every row counted is in reach (the gate's first three checks pass whatever its
# identifiers and tenant), so those are not grouped on (`gates.withheld_in_reach`
# gives each group's representative identifiers that reach).
WITHHELD_GROUP_COLUMNS = ("scope_kind", "category", "lifecycle", "suppression_reason")
WITHHELD_ROWS = RowReader(MemoryEntry, WITHHELD_GROUP_COLUMNS)


def suspect_condition(column) -> str:
    """The rows the gate may withhold whatever the request (`SUSPECT_INDEX`'s predicate,
    spelt alike so that PostgreSQL can read them from it): of a lifecycle but active or
    forgotten, suppressed, of a sensitive category, or with a sensitive mention.
    ``column(name)`` spells a column."""
    live = ", ".join(
        lifecycle_literal(Lifecycle(v))
        for v in Lifecycle.values
        if v not in (Lifecycle.ACTIVE, Lifecycle.TOMBSTONED)
    )
    sensitive = ", ".join(f"'{c}'" for c in sorted(SENSITIVE_CATEGORIES))
    return (
        f"({column('lifecycle')} IN ({live}) OR {column('suppression_reason')} <> ''"
        f" OR {column('category')} IN ({sensitive})"
        f" OR ({column('actor_handle')} <> '' AND {column('sensitive_interaction')}))"
    )


def withheld_statement(
    *,
    member_id,
    tenant_id: str | None,
    reach: Mapping[str, Mapping[str, str]],
    every_row: bool,
    withheld_kinds: Sequence[str],
    cutoffs: Mapping[str, datetime],
    now: datetime,
) -> tuple[str, list]:
    """`gates.withheld_in_reach`'s aggregate, in the reads' layout (`WITHHELD`: the four
    group columns; the four flags below and the count): the member's rows in reach (not forgotten,
    ``tenant_id``'s or none, of a kind in ``reach`` holding its identifier columns) that
    the gate could withhold, counted by the gate's columns, the suppression's state at
    ``now`` (`NO_END`, `RUNNING`, `ENDED`), held, sensitive mention and past the cutoff.
    Returns the text and its parameters.

    Two disjoint parts: the suspect rows (`suspect_condition`: whatever the request,
    read from the covering partial index `memory_member_withheld` alone on PostgreSQL,
    never from the table), and the other rows the request withholds (``every_row``: all
    of them; else those of ``withheld_kinds``, held, or last asserted before their
    kind's cutoff). A suspect row the gate lets through is counted in its group and
    judged visible by the gate (`gates.withheld_in_reach`): no reason, no count."""
    fields = MemoryEntry._meta
    quote = connection.ops.quote_name

    def column(name: str) -> str:
        return f"e.{quote(fields.get_field(name).column)}"

    def value(name: str, raw) -> object:
        return fields.get_field(name).get_db_prep_value(raw, connection)

    hold = MemoryDeletionHold._meta
    holds = (
        f"SELECT h.{quote(hold.get_field('entry').column)}"  # noqa: S608 - fixed names
        f" FROM {quote(hold.db_table)} h WHERE h.{quote('member_id')} = %s"
    )
    held = f"{column('id')} IN ({holds})"
    # On PostgreSQL the held ids as an array: a primary-key range, not a scan.
    held_arm = (
        f"{column('id')} = ANY(ARRAY({holds}))" if connection.vendor == "postgresql" else held
    )
    member = member_param(MemoryEntry, member_id)
    active, tombstoned = (
        lifecycle_literal(Lifecycle.ACTIVE),
        lifecycle_literal(Lifecycle.TOMBSTONED),
    )
    mention = f"({column('actor_handle')} <> '' AND {column('sensitive_interaction')})"
    select_params: list = [value("suppression_ends_at", now), member]
    forgotten_arms, forgotten_params = [], []
    for kind, cutoff in cutoffs.items():
        forgotten_arms.append(f"({column('scope_kind')} = %s AND {column('updated_at')} < %s)")
        forgotten_params += [kind, value("updated_at", cutoff)]
    forgotten = " OR ".join(forgotten_arms) or "1 = 0"
    select_params += forgotten_params
    select = (
        f"{WITHHELD_ROWS.select('e')},"
        f" CASE WHEN {column('suppression_ends_at')} IS NULL THEN {NO_END}"
        f" WHEN {column('suppression_ends_at')} > %s THEN {RUNNING} ELSE {ENDED} END AS ends,"
        f" CASE WHEN {held} THEN 1 ELSE 0 END AS held,"
        f" CASE WHEN {mention} THEN 1 ELSE 0 END AS mention,"
        f" CASE WHEN {forgotten} THEN 1 ELSE 0 END AS forgotten"
    )
    where = [f"{column('member')} = %s", f"{column('lifecycle')} <> {tombstoned}"]
    where_params: list = [member]
    if tenant_id is None:
        where.append(f"{column('tenant_id')} IS NULL")
    else:
        where.append(f"({column('tenant_id')} IS NULL OR {column('tenant_id')} = %s)")
        where_params.append(value("tenant_id", tenant_id))
    parts = []
    for kind, identifiers in reach.items():
        conditions = [f"{column('scope_kind')} = %s"]
        where_params.append(kind)
        for name, raw in identifiers.items():
            conditions.append(f"{column(name)} = %s")
            where_params.append(value(name, raw))
        parts.append("(" + " AND ".join(conditions) + ")")
    where.append("(" + " OR ".join(parts) + ")")
    table = quote(fields.db_table)
    suspect = suspect_condition(column)
    statement = f"SELECT {select} FROM {table} e WHERE {' AND '.join(where)} AND {suspect}"  # noqa: S608 - fixed names, values as parameters
    params = select_params + where_params
    # The rest: active rows the suspect part left out, that this request withholds.
    arms, arm_params = ([], []) if every_row else ([held_arm], [member])
    if not every_row and withheld_kinds:
        arms.append(f"{column('scope_kind')} IN ({', '.join(['%s'] * len(withheld_kinds))})")
        arm_params += list(withheld_kinds)
    if not every_row and forgotten_arms:
        arms.append(f"({forgotten})")
        arm_params += forgotten_params
    rest = f"{column('lifecycle')} = {active} AND NOT {suspect}"
    if arms:
        rest += f" AND ({' OR '.join(arms)})"
    statement += (
        f" UNION ALL SELECT {select} FROM {table} e"  # noqa: S608 - fixed names, values as parameters
        f" WHERE {' AND '.join(where)} AND {rest}"
    )
    params += select_params + where_params + arm_params
    texts = [quote(name) for name in WITHHELD_GROUP_COLUMNS]
    flags = ["ends", "held", "mention", "forgotten"]
    columns = ", ".join([*texts, *flags])
    statement = (
        f"SELECT {_row(WITHHELD, texts, [*flags, 'COUNT(*)'])} FROM ({statement}) w"  # noqa: S608 - fixed names
        f" GROUP BY {columns}"
    )
    return statement, params
