"""The stem index and the corpus statistics: written by the write path and erasure,
read by every recall.

The index a write maintains costs in proportion to the entry's own stems: its postings
(`MemoryEntryTerm`, one small row per stem), `F()` increments of its stems' document
frequencies in the member's vocabulary (`MemoryStem`) and of one of the member's few
counter shards (`MemoryCorpusShard`, picked by the entry's id, summed at read), so no
row is rewritten by every write of a member (`corpus_stats_apply`, `entry_terms_index`).
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Exists, F, OuterRef

from memory.enums import Lifecycle
from memory.models import MemoryCorpusShard, MemoryEntry, MemoryEntryTerm, MemoryStem
from memory.recall import CorpusStats, TermStats

from .bounds import NO_BOUNDS, Bounds, posting_bounds, posting_counts
from .sql import (
    ENDED_PAUSE,
    TOTALS,
    VOCABULARY,
    postings_delete_statement,
    shards_upsert_statement,
    statistics_statement,
    stems_upsert_statement,
)

# Each entry counts in one of this many counter rows of its member (by its id), so no
# row is rewritten by every write of a member; a recall sums them.
CORPUS_SHARDS = 8


def corpus_shard(entry_id) -> int:
    return uuid.UUID(str(entry_id)).int % CORPUS_SHARDS


def stem_key(stem: str) -> str:
    """The stem's vocabulary key: the stem itself, or, past `MemoryStem.KEY_LENGTH`, a
    prefix and a digest of the whole stem (distinct stems stay distinct keys)."""
    if len(stem) <= MemoryStem.KEY_LENGTH:
        return stem
    return stem[:32] + hashlib.sha256(stem.encode()).hexdigest()[:32]


# --- reads ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Vocabulary:
    """The member's vocabulary rows of a query's stems."""

    ids: dict[str, int]  # term → row id (every stem with a posting)
    frequency: dict[str, int]  # term → document frequency (stems entries hold as their own)
    bounds: dict[str, Bounds]  # term → its bounds over postings


def statistics_query(
    member_id, terms: Iterable[str], *, ended_by: datetime | None = None
) -> tuple[str, list, dict[str, str]]:
    """`statistics`'s statement, its parameters and the stems it asks for by key (for
    `statistics_of`), to run alone or beside another read (`sql.reads_statement`)."""
    keys = {stem_key(term): term for term in terms}
    statement, params = statistics_statement(member_id, sorted(keys), ended_by)
    return statement, params, keys


def statistics_of(
    rows: Iterable[tuple], keys: Mapping[str, str]
) -> tuple[tuple[int, int, int], Vocabulary, list[str]]:
    """`statistics` from the rows of its statement (rows of other parts are skipped)."""
    totals = (0, 0, 0)
    found = Vocabulary({}, {}, {})
    ended = []
    for part, key, _, _, _, *numbers in rows:
        if part == TOTALS:  # the shards' sums (NULL when the member has none)
            totals = (int(numbers[0] or 0), int(numbers[1] or 0), int(numbers[2] or 0))
        elif part == ENDED_PAUSE:
            ended.append(str(uuid.UUID(key)))
        elif part == VOCABULARY:
            stem_id, n, *bounds = numbers
            term = keys[key]
            found.ids[term] = stem_id
            found.bounds[term] = tuple(bounds)
            if n > 0:
                found.frequency[term] = n
    return totals, found, ended


def statistics(
    member_id, terms: Iterable[str], *, ended_by: datetime | None = None
) -> tuple[tuple[int, int, int], Vocabulary, list[str]]:
    """The member's document count and total lengths (summed over their counter shards),
    their vocabulary rows of ``terms`` and, with ``ended_by``, the ids of their paused
    entries whose timed pause has ended by then (the gate sees those as active, and they
    are in neither stream's index: a recall loads them whatever the streams list). One
    statement, raw (`sql.statistics_statement`: the ORM spends longer building the three
    reads than the database spends answering them); a recall reads it beside the audit's
    counts (`plan.recall_resolve`)."""
    statement, params, keys = statistics_query(member_id, terms, ended_by=ended_by)
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return statistics_of(cursor.fetchall(), keys)


def corpus_stats_get(*, member_id, terms: Iterable[str] | None = None) -> CorpusStats:
    """The member's corpus statistics: the document count and total lengths summed over
    the member's shards, and the document frequency of ``terms`` (all a BM25 recall
    reads), or of every stem."""
    (count, length, context), vocabulary, _ = statistics(member_id, terms or ())
    if terms is None:
        rows = MemoryStem.objects.filter(member_id=member_id, document_frequency__gt=0)
        frequency = {
            long_stem or key: n
            for key, long_stem, n in rows.values_list("key", "long_stem", "document_frequency")
        }
    else:
        frequency = vocabulary.frequency
    return CorpusStats(
        document_count=count,
        total_length=length,
        total_context_length=context,
        document_frequency=frequency,
    )


# --- writes -----------------------------------------------------------------------------


def entry_terms_rows(entry: MemoryEntry, ids: Mapping[str, int]) -> list[MemoryEntryTerm]:
    """An entry's postings from its stored term statistics (one row per stem), naming
    their stems by the member's vocabulary rows (``ids``: key → row id)."""
    if not entry.term_stats:
        return []
    stats = TermStats.from_json(entry.term_stats)
    return [
        MemoryEntryTerm(
            entry_id=entry.pk,
            stem_id=ids[stem_key(stem)],
            own_count=own,
            context_count=context,
            length=stats.length,
            context_length=stats.context_length,
        )
        for stem, (own, context) in sorted(posting_counts(stats).items())
    ]


