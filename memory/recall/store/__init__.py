"""The storage side of recall: fetching candidates, the stem index, corpus statistics.

The index a write maintains costs in proportion to the entry's own stems: its postings
(`MemoryEntryTerm`, one small row per stem), `F()` increments of its stems' document
frequencies in the member's vocabulary (`MemoryStem`) and of one of the member's few
counter shards (`MemoryCorpusShard`, picked by the entry's id, summed at read), so no
row is rewritten by every write of a member (`corpus_stats_apply`, `entry_terms_index`).

The pure pipeline (`memory.recall`) decides; this module feeds it from the database.

`recall_resolve` is the production path. It hands the pipeline a shortlist instead of
every live entry of the member, chosen so that the returned entries are exactly what
the pipeline returns over all of them (same ids, order, scores and rationales):

1. Under BM25 an entry that shares no stem with the query has semantic factor 0, so its
   score is a non-decreasing function of its weighted prior (recency, references,
   origin); any entry scores at most the blend of an upper bound of its semantic
   factor and an upper bound of its prior (`_Shape.bound`).
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
     falls with the recency anchor, a class read deeper only while its next row could
     still win (PostgreSQL; elsewhere one sort).
3. A prefix of each stream is loaded, with every live entry sharing a conflict key with
   a loaded one (dedupe must see whole clusters) in the same statement, and the pipeline
   runs on it.
4. The result stands only if its last entry beats the best score any entry outside the
   shortlist could reach (the streams' bounds, widened by a margin far above the
   floating-point disagreement between SQL and Python); otherwise the blocking stream
   grows and it runs again: while the result is short of entries, only the matching
   stream (the cheapest rows to fill it with), then the others. Exhausted streams
   bound nothing, and past a number of rounds every live entry is read, so the loop
   always ends, always exact.

What is read, and what the audit envelope counts:

- Kinds the read gate withholds as a whole (`memory.access.gate.kind_reason`: not on the
  reader's allow-list, a missing base consent or an opt-out, a pending full clear, off the
  record) are in no stream and never read row by row: one aggregate query counts the
  member's rows of those kinds in reach (tenant boundary and reachability in SQL,
  forgotten rows excluded) under the gate's reason for the kind. When every reachable
  kind is withheld no ranking query runs at all.
- Of the other reachable kinds the shortlist loads, and the pipeline gates one by one
  and counts under the first reason it fails: every entry the matching stream lists in
  the prefix read, whatever its lifecycle or hold (paused, draft and superseded entries
  under their suppression's reason or `lifecycle-<state>`, held ones under
  `deletion-hold`; forgotten entries have no postings); the best active entries by prior
  (held ones among them; the prior index holds active rows only); every paused entry
  whose timed pause has ended by the recall's `now` (the gate sees it as active, so the
  store reads it whatever the caller did; `recall_run` resumes such entries first); the
  live entries sharing a conflict key with a loaded one. A crisis frame, where
  nearly everything is withheld, loads every entry that survives it instead.

So `suppression_counts` is exact for the kind-level reasons and, for the rest, covers
what the shortlist read; `evaluated_count` is the kind-level count plus the shortlist's
size. A match the shortlist did not read (past the prefix it needed, or holding only the
query's common stems) is not counted, nor is a row out of reach.
"""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from collections import Counter, namedtuple
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from django.db import connection
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    FloatField,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Exp, Greatest, Least

from iris_site.rawsql import RowReader, bound_cursor, member_param, one_of, values_of
from memory.access.gate import ContentKind, MemberState, Reader, decide, kind_reason
from memory.enums import SENSITIVE_CATEGORIES, Lifecycle, MemoryCategory, ScopeKind
from memory.models import (
    MemoryCorpusShard,
    MemoryDeletionHold,
    MemoryEntry,
    MemoryEntryTerm,
    MemoryStem,
)
from memory.models.ranking import NO_POSTING_LENGTH
from memory.recall import (
    BM25,
    DEFAULT_BLEND,
    AdditiveBlend,
    Blend,
    CorpusStats,
    MultiActor,
    ProvenanceLink,
    RecallCandidate,
    RecallRequest,
    RecallResult,
    RelevanceFirstBlend,
    ScopeKey,
    Suppression,
    TermStats,
    blend_named,
    bm25,
    budget_for,
    query_terms,
    resolve,
)
from memory.recall.pipeline import (
    CRISIS_FRAME,
    DELETION_HOLD,
    MULTI_ACTOR_SENSITIVE_CONTEXTS,
    ORIGIN_WEIGHTS,
    RECENCY_TIME_CONSTANT,
    REFERENCE_SATURATION,
    SCOPE_MISMATCH,
    SENSITIVE_CONTEXTS,
    SENSITIVE_OUTSIDE_CONTEXT,
    SENSITIVE_WITHOUT_CONSENT,
    TENANT_MISMATCH,
)
from memory.recall.rankers import SemanticFn

# Which stored scope kinds a recall in each kind can possibly reach; the pipeline's
# reachability stage then checks the identifiers. Filtering here keeps unreachable
# rows out of the query instead of loading and discarding them.
REACHABLE_KINDS: dict[str, tuple[str, ...]] = {
    ScopeKind.PROFILE: (ScopeKind.PROFILE,),
    ScopeKind.SESSION: (ScopeKind.SESSION, ScopeKind.PROFILE),
    ScopeKind.SCENE: (ScopeKind.SCENE, ScopeKind.SESSION, ScopeKind.PROFILE),
    ScopeKind.POSE: (ScopeKind.POSE, ScopeKind.SCENE, ScopeKind.SESSION, ScopeKind.PROFILE),
    ScopeKind.NOTEBOOK: (ScopeKind.NOTEBOOK, ScopeKind.PROFILE, ScopeKind.TENANT),
    ScopeKind.CRISIS: tuple(
        k for k in ScopeKind.values if k not in (ScopeKind.OPERATOR_COPILOT, ScopeKind.TENANT)
    ),
    ScopeKind.OPERATOR_COPILOT: (ScopeKind.OPERATOR_COPILOT,),
    ScopeKind.TENANT: (ScopeKind.TENANT,),
}

CANDIDATE_COLUMNS = (
    "id",
    "revision_id",
    "member_id",
    "tenant_id",
    "scope_kind",
    "session_id",
    "scene_id",
    "room_id",
    "pose_id",
    "avatar_id",
    "notebook_id",
    "operator_id",
    "category",
    "subject",
    "body",
    "origin",
    "lifecycle",
    "updated_at",
    "term_stats",
    "suppression_reason",
    "suppression_ends_at",
    "actor_handle",
    "relationship_note",
    "sensitive_interaction",
    "provenance_chain",
    "reference_count",
    "last_referenced_at",
    # The entry's deletion hold (its key, through a join on the primary key), if held.
    "deletion_hold",
)
# A row as `values_list(*CANDIDATE_COLUMNS)` gives it: building a model instance per
# candidate costs more than the rest of the recall.
_CandidateRow = namedtuple("_CandidateRow", CANDIDATE_COLUMNS)


def _text(value) -> str | None:
    return str(value) if value else None


