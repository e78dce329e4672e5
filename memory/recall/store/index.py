"""The stem index and the corpus statistics: written by the write path and erasure,
read by every recall.

The index a write maintains costs in proportion to the entry's own stems: its postings
(`MemoryEntryTerm`, one small row per stem), `F()` increments of its stems' document
frequencies in the member's vocabulary (`MemoryStem`) and of one of the member's few
counter shards (`MemoryCorpusShard`, picked by the entry's id, summed at read), so no
row is rewritten by every write of a member (`corpus_stats_apply`, `entry_terms_index`).

The index holds no words (issue 45): a stem is named everywhere it is stored — the
vocabulary's `MemoryStem.key`, the keys of an entry's `term_stats`, hence the postings
— by the member's keyed token of it (`iris_site.keys.envelope.member_tokens`, an HMAC
under a key derived from the member's data key: the same stem gives the same token for
that member only, and nothing once their keys are destroyed). A recall names its
query's stems the same way (`MemberTermKey`, one key-store read per recall). Statistics
stored before this change name stems in clear: `member_index_rekey` re-indexes one
member's entries with tokens (resumable, idempotent), and the writes here key any such
statistics they are handed to add.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef

from iris_site.keys.envelope import member_tokens, read_tokens
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
    """The vocabulary key of a stored term: the term itself (a keyed token is 22
    characters), or, past `MemoryStem.KEY_LENGTH`, a prefix and a digest of the whole
    term (only a long stem an index written before keyed tokens holds)."""
    if len(stem) <= MemoryStem.KEY_LENGTH:
        return stem
    return stem[:32] + hashlib.sha256(stem.encode()).hexdigest()[:32]


# --- keyed tokens -----------------------------------------------------------------------


class MemberTermKey:
    """Names a member's stems by their keyed tokens (`rankers.TermKey`), each asked of
    the key store once: a recall's analysis, ranking and rationale read the key store
    once between them. The stems live only in this object, in process memory."""

    def __init__(self, member_id) -> None:
        self.member_id = str(member_id)
        self._known: dict[str, str] = {}

    def __call__(self, stems: Iterable[str]) -> dict[str, str]:
        stems = list(dict.fromkeys(stems))
        missing = [stem for stem in stems if stem not in self._known]
        if missing:
            self._known.update(read_tokens(self.member_id, missing))
        return {stem: self._known[stem] for stem in stems}


def term_stats_keyed(member_id, stats: Sequence[TermStats]) -> list[TermStats]:
    """``stats`` with every stem named by the member's keyed token (one key-store read
    for all of them); already keyed ones unchanged."""
    plain = {stem for item in stats if not item.keyed for stem in item.stems()}
    if not plain:
        return list(stats)
    keys = member_tokens(member_id, sorted(plain))
    return [item.keyed_by(keys) for item in stats]


def _keyed_data(member_id, data: Mapping) -> Mapping:
    if not data or data.get("keyed"):
        return data
    return term_stats_keyed(member_id, [TermStats.from_json(data)])[0].to_json()


def _entries_keyed(member_id, entries: Sequence[MemoryEntry]) -> None:
    """Key the statistics of entries stored with stems in clear (a fixture, a benchmark's
    seed, a row written before keyed tokens), on the instances and their rows: the
    postings are built from tokens, so the row must name its stems alike. Nothing to do
    (no statement, no key-store read) for entries the write path stored."""
    plain = [e for e in entries if e.term_stats and not e.term_stats.get("keyed")]
    if not plain:
        return
    keyed = term_stats_keyed(member_id, [TermStats.from_json(e.term_stats) for e in plain])
    for entry, stats in zip(plain, keyed, strict=True):
        entry.term_stats = stats.to_json()
    MemoryEntry.objects.bulk_update(plain, ["term_stats"], batch_size=1000)


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
    """`statistics`'s statement, its parameters and the terms (keyed tokens) it asks for
    by key (for `statistics_of`), to run alone or beside another read
    (`sql.reads_statement`)."""
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
    the member's shards, and the document frequency of the stems ``terms`` (all a BM25
    recall reads), or of every stem, by keyed token; with the member's `MemberTermKey`,
    which names a query's stems alike (`rankers.query_keys`)."""
    term_key = MemberTermKey(member_id)
    keys = sorted(set(term_key(terms).values())) if terms else ()
    (count, length, context), vocabulary, _ = statistics(member_id, keys)
    if terms is None:
        rows = MemoryStem.objects.filter(member_id=member_id, document_frequency__gt=0)
        frequency = dict(rows.values_list("key", "document_frequency"))
    else:
        frequency = vocabulary.frequency
    return CorpusStats(
        document_count=count,
        total_length=length,
        total_context_length=context,
        document_frequency=frequency,
        term_key=term_key,
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
    `bulk_create`); returns how many there are. Entries stored with stems in clear are
    keyed first, rows included (`_entries_keyed`)."""
    frequency: Counter[str] = Counter()
    vocabulary: dict[str, str] = {}  # key → stem
    shards: dict[int, list[int]] = {}
    live = [e for e in entries if e.term_stats and e.lifecycle != Lifecycle.TOMBSTONED]
    _entries_keyed(member_id, live)
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
    own, context, length, context_length = bounds or NO_BOUNDS
    # No whole stem beside its key any more (`long_stem`): a keyed token fits the key.
    return MemoryStem(
        member_id=member_id,
        key=stem_key(stem),
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
    `term_stats` or the lifecycle becomes tombstoned. Statistics with stems in clear are
    keyed first, rows included (`_entries_keyed`)."""
    entries = list(entries)
    if not entries:
        return
    _entries_keyed(
        member_id, [e for e in entries if e.lifecycle != Lifecycle.TOMBSTONED and e.term_stats]
    )
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
    proportion to its own stems and concurrent writes never lose an update.

    What is added is counted by keyed token (statistics with stems in clear are keyed
    here, and `entry_terms_index` keys their rows); what is removed, by the keys it was
    stored with (an entry stored before keyed tokens was counted by its stems)."""
    frequency: Counter[str] = Counter()
    shards: dict[int, list[int]] = {}
    for sign, items in ((1, added), (-1, removed)):
        for entry_id, data in items:
            if not data:
                continue
            if sign > 0:
                data = _keyed_data(member_id, data)
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


# --- re-indexing an index written before keyed tokens -----------------------------------


def member_index_rekey(*, member_id, batch_size: int = 500) -> int:
    """Re-index one member's entries whose statistics still name stems in clear (stored
    before keyed tokens) with the member's keyed tokens: each such entry's `term_stats`
    rewritten, its stems' document frequencies moved from the stem's vocabulary row to
    the token's, its postings rewritten, and the stem rows no entry holds any more
    deleted. Returns how many entries it re-keyed (0: nothing left to do).

    For the in-place migration (issue 45). Idempotent and resumable: an entry's work and
    its statistics' ``keyed`` mark commit together, ``batch_size`` entries a transaction
    (their rows locked against a concurrent edit), so a run stopped anywhere loses
    nothing and the next picks up the entries not yet keyed. The write path and recalls
    keep working meanwhile (an entry not yet re-keyed is not found by its words until it
    is). The counts move exactly (the same `F()` increments as a write), so the corpus
    statistics stay those of the member's entries."""
    rekeyed = 0
    while True:
        with transaction.atomic():
            rows = (
                # Statistics with stems in clear: no ``keyed`` mark (only ever True).
                MemoryEntry.objects.filter(member_id=member_id, term_stats__keyed__isnull=True)
                .exclude(term_stats={})
                .order_by("pk")
                .only("id", "member_id", "lifecycle", "term_stats")
                .select_for_update()[:batch_size]
            )
            entries = [e for e in rows if e.term_stats and not e.term_stats.get("keyed")]
            if not entries:
                break
            plain = [(e.pk, e.term_stats) for e in entries]
            keyed = term_stats_keyed(member_id, [TermStats.from_json(data) for _, data in plain])
            live = [e for e in entries if e.lifecycle != Lifecycle.TOMBSTONED]
            live_ids = {e.pk for e in live}
            corpus_stats_apply(
                member_id=member_id,
                removed=[(pk, data) for pk, data in plain if pk in live_ids],
            )
            for entry, stats in zip(entries, keyed, strict=True):
                entry.term_stats = stats.to_json()
            MemoryEntry.objects.bulk_update(entries, ["term_stats"], batch_size=1000)
            corpus_stats_apply(member_id=member_id, added=[(e.pk, e.term_stats) for e in live])
            entry_terms_index(member_id=member_id, entries=live)
            rekeyed += len(entries)
    # Stems a removal left without a count or a posting (none, when the counts held).
    left = MemoryStem.objects.filter(member_id=member_id, document_frequency=0)
    _stems_prune(member_id, left.values_list("id", flat=True))
    return rekeyed