def member_index_load(*, member_id, entries: Sequence[MemoryEntry], insert=None) -> int:
    """Build a member's whole index at once for entries stored beside the write path (a
    benchmark's seed, a test's fixture): vocabulary with document frequencies, counter
    shards and postings. ``insert(model, rows)`` bulk-inserts the postings (default:
    `bulk_create`); returns how many there are."""
    frequency: Counter[str] = Counter()
    vocabulary: dict[str, str] = {}  # key → stem
    shards: dict[int, list[int]] = {}
    live = [e for e in entries if e.term_stats and e.lifecycle != Lifecycle.TOMBSTONED]
    for entry in live:
        stats = TermStats.from_json(entry.term_stats)
        frequency.update({stem_key(stem) for stem in stats.terms})
        vocabulary.update({stem_key(s): s for s in (*stats.terms, *stats.context_terms)})
        shard = shards.setdefault(corpus_shard(entry.pk), [0, 0, 0])
        shard[0] += 1
        shard[1] += stats.length
        shard[2] += stats.context_length
    bounds = posting_bounds(live)
    MemoryStem.objects.bulk_create(
        [
            _stem_row(member_id, stem, frequency[key], bounds[stem])
            for key, stem in sorted(vocabulary.items())
        ],
        batch_size=2000,
    )
    MemoryCorpusShard.objects.bulk_create(
        MemoryCorpusShard(
            member_id=member_id,
            shard=number,
            document_count=count,
            total_length=length,
            total_context_length=context,
        )
        for number, (count, length, context) in sorted(shards.items())
    )
    ids = dict(MemoryStem.objects.filter(member_id=member_id).values_list("key", "id"))
    postings = [row for entry in live for row in entry_terms_rows(entry, ids)]
    if insert is None:
        MemoryEntryTerm.objects.bulk_create(postings, batch_size=2000)
    else:
        insert(MemoryEntryTerm, postings)
    return len(postings)


def _stem_row(
    member_id, stem: str, document_frequency: int = 0, bounds: Bounds | None = None
) -> MemoryStem:
    key = stem_key(stem)
    own, context, length, context_length = bounds or NO_BOUNDS
    return MemoryStem(
        member_id=member_id,
        key=key,
        long_stem=stem if key != stem else "",
        document_frequency=document_frequency,
        max_own_count=own,
        max_context_count=context,
        min_length=length,
        min_context_length=context_length,
    )


def _stems_upsert(
    member_id, deltas: Mapping[str, int], bounds: Mapping[str, Bounds] | None = None
) -> None:
    """Add ``deltas`` (stem → document frequency change) to the member's vocabulary rows
    and widen their posting bounds to ``bounds`` (stem → bounds of new postings),
    creating the missing rows: one statement (`sql.stems_upsert_statement`), the
    increments atomic (``document_frequency + excluded.document_frequency``,
    ``GREATEST``/``LEAST``), a row written only when it changes."""
    bounds = bounds or {}
    stems = sorted(set(deltas) | set(bounds))
    rows = {
        row.key: row
        for row in (_stem_row(member_id, s, deltas.get(s, 0), bounds.get(s)) for s in stems)
    }
    if not rows:
        return
    statement, params = stems_upsert_statement(member_id, [rows[key] for key in sorted(rows)])
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def _stem_rows(member_id, bounds: Mapping[str, Bounds]) -> dict[str, int]:
    """The member's vocabulary rows of the stems of ``bounds`` (created when missing,
    their posting bounds widened): key → id."""
    if not bounds:
        return {}
    _stems_upsert(member_id, {}, bounds)
    keys = sorted({stem_key(stem) for stem in bounds})
    return dict(
        MemoryStem.objects.filter(member_id=member_id, key__in=keys).values_list("key", "id")
    )