def candidate_of(row: _CandidateRow) -> RecallCandidate:
    """One stored entry, as `values_list(*CANDIDATE_COLUMNS)` reads it, as the pure
    pipeline's candidate."""
    member, tenant = str(row.member_id), _text(row.tenant_id)
    return RecallCandidate(
        entry_id=str(row.id),
        revision_id=str(row.revision_id),
        user_id=member,
        tenant_id=tenant,
        scope=ScopeKey(
            kind=row.scope_kind,
            user_id=member,
            session_id=row.session_id or None,
            scene_id=row.scene_id or None,
            room_id=row.room_id or None,
            pose_id=row.pose_id or None,
            avatar_id=row.avatar_id or None,
            notebook_id=row.notebook_id or None,
            operator_id=_text(row.operator_id),
            tenant_id=tenant,
        ),
        category=row.category,
        subject=row.subject,
        body=row.body,
        origin=row.origin,
        lifecycle=row.lifecycle,
        updated_at=row.updated_at,
        term_stats=TermStats.from_json(row.term_stats),
        suppression=Suppression(row.suppression_reason, row.suppression_ends_at)
        if row.suppression_reason
        else None,
        multi_actor=MultiActor(row.actor_handle, row.relationship_note, row.sensitive_interaction)
        if row.actor_handle
        else None,
        provenance_chain=tuple(
            ProvenanceLink(link["kind"], link["ref"], link["captured_at"])
            for link in row.provenance_chain
        ),
        reference_count=row.reference_count,
        last_referenced_at=row.last_referenced_at,
        held=row.deletion_hold is not None,
    )


# What a recall can weigh at all: a forgotten (tombstoned) entry is never there.
_NOT_FORGOTTEN = ~Q(lifecycle=Lifecycle.TOMBSTONED)


def _member_rows(member_id, kinds: Iterable[str] | None = None) -> QuerySet[MemoryEntry]:
    rows = MemoryEntry.objects.filter(member_id=member_id).order_by()
    return rows if kinds is None else rows.filter(scope_kind__in=list(kinds))


def _pool(request: RecallRequest, kinds: Iterable[str]) -> QuerySet[MemoryEntry]:
    """The member's active rows of ``kinds`` (held ones included: the gate withholds
    them): every entry that can surface, but for ended timed pauses (which `_statistics`
    lists and a recall's first load reads). Served by the `memory_recall_live`
    partial index. Built only where a recall reads it."""
    return _member_rows(request.user_id, kinds).filter(lifecycle=Lifecycle.ACTIVE)


@dataclass(frozen=True)
class _Reach:
    """The scope kinds a recall can reach, split by what the read gate says of each kind
    as a whole (`memory.access.gate.kind_reason`)."""

    kinds: tuple[str, ...]  # read row by row
    withheld: Mapping[str, str]  # kind → the gate's reason for withholding all of it


def _reach(request: RecallRequest, reader: Reader, state: MemberState) -> _Reach:
    kinds, withheld = [], {}
    for kind in REACHABLE_KINDS[request.scope.kind]:
        reason = kind_reason(ContentKind.ENTRY, kind, reader, state)
        if reason is None:
            kinds.append(kind)
        else:
            withheld[kind] = reason
    return _Reach(tuple(kinds), withheld)


def _withheld_counts(request: RecallRequest, reach: _Reach) -> dict[str, int]:
    """The member's rows in reach (tenant boundary, reachability) of the kinds the gate
    withholds as a whole, by the gate's reason: one aggregate query, no row read."""
    parts = _reach_parts(request)
    wanted = [parts[kind] for kind in reach.withheld if kind in parts]
    if not wanted or _canonical_uuid(request.user_id) is None:
        return {}
    in_reach = wanted[0]
    for part in wanted[1:]:
        in_reach |= part
    rows = (
        _member_rows(request.user_id)
        .filter(_NOT_FORGOTTEN, _tenant_ok(request), in_reach)
        .values_list("scope_kind")
        .annotate(n=Count("pk"))
    )
    counts: dict[str, int] = {}
    for kind, n in rows:
        reason = reach.withheld[kind]
        counts[reason] = counts.get(reason, 0) + n
    return counts


def _candidates(rows: QuerySet[MemoryEntry], *, many: bool = False) -> dict[str, RecallCandidate]:
    """The rows' candidates by entry id, read as plain tuples (``many``: in batches)."""
    found = {}
    values_list = rows.values_list(*CANDIDATE_COLUMNS)
    for values in values_list.iterator(2000) if many else values_list:
        candidate = candidate_of(_CandidateRow._make(values))
        found[candidate.entry_id] = candidate
    return found


# The candidate columns but the hold's key (only tested for presence), read raw.
_ENTRY_ROWS = RowReader(MemoryEntry, CANDIDATE_COLUMNS[:-1])


def _lifecycle_literal(value: Lifecycle) -> str:
    # A lifecycle as SQL text: a constant of the code, of lowercase letters only.
    if not re.fullmatch(r"[a-z]+", value.value):
        raise ValueError(f"not a plain lifecycle: {value.value!r}")
    return f"'{value.value}'"


