"""Stored entries read as the pipeline's candidates: a recall's entry loads (one raw
statement, `sql.entries_statement`), the reads that take every entry (the reference a
recall is held to, an entity's entries, a gate's property test) and which entries the
read gate shows a reader."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import connection
from django.db.models import QuerySet

from iris_site.keys.envelope import unreadable
from iris_site.rawsql import member_param, values_of
from memory.access.gate import MemberState, Reader, decide
from memory.models import MemoryEntry
from memory.recall import Blend, RecallCandidate, RecallRequest, RecallResult, resolve
from memory.recall.rankers import SemanticFn

from .gates import NOT_FORGOTTEN, REACHABLE_KINDS, Reach, member_rows, withheld_of, withheld_query
from .index import Vocabulary, corpus_stats_get, statistics_of, statistics_query
from .rows import CANDIDATE_COLUMNS, ENTRY_ROWS, CandidateRow, candidate_of
from .sql import entries_statement, reads_statement


def readable(row: CandidateRow) -> bool:
    """Whether a stored entry can be a recall's candidate at all: not when its body
    cannot be opened (`iris_site.keys.envelope.Unreadable`: its member's keys were
    destroyed, or the stored value was altered). Such an entry is never returned, never
    ranked and never counted: it is dropped here, between the store and the pipeline."""
    return not unreadable(row.body)


def candidates(rows: QuerySet[MemoryEntry], *, many: bool = False) -> dict[str, RecallCandidate]:
    """The rows' candidates by entry id, read as plain tuples (``many``: in batches);
    unreadable rows dropped (`readable`). The sealed columns open as the ORM reads them
    (`SealedTextField.from_db_value`)."""
    found = {}
    values_list = rows.values_list(*CANDIDATE_COLUMNS)
    for values in values_list.iterator(2000) if many else values_list:
        row = CandidateRow._make(values)
        if readable(row):
            candidate = candidate_of(row)
            found[candidate.entry_id] = candidate
    return found


def first_read(
    request: RecallRequest,
    reach: Reach,
    reader: Reader,
    state: MemberState,
    terms: Iterable[str],
    now: datetime,
) -> tuple[tuple[int, int, int], Vocabulary, list[str], dict[str, int]]:
    """A recall's first statement: the member's corpus statistics of ``terms`` and its
    ended timed pauses (`index.statistics`) and the audit's counts of the entries in
    reach the gate withholds (`gates.withheld_in_reach`), read as one
    (`sql.reads_statement`): a round trip less than two statements."""
    statement, params, keys = statistics_query(request.user_id, terms, ended_by=now)
    parts = [(statement, params)]
    withheld = withheld_query(request, reach, state, now)
    if withheld is not None:
        parts.append(withheld)
    with connection.cursor() as cursor:
        cursor.execute(*reads_statement(*parts))
        rows = cursor.fetchall()
    totals, vocabulary, ended = statistics_of(rows, keys)
    counts = withheld_of(rows, request, reader, state, now) if withheld is not None else {}
    return totals, vocabulary, ended, counts


def entries_load(
    request: RecallRequest,
    kinds: Sequence[str],
    entry_ids: Sequence[str],
) -> dict[str, RecallCandidate]:
    """The member's entries ``entry_ids`` of ``kinds``, whatever their lifecycle but
    forgotten, and every live entry of ``kinds`` sharing a conflict key with one of them
    and at least as fresh as it (dedupe must see whole clusters: the freshest entry of a
    cluster wins, equal times to the smaller id, so a staler one never displaces it; a
    key is read from its stalest listed entry on, visible or not: the extra entries
    change nothing). One raw statement, one range of `memory_member_conflict` per key:
    the ORM would spend longer building the two reads than the database spends on
    them. An unreadable entry is dropped (`readable`)."""
    if not entry_ids:
        return {}
    entry_field = MemoryEntry._meta.get_field("id")
    ids = [entry_field.get_db_prep_value(uuid.UUID(str(i)), connection) for i in entry_ids]
    statement = entries_statement(connection.vendor, len(kinds), len(ids))
    member = member_param(MemoryEntry, request.user_id)
    params = [member, *values_of(kinds), *values_of(ids), member, *values_of(kinds)]
    found: dict[str, RecallCandidate] = {}
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        for values in cursor.fetchall():
            # `ENTRY_ROWS` converts as the ORM does: a sealed column opens here.
            row = CandidateRow(*ENTRY_ROWS.values(values), values[-1])
            if readable(row):
                candidate = candidate_of(row)
                found.setdefault(candidate.entry_id, candidate)
    return found


def entries_visible(
    *, member_id, entry_ids: Iterable[str], reader: Reader, state: MemberState, now: datetime
) -> frozenset[str]:
    """Which of the member's ``entry_ids`` the read gate (`memory.access.gate.decide`) shows
    ``reader`` now (one query; a forgotten or missing entry is not shown). For answers
    that would otherwise name an entry the reader may not see: a kept entry, what a
    short-term row became."""
    wanted = sorted({str(entry_id) for entry_id in entry_ids})
    if not wanted:
        return frozenset()
    rows = member_rows(member_id).filter(NOT_FORGOTTEN, pk__in=wanted)
    return frozenset(
        entry_id
        for entry_id, candidate in candidates(rows).items()
        if decide(candidate.as_item(), reader, state, now) is None
    )


def recall_candidates(
    *, request: RecallRequest, entry_ids: Iterable[str] | None = None
) -> list[RecallCandidate]:
    """Every entry of the scope kinds the request can reach, but forgotten ones: what
    `recall_resolve` returns the same entries as, without reading them all. `entry_ids`
    narrows the read to those entries (an entity's, or what held at a time)."""
    rows = member_rows(request.user_id, REACHABLE_KINDS[request.scope.kind])
    if entry_ids is not None:
        rows = rows.filter(pk__in=sorted(entry_ids))
    return list(candidates(rows.filter(NOT_FORGOTTEN), many=True).values())


def member_candidates(*, member_id) -> list[RecallCandidate]:
    """Every entry of the member as a candidate, whatever its lifecycle, scope or hold,
    but forgotten ones (never there for a recall)."""
    rows = member_rows(member_id).filter(NOT_FORGOTTEN)
    return list(candidates(rows, many=True).values())


def recall_reference(
    *,
    request: RecallRequest,
    now: datetime,
    semantic: SemanticFn | None = None,
    blend: Blend | str | None = None,
) -> RecallResult:
    """The straightforward reference: `member_candidates` through the pure pipeline,
    with the member's full corpus statistics."""
    return resolve(
        member_candidates(member_id=request.user_id),
        request,
        now,
        semantic=semantic,
        blend=blend,
        corpus_stats=corpus_stats_get(member_id=request.user_id),
    )