def _stems_prune(member_id, stem_ids: Iterable[int]) -> None:
    """Delete vocabulary rows no entry holds any more (no document frequency, no
    posting): the stems of a forgotten memory do not outlive it."""
    stem_ids = sorted(set(stem_ids))
    if not stem_ids:
        return
    postings = MemoryEntryTerm.objects.filter(stem_id=OuterRef("pk"))
    MemoryStem.objects.filter(member_id=member_id, pk__in=stem_ids, document_frequency=0).exclude(
        Exists(postings)
    ).delete()


def entry_terms_index(*, member_id, entries: Sequence[MemoryEntry]) -> None:
    """(Re)write these entries' postings from their current `term_stats`, all of them in
    a few statements whatever their number; a forgotten entry keeps none. Call wherever
    `term_stats` or the lifecycle becomes tombstoned."""
    entries = list(entries)
    if not entries:
        return
    field = MemoryEntryTerm._meta.get_field("entry")
    keys = [field.get_db_prep_value(entry.pk, connection) for entry in entries]
    with connection.cursor() as cursor:
        cursor.execute(postings_delete_statement(keys), keys)
        old = [stem_id for (stem_id,) in cursor.fetchall()]
    live = [e for e in entries if e.lifecycle != Lifecycle.TOMBSTONED and e.term_stats]
    ids = _stem_rows(member_id, posting_bounds(live))
    MemoryEntryTerm.objects.bulk_create(
        [row for entry in live for row in entry_terms_rows(entry, ids)], batch_size=2000
    )
    _stems_prune(member_id, old)


def entry_terms_drop(*, member_id, entry_ids: Iterable) -> int:
    """Drop these entries' postings (an erasure), and the stems no entry holds any more."""
    entry_ids = sorted({str(i) for i in entry_ids})
    if not entry_ids:
        return 0
    postings = MemoryEntryTerm.objects.filter(entry__member_id=member_id, entry_id__in=entry_ids)
    stems = list(postings.values_list("stem_id", flat=True))
    count, _ = postings.delete()
    _stems_prune(member_id, stems)
    return count


def corpus_stats_apply(
    *,
    member_id,
    added: Iterable[tuple[object, Mapping]] = (),
    removed: Iterable[tuple[object, Mapping]] = (),
) -> None:
    """Fold entries' term statistics, as (entry id, `term_stats`) pairs, into (or out of)
    the member's corpus: `F()` increments of the vocabulary rows of their own stems and
    of the counter shard each entry's id picks, nothing else, so a write costs in
    proportion to its own stems and concurrent writes never lose an update."""
    frequency: Counter[str] = Counter()
    shards: dict[int, list[int]] = {}
    for sign, items in ((1, added), (-1, removed)):
        for entry_id, data in items:
            if not data:
                continue
            stats = TermStats.from_json(data)
            frequency.update({stem: sign for stem in stats.terms})
            shard = shards.setdefault(corpus_shard(entry_id), [0, 0, 0])
            shard[0] += sign
            shard[1] += sign * stats.length
            shard[2] += sign * stats.context_length
    shards = {k: v for k, v in shards.items() if any(v)}
    if shards:
        statement, params = shards_upsert_statement(member_id, shards)
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
    # Rises in one upsert; falls (rows that exist) by `F()` updates, one per amount.
    _stems_upsert(member_id, {stem: d for stem, d in frequency.items() if d > 0})
    by_delta: dict[int, list[str]] = {}
    for stem, delta in sorted(frequency.items()):
        if delta < 0:
            by_delta.setdefault(delta, []).append(stem)
    for delta, stems in sorted(by_delta.items()):
        keys = sorted({stem_key(stem) for stem in stems})
        MemoryStem.objects.filter(member_id=member_id, key__in=keys).update(
            document_frequency=F("document_frequency") + delta
        )
    falling = sorted({stem_key(s) for d, stems in by_delta.items() if d < 0 for s in stems})
    if falling:
        ids = MemoryStem.objects.filter(member_id=member_id, key__in=falling)
        _stems_prune(member_id, ids.values_list("id", flat=True))