@lru_cache(maxsize=256)
def _entries_statement(vendor: str, kinds: int, ids: int) -> str:
    """`_entries_load`'s statement for ``kinds`` scope kinds and ``ids`` listed ids (one
    text per count on SQLite; one on PostgreSQL, whose arrays take any number): the same
    text each time, so PostgreSQL can keep its plan (a prepared statement) instead of
    planning it again on every recall. (It used to list the ended timed pauses itself,
    by a range whose size PostgreSQL cannot know before the instant is bound: it judged
    any kept plan dearer and planned the first load of every recall anew, about half a
    millisecond each time. `_statistics` lists them now.)"""
    fields = MemoryEntry._meta
    quote = connection.ops.quote_name
    tombstoned, active = (
        _lifecycle_literal(Lifecycle.TOMBSTONED),
        _lifecycle_literal(Lifecycle.ACTIVE),
    )

    def column(name: str) -> str:
        return f"e.{quote(fields.get_field(name).column)}"

    hold = MemoryDeletionHold._meta
    hold_key = quote(hold.get_field("entry").column)
    selected = (
        f"{_ENTRY_ROWS.select('e')}, (SELECT h.{hold_key} FROM {quote(hold.db_table)} h"  # noqa: S608 - fixed names
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


def _entries_load(
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
    them."""
    if not entry_ids:
        return {}
    entry_field = MemoryEntry._meta.get_field("id")
    ids = [entry_field.get_db_prep_value(uuid.UUID(str(i)), connection) for i in entry_ids]
    statement = _entries_statement(connection.vendor, len(kinds), len(ids))
    member = member_param(MemoryEntry, request.user_id)
    params = [member, *values_of(kinds), *values_of(ids), member, *values_of(kinds)]
    found: dict[str, RecallCandidate] = {}
    with bound_cursor() as cursor:
        cursor.execute(statement, params)
        for row in cursor.fetchall():
            candidate = candidate_of(_CandidateRow(*_ENTRY_ROWS.values(row), row[-1]))
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
    rows = _member_rows(member_id).filter(_NOT_FORGOTTEN, pk__in=wanted)
    return frozenset(
        entry_id
        for entry_id, candidate in _candidates(rows).items()
        if decide(candidate.as_item(), reader, state, now) is None
    )


def recall_candidates(
    *, request: RecallRequest, entry_ids: Iterable[str] | None = None
) -> list[RecallCandidate]:
    """Every entry of the scope kinds the request can reach, but forgotten ones: what
    `recall_resolve` returns the same entries as, without reading them all. `entry_ids`
    narrows the read to those entries (an entity's, or what held at a time)."""
    rows = _member_rows(request.user_id, REACHABLE_KINDS[request.scope.kind])
    if entry_ids is not None:
        rows = rows.filter(pk__in=sorted(entry_ids))
    return list(_candidates(rows.filter(_NOT_FORGOTTEN), many=True).values())


def member_candidates(*, member_id) -> list[RecallCandidate]:
    """Every entry of the member as a candidate, whatever its lifecycle, scope or hold,
    but forgotten ones (never there for a recall)."""
    rows = _member_rows(member_id).filter(_NOT_FORGOTTEN)
    return list(_candidates(rows, many=True).values())


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


# --- gates in SQL ------------------------------------------------------------------

# Recall kinds that reach profile rows (`pipeline.is_reachable`).
_PROFILE_REACHERS = frozenset(
    {
        ScopeKind.PROFILE,
        ScopeKind.SESSION,
        ScopeKind.SCENE,
        ScopeKind.POSE,
        ScopeKind.NOTEBOOK,
        ScopeKind.CRISIS,
    }
)
# A condition true for every row, for a gate that drops everything it sees.
_EVERY_ROW = Q(pk__isnull=False)


def _canonical_uuid(value: str | None) -> str | None:
    """The value if it is the text the pipeline compares a stored UUID against (its
    canonical form), else None: a UUID column matches other spellings in SQL, while
    the pipeline's string comparison does not."""
    if not value:
        return None
    try:
        return value if str(uuid.UUID(value)) == value else None
    except ValueError:
        return None


def _reach_parts(request: RecallRequest) -> dict[str, Q]:
    """`pipeline.is_reachable` for stored rows, per stored scope kind (a kind absent is
    not reachable at all)."""
    scope, kind = request.scope, request.scope.kind
    parts: dict[str, Q] = {}
    if kind in _PROFILE_REACHERS:
        parts[ScopeKind.PROFILE] = Q(scope_kind=ScopeKind.PROFILE)
    if kind == ScopeKind.CRISIS:
        for target in (
            ScopeKind.SESSION,
            ScopeKind.SCENE,
            ScopeKind.POSE,
            ScopeKind.NOTEBOOK,
            ScopeKind.CRISIS,
        ):
            parts[target] = Q(scope_kind=target)
    if kind in (ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE):
        parts[ScopeKind.SESSION] = Q(scope_kind=ScopeKind.SESSION, session_id=scope.session_id)
    if kind in (ScopeKind.SCENE, ScopeKind.POSE):
        parts[ScopeKind.SCENE] = Q(
            scope_kind=ScopeKind.SCENE, session_id=scope.session_id, scene_id=scope.scene_id
        )
    if kind == ScopeKind.POSE:
        parts[ScopeKind.POSE] = Q(
            scope_kind=ScopeKind.POSE,
            session_id=scope.session_id,
            scene_id=scope.scene_id,
            pose_id=scope.pose_id,
        )
    if kind == ScopeKind.NOTEBOOK:
        parts[ScopeKind.NOTEBOOK] = Q(scope_kind=ScopeKind.NOTEBOOK, notebook_id=scope.notebook_id)
        if request.effective_tenant_id is not None:
            parts[ScopeKind.TENANT] = Q(scope_kind=ScopeKind.TENANT)
    if kind == ScopeKind.OPERATOR_COPILOT and (operator := _canonical_uuid(scope.operator_id)):
        parts[ScopeKind.OPERATOR_COPILOT] = Q(
            scope_kind=ScopeKind.OPERATOR_COPILOT, operator_id=operator
        )
    if kind == ScopeKind.TENANT and (tenant := _canonical_uuid(scope.tenant_id)):
        parts[ScopeKind.TENANT] = Q(scope_kind=ScopeKind.TENANT, tenant_id=tenant)
    return parts


def _reachable(request: RecallRequest) -> Q | None:
    """`pipeline.is_reachable` for stored rows, or None when nothing is reachable."""
    parts = list(_reach_parts(request).values())
    if not parts:
        return None
    reach = parts[0]
    for part in parts[1:]:
        reach |= part
    return reach


def _tenant_ok(request: RecallRequest) -> Q:
    """Rows that pass the tenant boundary: no tenant, or the recall's."""
    tenant = _canonical_uuid(request.effective_tenant_id)
    return Q(tenant_id__isnull=True) | Q(tenant_id=tenant) if tenant else Q(tenant_id=None)


def _gate_failures(request: RecallRequest, now: datetime) -> list[tuple[str | F, Q]]:
    """Stages 1-5 as (suppression-count key, failure condition) in the pipeline's
    order, for rows of `_pool` (active rows of the kinds the gate does not withhold as a
    whole): a row fails at the first condition it meets, and passes when it meets none."""
    failures: list[tuple[str | F, Q]] = []
    # 1. Tenant boundary.
    failures.append((TENANT_MISMATCH, ~_tenant_ok(request)))
    # 2. Reachability (the owner is the member by construction of the pool).
    reach = _reachable(request)
    failures.append((SCOPE_MISMATCH, _EVERY_ROW if reach is None else ~reach))
    # 3. Crisis frame.
    if request.crisis_frame:
        safe = Q(category=MemoryCategory.SAFETY)
        failures.append((CRISIS_FRAME, ~safe if request.safety_critical_context else _EVERY_ROW))
    # 4. Active suppression, under its own reason (lifecycle is active in the pool), then
    # the deletion hold.
    active = ~Q(suppression_reason="") & (
        Q(suppression_ends_at__isnull=True) | Q(suppression_ends_at__gt=now)
    )
    failures.append((F("suppression_reason"), active))
    failures.append((DELETION_HOLD, Q(deletion_hold__isnull=False)))
    # 5. Sensitive categories and sensitive multi-actor interactions, in the context the
    # reader may claim.
    context = request.reader().effective_context
    consented = request.consented_categories
    no_consent = sorted(c for c in SENSITIVE_CATEGORIES if c not in consented)
    off_context = sorted(
        c for c in SENSITIVE_CATEGORIES if c in consented and context not in SENSITIVE_CONTEXTS[c]
    )
    actor_sensitive = Q(sensitive_interaction=True) & ~Q(actor_handle="")
    consent_fail = [Q(category__in=no_consent)] if no_consent else []
    if not request.multi_actor_consented:
        consent_fail.append(actor_sensitive)
    context_fail = [Q(category__in=off_context)] if off_context else []
    if context not in MULTI_ACTOR_SENSITIVE_CONTEXTS:
        context_fail.append(actor_sensitive)
    for key, conditions in (
        (SENSITIVE_WITHOUT_CONSENT, consent_fail),
        (SENSITIVE_OUTSIDE_CONTEXT, context_fail),
    ):
        if conditions:
            condition = conditions[0]
            for other in conditions[1:]:
                condition |= other
            failures.append((key, condition))
    return failures


def _survivors(
    request: RecallRequest, pool: QuerySet[MemoryEntry], now: datetime
) -> QuerySet[MemoryEntry]:
    """Rows of ``pool`` that pass stages 1-5 of the pipeline (and only those)."""
    if _canonical_uuid(request.user_id) is None:
        # The pipeline compares the member's id as canonical text: nothing would match.
        return MemoryEntry.objects.none()
    rows = pool
    for _, condition in _gate_failures(request, now):
        if condition is _EVERY_ROW:
            return MemoryEntry.objects.none()
        rows = rows.exclude(condition)
    return rows


# --- ranking bounds ---------------------------------------------------------------------

# Far above the floating-point disagreement between SQL and Python (about 1e-15 on
# values in [0, 1]) and far below any score difference that matters.
BOUND_MARGIN = 1e-9


@dataclass(frozen=True)
class _Shape:
    """What the store needs to know of a blend: the prior's weights (recency,
    reference, origin) and the bound of step 1."""

    blend: Blend
    recency: float
    reference: float
    origin: float

    @property
    def best_prior(self) -> float:
        return self.recency + self.reference + self.origin

    def bound(self, semantic: float, prior: float, *, has_query: bool) -> float:
        """The best score of an entry whose semantic factor is at most ``semantic`` and
        whose weighted prior is at most ``prior`` (the blend is non-decreasing in both)."""
        blend = self.blend
        if not has_query:
            return prior  # the seed's blend with no semantic factor
        if isinstance(blend, RelevanceFirstBlend):
            share = min(1.0, prior / self.best_prior)
            raw = semantic * (1.0 + blend.lift * share) + blend.floor * share
            return raw / (1.0 + blend.lift + blend.floor)
        return blend.semantic * semantic + prior


def _shape(blend: Blend) -> _Shape | None:
    """The blend's shape, or None for a blend whose bounds the store cannot vouch for."""
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
    return _Shape(blend, prior.recency, prior.reference, prior.origin)


class _EpochSeconds(Func):
    """Seconds since 1970 of a timestamp (SQLite: from its stored UTC text). On
    PostgreSQL ``date_part``, in double precision, not ``EXTRACT``, which returns NUMERIC
    since PostgreSQL 14 (about half a microsecond more a row, thousands of rows a
    recall on a large member)."""

    output_field = FloatField()

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(
            compiler,
            connection,
            template="date_part('epoch', %(expressions)s)",
            **extra_context,
        )

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(
            compiler,
            connection,
            template="((julianday(%(expressions)s) - 2440587.5) * 86400.0)",
            **extra_context,
        )


def _prior_expression(shape: _Shape, now: datetime):
    """``w_r * recency + w_ref * references + w_o * origin`` in SQL, the factors as the
    pipeline computes them (recency from the last reference, else the last update)."""
    anchor = Coalesce("last_referenced_at", "updated_at")
    age = Greatest(Value(0.0), Value(now.timestamp()) - _EpochSeconds(anchor))
    recency = Exp(-age / Value(RECENCY_TIME_CONSTANT.total_seconds()))
    reference = Least(
        Value(1.0),
        Cast("reference_count", FloatField()) / Value(float(REFERENCE_SATURATION)),
    )
    origin = Case(
        *(When(origin=name, then=Value(float(weight))) for name, weight in ORIGIN_WEIGHTS.items()),
        default=Value(0.0),
        output_field=FloatField(),
    )
    return (
        Value(shape.recency) * recency
        + Value(shape.reference) * reference
        + Value(shape.origin) * origin
    )


# --- the streams ------------------------------------------------------------------------


@dataclass(frozen=True)
class _PriorClass:
    """One (partition, reference bucket, origin) class of the prior stream: its rows
    read (best first, ``depth`` plus the one after them when there are more) and how deep
    it was read."""

    rows: tuple[tuple[str, float], ...]
    depth: int

    @property
    def cut(self) -> float | None:
        """The bound of the class's unread rows: its last row's prior, when it has more."""
        return self.rows[-1][1] if len(self.rows) > self.depth else None


@dataclass(frozen=True)
class _Stream:
    """Entry ids ranked by a value (best first), and an upper bound of the value of every
    entry the stream did not list (None when it listed them all)."""

    ranked: list[tuple[str, float]]
    rest: float | None
    # The query's LIMIT cut the listing: past ``ranked`` the stream lists more entries.
    truncated: bool = False
    # The prior stream's classes on PostgreSQL (`_prior_stream`): what each one read.
    classes: Mapping[tuple, _PriorClass] | None = None

    def holds(self, size: int) -> bool:
        """Whether the first ``size`` ids and the value after them are in ``ranked``
        (else the stream must be read again, further)."""
        return len(self.ranked) > size or not self.truncated

    def prefix(self, size: int) -> tuple[list[str], float | None, float | None]:
        """The first ``size`` ids, the value of the next one listed (None if none) and
        the bound of the unlisted."""
        following = self.ranked[size][1] if len(self.ranked) > size else None
        return [entry_id for entry_id, _ in self.ranked[:size]], following, self.rest


def stem_key(stem: str) -> str:
    """The stem's vocabulary key: the stem itself, or, past `MemoryStem.KEY_LENGTH`, a
    prefix and a digest of the whole stem (distinct stems stay distinct keys)."""
    if len(stem) <= MemoryStem.KEY_LENGTH:
        return stem
    return stem[:32] + hashlib.sha256(stem.encode()).hexdigest()[:32]


def _idf(term: str, corpus: CorpusStats) -> float:
    # BM25's (Lucene's) idf, exactly as `rankers.BM25` computes it.
    n = corpus.document_frequency.get(term, 0)
    return math.log(1.0 + (corpus.document_count - n + 0.5) / (n + 0.5))


# A stem's bounds over postings: (highest own count, highest context count, shortest
# length, shortest context length); none yet for a stem without postings.
_Bounds = tuple[int, int, int, int]
_NO_BOUNDS: _Bounds = (0, 0, NO_POSTING_LENGTH, NO_POSTING_LENGTH)
_BOUND_COLUMNS = ("max_own_count", "max_context_count", "min_length", "min_context_length")


def _impact(ranker: BM25, corpus: CorpusStats, bounds: _Bounds) -> float:
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
class _Query:
    """A query's stems, rarest first, with their idf and the most a posting of each can
    weigh (`_impact`)."""

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
        bounds: Mapping[str, _Bounds],
    ) -> _Query:
        idf = {term: _idf(term, corpus) for term in terms}
        impact = {term: _impact(ranker, corpus, bounds.get(term, _NO_BOUNDS)) for term in idf}
        return cls(tuple(sorted(idf, key=lambda t: (-idf[t], t))), idf, impact, ranker.k1)

    def held_by(self, corpus: CorpusStats) -> int:
        """How many entries hold one of the query's stems, at most (whatever their
        lifecycle or scope)."""
        return sum(corpus.document_frequency.get(term, 0) for term in self.terms)

    def share(self, terms: Iterable[str]) -> float:
        """The most these stems can add to the semantic factor: a stem's BM25 term score
        stays below ``idf * impact``, and the factor divides by ``sum(idf * (k1 + 1))``."""
        total = sum(self.idf.values()) * (self.k1 + 1.0)
        return sum(self.idf[t] * self.impact[t] for t in terms) / total if total > 0 else 0.0


def _essential_count(query: _Query, corpus: CorpusStats, wanted: int, budget: int = 4000) -> int:
    """How many of the rarest stems to read postings for at first: those no entry states
    (nearly free), then as many as fit in ``budget`` postings by document frequency, at
    least one, and more while fewer entries hold them than the result's ``wanted``: their
    holders alone cannot fill it, and the next stem's would be read in the next round."""
    count, postings, reading = 0, 0, False
    for term in query.terms:
        frequency = corpus.document_frequency.get(term, 0)
        if frequency and reading and postings + frequency > budget and postings >= wanted:
            break
        postings += frequency
        reading = reading or frequency > 0
        count += 1
    return count


def _stem_weights(query: _Query, terms: Iterable[str], ids: Mapping[str, int]) -> dict[int, float]:
    """The vocabulary rows of ``terms`` by id, with their idf (a stem the member's
    vocabulary lacks has no posting)."""
    return {ids[term]: query.idf[term] for term in terms if term in ids}


class _Sql:
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
        # As `_EpochSeconds`: date_part is double precision, EXTRACT NUMERIC.
        if self.postgres:
            return f"date_part('epoch', {column})"
        return f"((julianday({column}) - 2440587.5) * 86400.0)"


def _matching_stream(
    shape: _Shape,
    now: datetime,
    ranker: BM25,
    corpus: CorpusStats,
    query: _Query,
    ids: Mapping[str, int],
    essential: int,
    size: int,
    depth: int,
    *,
    wanted: int,
    partitions: Sequence[tuple[str, str, str]] | None,
) -> _Stream:
    """Entries with a posting for one of the ``essential`` rarest stems, best first by
    their score as far as the postings tell it: BM25 over every query stem (the common
    stems' postings are only probed for these entries, never scanned for others:
    MaxScore) from the counts and lengths, blended with the entry's prior (its counters,
    read from the entry row by its key). An entry without any of those stems scores at
    most the common stems' share, which the caller bounds. ``ids``: the query stems'
    vocabulary rows, which scope the postings to the member. One raw query: the ORM
    would spend longer building it than the database spends running it.

    The ``depth`` entries with the highest BM25 are joined to their rows for the prior,
    and then, in the same statement, every further match (at most
    ``MATCHING_EXTRA_DEPTH``, best by BM25 first) that could still outscore the
    ``wanted``-th best of them that can surface: an active row of one of ``partitions``
    (`_prior_partitions`), a superset of what the read gate lets through, so that score
    is never below the one the recall ends with and the guess joins too few rather
    than too many. Where hundreds of entries hold the query's stems with nearly equal
    BM25 and only their priors tell them apart, they are joined at once instead of in a
    second, deeper statement. The score grows with both BM25 and the prior, so any
    entry not joined scores at most the blend of the highest BM25 of a match not joined
    (without a tail, the lowest joined: no lower) and the best prior, the stream's
    ``rest`` (None when every match was joined). A
    query stem held by thousands of entries is otherwise summed from its postings alone,
    never joined entry by entry. Which rows are joined only decides how soon the caller
    can certify its result, never what the result is."""
    ceiling = sum(query.idf.values()) * (ranker.k1 + 1.0)
    weights = _stem_weights(query, query.terms, ids)
    rare = sorted(_stem_weights(query, query.terms[:essential], ids))
    if ceiling <= 0 or not rare:
        return _Stream([], None)  # no entry holds a stem the stream lists
    sql = _Sql()
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
        if not isinstance(blend, RelevanceFirstBlend):
            return f"{n(blend.semantic)} * {relevance} + {prior}"
        share = f"{sql.least}({n(1.0)}, {prior} / {n(shape.best_prior)})"
        return (
            f"({relevance} * ({n(1.0)} + {n(blend.lift)} * {share})"
            f" + {n(blend.floor)} * {share}) / {n(1.0 + blend.lift + blend.floor)}"
        )

    blend = shape.blend

    def reaching(target: str) -> str:
        """The least BM25 total whose blend with the best prior reaches ``target`` (a
        hair lower: joining one match too many costs a row, never a result)."""
        if isinstance(blend, RelevanceFirstBlend):
            least = (
                f"({target} * {n(1.0 + blend.lift + blend.floor)} - {n(blend.floor)})"
                f" / {n(1.0 + blend.lift)}"
            )
        elif blend.semantic > 0:
            least = f"({target} - {n(shape.best_prior)}) / {n(blend.semantic)}"
        else:
            return n(-1.0)  # the semantic factor weighs nothing: any match may reach it
        return f"{least} * {n(ceiling * (1.0 - 1e-9))}"

    # The rows that can surface at all, for the threshold: active, in a reachable
    # partition (no partition listed: any active row).
    surfaces = f"e.lifecycle = {_lifecycle_literal(Lifecycle.ACTIVE)}"
    surface_params: list = []
    if partitions:
        each = "(e.scope_kind = %s AND e.session_id = %s AND e.notebook_id = %s)"
        surfaces += f" AND ({' OR '.join([each] * len(partitions))})"
        surface_params = [str(value) for partition in partitions for value in partition]
    origins = list(ORIGIN_WEIGHTS)
    # Rows past the prefix cost next to nothing here (all joined rows are ranked anyway)
    # and spare a second query when the gate withholds part of the prefix.
    fetch = MATCHING_READ_AHEAD * size + 1
    # A tail is only likely to be needed where more entries state the rare stems than
    # ``depth`` and, but for the commonest of them, too few to fill the prefix: the
    # result's last entries then hold that one stem alike and only their priors tell
    # them apart. So too where no common stem is left to lift the holders of two stems
    # above the rest and the two commonest stems read weigh nearly alike (`TIED_IDF`):
    # the holders of either then tie on BM25, however many hold the rarer. Else the
    # statement is the head alone, smaller for PostgreSQL to plan and run (the tail's
    # threshold and bound cost about half a millisecond on a 10k member). Either way the
    # stream's bound is exact, so a wrong guess costs time, never a result.
    stated = sorted(corpus.document_frequency.get(t, 0) for t in query.terms[:essential])
    weights_read = sorted(
        query.idf[t] for t in query.terms[:essential] if corpus.document_frequency.get(t, 0)
    )
    tied = not common and len(weights_read) > 1 and weights_read[0] >= TIED_IDF * weights_read[1]
    if sum(stated) <= depth or (sum(stated[:-1]) > size and not tied):
        statement = (
            f"WITH r AS MATERIALIZED ({rare_postings})"  # noqa: S608 - numbers, fixed names
            f" SELECT j.entry_id, {score('j')} AS score, MIN(j.total) OVER (),"
            f" COUNT(*) OVER () FROM (SELECT g.entry_id, g.total, {prior} AS prior FROM"
            f" ({grouped} ORDER BY total DESC, p.entry_id LIMIT %s) g"
            f" JOIN {entries} e ON e.id = g.entry_id) j ORDER BY score DESC, j.entry_id LIMIT %s"
        )
        with bound_cursor() as cursor:
            cursor.execute(statement, [*origins, depth + 1, fetch])
            found = cursor.fetchall()
        rows = [(entry_id, value) for entry_id, value, _, _ in found]
        # A match past the ``depth`` joined has at most the lowest BM25 joined.
        following = found[0][2] if found and found[0][3] > depth else None
    else:
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
        with bound_cursor() as cursor:
            cursor.execute(statement, [*params, MATCHING_EXTRA_DEPTH, fetch])
            found = cursor.fetchall()
        rows = [(entry_id, value) for entry_id, value, _ in found]
        following = found[0][2] if found else None
    rest = None
    if following is not None:
        rest = shape.bound(min(1.0, following / ceiling), shape.best_prior, has_query=True)
    # PostgreSQL returns the UUID itself; SQLite its hex, spelt canonically here.
    canonical = str if sql.postgres else (lambda value: str(uuid.UUID(str(value))))
    ranked = [(canonical(entry_id), value) for entry_id, value in rows]
    return _Stream(ranked, rest, truncated=len(rows) == fetch)


# Kinds whose rows carry the session id, each reaching the ones before it.
_SESSION_BOUND = (ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE)


def _prior_partitions(request: RecallRequest) -> list[tuple[str, str, str]] | None:
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


# The classes to read, as c(kind, session_id, notebook_id, bucket, origin, weight, depth):
# every class of some partitions, or listed classes each with its own depth.
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
_LISTED_CLASSES = """unnest(%(kinds)s::text[], %(sessions)s::text[], %(notebooks)s::text[],
            %(buckets)s::int[], %(origins)s::text[], %(weights)s::double precision[],
            %(depths)s::int[])"""
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


def _prior_stream(
    request: RecallRequest,
    kinds: Sequence[str],
    shape: _Shape,
    now: datetime,
    per_class: int,
    size: int,
    *,
    partitions: Sequence[tuple[str, str, str]] | None,
    previous: _Stream | None = None,
    deepen: Callable[[float], bool] | None = None,
) -> _Stream:
    """Active entries of the reachable partitions of ``kinds`` by weighted prior, best
    first. ``partitions``: those partitions, each of one of ``kinds`` (the caller's
    `_prior_partitions`, narrowed to the kinds read), or None where they cannot be
    listed.

    On PostgreSQL each (partition, reference bucket, origin) class is one range of the
    `memory_recall_prior` index, in which the prior falls with the recency anchor: the
    first ``per_class`` rows of each class are read, and a class cut short bounds its
    unread rows by its last row's prior. Read again with the ``previous`` stream, only
    the classes cut short whose bound ``deepen`` says could still win are read further
    (four times as deep); the others keep what they read. Elsewhere the pool (`_pool`)
    is sorted by prior."""
    classes = dict(previous.classes) if previous is not None and previous.classes else {}
    if classes:
        cut_short = {key: part for key, part in classes.items() if part.cut is not None}
        blocking = {k: p for k, p in cut_short.items() if deepen is None or deepen(p.cut)}
        depths = {key: 4 * part.depth for key, part in (blocking or cut_short).items()}
        read = _prior_classes_read(request, shape, now, depths=depths) if depths else {}
        classes.update((key, read.get(key, _PriorClass((), d))) for key, d in depths.items())
    else:
        if partitions is not None and not partitions:
            return _Stream([], None)
        if connection.vendor != "postgresql" or partitions is None:
            rows = list(
                _pool(request, kinds)
                .annotate(prior=_prior_expression(shape, now))
                .order_by("-prior", "id")
                .values_list("id", "prior")[: max(size, 8 * per_class) + 1]
            )
            ranked = [(str(entry_id), prior) for entry_id, prior in rows]
            cut = max(size, 8 * per_class)
            return _Stream(ranked, ranked[cut][1] if len(ranked) > cut else None)
        # A class without a row has nothing to list nor to bound.
        classes = _prior_classes_read(
            request, shape, now, partitions=partitions, depth=per_class, deep=size
        )
    ranked = sorted(
        (row for part in classes.values() for row in part.rows),
        key=lambda item: (-item[1], item[0]),
    )
    cut = max((p.cut for p in classes.values() if p.cut is not None), default=None)
    return _Stream(ranked, cut, classes=classes)


def _prior_classes_read(
    request: RecallRequest,
    shape: _Shape,
    now: datetime,
    *,
    partitions: Sequence[tuple[str, str, str]] = (),
    depth: int = 0,
    deep: int = 0,
    depths: Mapping[tuple, int] | None = None,
) -> dict[tuple, _PriorClass]:
    """The first ``depth`` rows (and the one after them) of every class of
    ``partitions``, ``deep`` rows of the few classes whose references and origin could
    hold the best priors (`_deep_from`), or of each class of ``depths`` as deep as it
    says, by prior, in one statement: class → its rows, best first (classes without rows
    absent)."""
    weights = {str(origin): float(weight) for origin, weight in ORIGIN_WEIGHTS.items()}
    params = {
        "saturation": REFERENCE_SATURATION,
        "w_recency": shape.recency,
        "w_reference": shape.reference,
        "w_origin": shape.origin,
        "now": now.timestamp(),
        "tau": RECENCY_TIME_CONSTANT.total_seconds(),
        "member": uuid.UUID(request.user_id),
    }
    if depths is None:
        classes = _EVERY_CLASS
        params |= {
            "kinds": [str(kind) for kind, _, _ in partitions],
            "sessions": [session_id for _, session_id, _ in partitions],
            "notebooks": [notebook_id for _, _, notebook_id in partitions],
            "origins": list(weights),
            "weights": list(weights.values()),
            "depth": depth,
            "deep": max(deep, depth),
            "deep_from": _deep_from(shape),
        }
    else:
        classes, keys = _LISTED_CLASSES, list(depths)
        params |= {
            "kinds": [key[0] for key in keys],
            "sessions": [key[1] for key in keys],
            "notebooks": [key[2] for key in keys],
            "buckets": [key[3] for key in keys],
            "origins": [key[4] for key in keys],
            "weights": [weights[key[4]] for key in keys],
            "depths": [depths[key] for key in keys],
        }
    table = connection.ops.quote_name(MemoryEntry._meta.db_table)
    sql = _PRIOR_CLASSES_SQL.format(classes=classes, table=table)
    with bound_cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    read: dict[tuple, tuple[int, list[tuple[str, float]]]] = {}
    for kind, session_id, notebook_id, bucket, origin, read_depth, entry_id, prior in rows:
        key = (kind, session_id, notebook_id, bucket, origin)
        read.setdefault(key, (read_depth, []))[1].append((str(entry_id), prior))
    return {
        key: _PriorClass(tuple(sorted(part, key=lambda item: -item[1])), read_depth)
        for key, (read_depth, part) in read.items()
    }


def _deep_from(shape: _Shape) -> float:
    """The least weighted reference and origin part of a class read ``deep`` at first:
    the best class's, less one reference step. Recency falls alike in every class, so
    the classes of much-used entries stated by the member hold the best priors unless
    their entries are old, and a recall without a query would otherwise read them a
    second time (reading a few dozen rows more costs less than a round)."""
    best = shape.reference + shape.origin * max(ORIGIN_WEIGHTS.values())
    return best - shape.reference / REFERENCE_SATURATION - BOUND_MARGIN


@dataclass(frozen=True)
class _Vocabulary:
    """The member's vocabulary rows of a query's stems."""

    ids: dict[str, int]  # term → row id (every stem with a posting)
    frequency: dict[str, int]  # term → document frequency (stems entries hold as their own)
    bounds: dict[str, _Bounds]  # term → its bounds over postings


def _statistics(
    member_id, terms: Iterable[str], *, ended_by: datetime | None = None
) -> tuple[tuple[int, int, int], _Vocabulary, list[str]]:
    """The member's document count and total lengths (summed over their counter shards),
    their vocabulary rows of ``terms`` and, with ``ended_by``, the ids of their paused
    entries whose timed pause has ended by then (the gate sees those as active, and they
    are in neither stream's index: a recall loads them whatever the streams list). One
    statement, raw (the ORM spends longer building the three reads than the database
    spends answering them)."""
    keys = {stem_key(term): term for term in terms}
    quote = connection.ops.quote_name
    shard, stem = MemoryCorpusShard._meta, MemoryStem._meta
    member = member_param(MemoryCorpusShard, member_id)
    columns = ", ".join(quote(c) for c in ("key", "id", "document_frequency", *_BOUND_COLUMNS))
    statement = (
        # Integers in every column (PostgreSQL sums a bigint as numeric).
        "SELECT NULL, NULL, CAST(SUM(document_count) AS bigint),"  # noqa: S608 - fixed names
        " CAST(SUM(total_length) AS bigint), CAST(SUM(total_context_length) AS bigint),"
        f" NULL, NULL FROM {quote(shard.db_table)} WHERE member_id = %s"
    )
    params = [member]
    if keys:
        statement += (
            f" UNION ALL SELECT {columns} FROM {quote(stem.db_table)}"  # noqa: S608 - fixed names
            f" WHERE member_id = %s AND {one_of(quote('key'), len(keys))}"
        )
        params += [member, *values_of(sorted(keys))]
    if ended_by is not None:
        entries = MemoryEntry._meta
        paused = _lifecycle_literal(Lifecycle.PAUSED)  # literal: `memory_pause_due` is partial
        statement += (
            " UNION ALL SELECT CAST(id AS text), NULL, NULL,"  # noqa: S608 - fixed names
            f" NULL, NULL, NULL, NULL FROM {quote(entries.db_table)}"
            f" WHERE member_id = %s AND lifecycle = {paused} AND suppression_ends_at <= %s"
        )
        ends = entries.get_field("suppression_ends_at").get_db_prep_value(ended_by, connection)
        params += [member_param(MemoryEntry, member_id), ends]
    with bound_cursor() as cursor:
        cursor.execute(statement, params)
        rows = cursor.fetchall()
    totals = (0, 0, 0)
    found = _Vocabulary({}, {}, {})
    ended = []
    for key, stem_id, n, *rest in rows:
        if key is None:  # the shards' sums (NULL when the member has none)
            totals = (int(n or 0), int(rest[0] or 0), int(rest[1] or 0))
            continue
        if stem_id is None:  # an ended pause (every vocabulary row has an id)
            ended.append(str(uuid.UUID(key)))
            continue
        term = keys[key]
        found.ids[term] = stem_id
        found.bounds[term] = tuple(rest)
        if n > 0:
            found.frequency[term] = n
    return totals, found, ended


def corpus_stats_get(*, member_id, terms: Iterable[str] | None = None) -> CorpusStats:
    """The member's corpus statistics: the document count and total lengths summed over
    the member's shards, and the document frequency of ``terms`` (all a BM25 recall
    reads), or of every stem."""
    (count, length, context), vocabulary, _ = _statistics(member_id, terms or ())
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


# --- the production path ----------------------------------------------------------------

_CHUNK = 1000
# Past this many entries in the shortlist, or this many rounds, the loop reads every
# live entry instead (the result is the same; only massive ties get there).
SHORTLIST_CEILING = 20_000
# How many of the best matches by BM25 the matching stream first joins to their rows
# for a result of `MATCHING_DEPTH_FOR` entries (the assistant's budget) or more: on the
# bench's 100k member, interleaved per query in one process, 256 answers about 0.7 ms
# sooner at the median than 512 (fewer rows joined) and 128 about 4 ms later (more
# queries need a deeper second read); the same at 1k. A smaller result joins
# proportionally fewer (`_matching_depth`).
MATCHING_DEPTH = 256
MATCHING_DEPTH_FOR = 12
# How many more matches than that the same statement may join when they could still
# outscore the result's last entry (`_matching_stream`).
MATCHING_EXTRA_DEPTH = 1792
# How many times the prefix it needs the matching stream lists (the prefix grows by as
# much when the gate withholds too many of it).
MATCHING_READ_AHEAD = 4
# Two stems weigh nearly alike for the matching stream's choice of a tail when the
# lighter's idf is at least this share of the heavier's: the default blend lets an
# entry's prior lift its score by a quarter at most (1 / 1.25).
TIED_IDF = 0.8
MAX_ROUNDS = 12
# How many times the result's size (plus 8) a recall's first round loads: on the bench's
# 100k member, one time left 33 of 50 recalls short after the first round (two or three
# rounds); two leaves 18 (only 2 with three), and three gains nothing more.
FIRST_PREFIX = 2


def _per_class(limit: int) -> int:
    """How many rows of each prior class the first read of the prior stream takes for a
    result of ``limit`` entries, beside the few classes read as deep as the prefix
    (`_deep_from`), which hold the best priors more often than not: three for the
    assistant's twelve (interleaved on the bench's 100k member, a recall without a
    query 0.5 ms sooner than five; two send some 1k recalls to a second read), a sixth
    of a larger result. A class cut short bounds its unread rows, so this decides how
    soon the result is certified, never what it is."""
    return max(3, limit // 6 + 1)


def _matching_depth(limit: int) -> int:
    """How many matches the first matching statement joins for a result of ``limit``
    entries: `MATCHING_DEPTH` from `MATCHING_DEPTH_FOR` entries on, proportionally fewer
    below (at least a quarter of it). The shell's three entries are certified among the
    best 64 as often as twelve among the best 256, a millisecond sooner on the bench's
    100k member; the depth only decides how soon the result is certified, never what it
    is."""
    scaled = MATCHING_DEPTH * min(limit, MATCHING_DEPTH_FOR) // MATCHING_DEPTH_FOR
    return max(MATCHING_DEPTH // 4, scaled)


def _chunks(values: list, size: int = _CHUNK):
    for start in range(0, len(values), size):
        yield values[start : start + size]


@dataclass
class _Plan:
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
    reach = _reach(request, reader, state)
    withheld = _withheld_counts(request, reach) if reach.withheld else {}
    if not reach.kinds:
        # Every reachable kind is withheld as a whole: nothing to rank, nothing to read.
        return resolve((), request, now, semantic=ranker, blend=chosen, withheld=withheld)
    shape = _shape(chosen)
    if not isinstance(ranker, BM25) or shape is None:
        # Only BM25 promises "no shared stem, no semantic factor": read everything.
        corpus = corpus_stats_get(member_id=request.user_id)
        every = _member_rows(request.user_id, reach.kinds).filter(_NOT_FORGOTTEN)
        return resolve(
            _candidates(every, many=True).values(),
            request,
            now,
            semantic=ranker,
            blend=chosen,
            corpus_stats=corpus,
            withheld=withheld,
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
        )

    has_query = request.has_query
    terms = query_terms(request.query) if has_query else ()
    (count, length, context), vocabulary, ended = _statistics(request.user_id, terms, ended_by=now)
    stem_ids = vocabulary.ids
    corpus = CorpusStats(count, length, context, vocabulary.frequency)
    query = _Query.of(terms, corpus, ranker, vocabulary.bounds)
    _, budget = budget_for(request.surface)
    limit = budget.max_entries
    if request.budget is not None:
        limit = min(limit, request.budget)
    # The first prefix read of each stream: the gate and the dedupe drop part of it (other
    # lifecycles, holds, clusters), and a round short of entries costs two more statements.
    first = FIRST_PREFIX * limit + 8
    plan = _Plan()
    # The reachable partitions of the kinds read row by row (None: not listable), for
    # both streams.
    reachable = _prior_partitions(request)
    if reachable is not None:
        reachable = [p for p in reachable if p[0] in reach.kinds]

    def read_matching() -> _Stream:
        return _matching_stream(
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

    def read_prior(partitions=None, previous=None, deepen=None) -> _Stream:
        return _prior_stream(
            request,
            reach.kinds,
            shape,
            now,
            plan.per_class,
            plan.prior_size,
            partitions=reachable if partitions is None else partitions,
            previous=previous,
            deepen=deepen,
        )

    loaded: dict[str, RecallCandidate] = {}
    # The paused entries whose timed pause has ended are read with the first load.
    pending = ended

    def load(entry_ids: Sequence[str]) -> None:
        nonlocal pending
        # Each id once, however many pauses ended unswept; a chunk at most a statement.
        for chunk in _chunks([i for i in dict.fromkeys([*entry_ids, *pending]) if i not in loaded]):
            for entry_id, candidate in _entries_load(request, reach.kinds, chunk).items():
                loaded.setdefault(entry_id, candidate)
        pending = []

    matching = prior = None
    if limit and query.terms:
        plan.essential, plan.matching_size = _essential_count(query, corpus, limit), first
        plan.matching_depth = _matching_depth(limit)
        matching = read_matching()
    if limit and request.crisis_frame:
        # Almost everything is withheld: whatever survives is few, and all of it is read,
        # beside the best matches and the best profile entries by prior (for the audit).
        survivors = _survivors(request, _pool(request, reach.kinds), now)
        loaded.update(_candidates(survivors, many=True))
        plan.per_class, plan.prior_size = _per_class(limit), first
        frame = [(ScopeKind.PROFILE, "", ""), (ScopeKind.CRISIS, "", "")]
        prior = read_prior([p for p in frame if p[0] in reach.kinds])
    elif limit and (not query.terms or query.held_by(corpus) < limit):
        # Without a query the prior ranks everything. With fewer entries holding the
        # query's stems than the result takes, entries ranked by their prior alone fill
        # the rest: that stream is read in the same round, not after a round of matches
        # that cannot fill the result. (Not with fewer than the first prefix: where the
        # matches did fill it, the prior's 30-odd rows loaded and gated for nothing
        # cost a 1k recall 1-3 ms.)
        plan.per_class, plan.prior_size = _per_class(limit), first
        prior = read_prior()
    margin = BOUND_MARGIN
    for round_ in range(MAX_ROUNDS + 1):
        # Each stream's bound for what it lists past the loaded prefix ("next") and for
        # what it did not list at all ("rest").
        wanted: list[str] = []
        matching_next = matching_rest = prior_next = prior_rest = None
        if matching is not None:
            ids, matching_next, matching_rest = matching.prefix(plan.matching_size)
            wanted += ids
        if prior is not None:
            ids, prior_next, prior_rest = prior.prefix(plan.prior_size)
            wanted += ids
        if len(wanted) > SHORTLIST_CEILING or round_ == MAX_ROUNDS:
            # Only with massive ties at a cut-off: reading every live entry once is
            # cheaper than growing the streams again.
            unread = _pool(request, reach.kinds).exclude(pk__in=list(loaded))
            loaded.update(_candidates(unread, many=True))
            if pending:
                load([])
            return run(loaded)
        missing = [i for i in dict.fromkeys(wanted) if i not in loaded]
        # A listed match of any lifecycle is loaded, so the gate counts it.
        if missing or pending:
            load(missing)
        result = run(loaded)
        if not limit or request.crisis_frame:
            return result  # nothing to return, or every entry that can be is loaded
        if prior is not None and prior_next is None and prior_rest is None:
            return result  # the prior stream listed every live entry, and all are loaded
        last = result.entries[-1].score if len(result.entries) >= limit else -math.inf

        # Could an entry outside the shortlist still beat the last one? Per way of being
        # left out: a listed match, one with only unread (common) stems, any by prior.
        unread_prior = shape.best_prior
        if prior is not None:
            unread_prior = max(v for v in (prior_next, prior_rest) if v is not None)
        common = query.share(query.terms[plan.essential :])

        def beats(semantic: float, prior_value: float | None, last: float) -> bool:
            if prior_value is None:
                return False
            bound = shape.bound(semantic + margin, prior_value + margin, has_query=has_query)
            return bound >= last

        listed = matching_next is not None and matching_next + margin >= last
        deeper = matching_rest is not None and matching_rest + margin >= last
        # While a match the stream already listed could still beat the last entry (or
        # the result is short and the stream holds more): load more of those first, the
        # cheapest rows to fill the result with, and only then ask what deeper matches,
        # a common stem or the prior could add. A result filled, past its few visible
        # matches, by weak entries the first load brought along (a cluster's fresher
        # entry, an ended pause) would otherwise send every stream deeper at once.
        matches_first = listed or (last == -math.inf and deeper)
        common_blocks = not matches_first and common > 0 and beats(common, unread_prior, last)
        # Short of entries with a common stem still unread: its holders are read first
        # (a match nearly always outranks an entry only its prior lifts), and the prior
        # stream only if the result is still open after them.
        prior_first = not matches_first and not (last == -math.inf and common_blocks)
        prior_blocks = prior_first and beats(0.0, prior_rest if prior else shape.best_prior, last)
        prior_next_blocks = prior_first and beats(0.0, prior_next, last)
        if not (listed or deeper or common_blocks or prior_blocks or prior_next_blocks):
            return result
        if common_blocks:
            plan.essential += 1  # read the next stem's postings too
        if listed:
            plan.matching_size *= 4
        # The listed matches come first: the stream joins more of the best by BM25 to
        # their priors only once those are used up.
        deepen = deeper and not listed
        if deepen:
            plan.matching_depth *= 4
        if common_blocks or deepen or (listed and not matching.holds(plan.matching_size)):
            matching = read_matching()
        if prior_blocks:
            if prior is None:
                plan.per_class, plan.prior_size = _per_class(limit), first
                prior = read_prior()
            else:
                # A class was cut too early: read deeper in each one that could still win.
                plan.per_class *= 4
                prior = read_prior(
                    previous=prior, deepen=lambda cut, last=last: beats(0.0, cut, last)
                )
        elif prior_next_blocks:
            plan.prior_size *= 2  # more of what was read, before reading more


# --- writes: the stem index and corpus statistics ----------------------------------------


# Each entry counts in one of this many counter rows of its member (by its id), so no
# row is rewritten by every write of a member; a recall sums them.
CORPUS_SHARDS = 8


def corpus_shard(entry_id) -> int:
    return uuid.UUID(str(entry_id)).int % CORPUS_SHARDS


def _posting_counts(stats: TermStats) -> dict[str, list[int]]:
    """Stem → [own count, context count] of an entry's stems: one posting each."""
    counts: dict[str, list[int]] = {}
    for stem, n in stats.terms.items():
        counts.setdefault(stem, [0, 0])[0] += n
    for stem, n in stats.context_terms.items():
        counts.setdefault(stem, [0, 0])[1] += n
    return counts


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
        for stem, (own, context) in sorted(_posting_counts(stats).items())
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
    bounds = _posting_bounds(live)
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
    member_id, stem: str, document_frequency: int = 0, bounds: _Bounds | None = None
) -> MemoryStem:
    key = stem_key(stem)
    own, context, length, context_length = bounds or _NO_BOUNDS
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


def _widened(bounds: _Bounds | None, other: _Bounds) -> _Bounds:
    if bounds is None:
        return other
    return (
        max(bounds[0], other[0]),
        max(bounds[1], other[1]),
        min(bounds[2], other[2]),
        min(bounds[3], other[3]),
    )


def _posting_bounds(entries: Iterable[MemoryEntry]) -> dict[str, _Bounds]:
    """Stem → the bounds of the postings these entries hold (their stored statistics)."""
    bounds: dict[str, _Bounds] = {}
    for entry in entries:
        stats = TermStats.from_json(entry.term_stats)
        for stem, (own, context) in _posting_counts(stats).items():
            posting = (own, context, stats.length, stats.context_length)
            bounds[stem] = _widened(bounds.get(stem), posting)
    return bounds


def _stems_upsert(
    member_id, deltas: Mapping[str, int], bounds: Mapping[str, _Bounds] | None = None
) -> None:
    """Add ``deltas`` (stem → document frequency change) to the member's vocabulary rows
    and widen their posting bounds to ``bounds`` (stem → bounds of new postings),
    creating the missing rows: one statement, the increments atomic
    (``document_frequency + excluded.document_frequency``, ``GREATEST``/``LEAST``), a
    row written only when it changes."""
    bounds = bounds or {}
    stems = sorted(set(deltas) | set(bounds))
    rows = {
        row.key: row
        for row in (_stem_row(member_id, s, deltas.get(s, 0), bounds.get(s)) for s in stems)
    }
    if not rows:
        return
    sql = _Sql()
    table = connection.ops.quote_name(MemoryStem._meta.db_table)
    member = member_param(MemoryStem, member_id)
    values, params = [], []
    for key in sorted(rows):
        row = rows[key]
        values.append("(%s, %s, %s, %s, %s, %s, %s, %s)")
        params += [member, key, row.long_stem, row.document_frequency]
        params += [getattr(row, column) for column in _BOUND_COLUMNS]
    own, context, length, context_length = (f"{table}.{c}" for c in _BOUND_COLUMNS)
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
        f"INSERT INTO {table} (member_id, key, long_stem, document_frequency,"  # noqa: S608
        f" {', '.join(_BOUND_COLUMNS)}) VALUES {', '.join(values)}"
        f" ON CONFLICT (member_id, key) DO UPDATE SET {updates} WHERE {changes}"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def _stem_rows(member_id, bounds: Mapping[str, _Bounds]) -> dict[str, int]:
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
    table = connection.ops.quote_name(MemoryEntryTerm._meta.db_table)
    field = MemoryEntryTerm._meta.get_field("entry")
    keys = [field.get_db_prep_value(entry.pk, connection) for entry in entries]
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE entry_id IN ({', '.join(['%s'] * len(keys))})"  # noqa: S608
            " RETURNING stem_id",
            keys,
        )
        old = [stem_id for (stem_id,) in cursor.fetchall()]
    live = [e for e in entries if e.lifecycle != Lifecycle.TOMBSTONED and e.term_stats]
    ids = _stem_rows(member_id, _posting_bounds(live))
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


def _shards_upsert(member_id, shards: Mapping[int, list[int]]) -> None:
    """Add (count, length, context length) changes to the member's counter shards."""
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
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


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
        _shards_upsert(member_id, shards)
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
