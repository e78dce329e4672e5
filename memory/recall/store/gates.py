"""The read gate and the pipeline's reachability in SQL: which of a member's rows a
recall can reach at all (`REACHABLE_KINDS`, `reach_columns`), which kinds the gate
withholds as a whole (`reach_of`), and how many of the rows in reach the gate withholds,
by its reason (`withheld_in_reach`: one aggregate query, no row read)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import Q, QuerySet

from memory.access.gate import (
    ContentItem,
    ContentKind,
    MemberState,
    Reader,
    ScopeKey,
    Suppression,
    decide,
    kind_reason,
)
from memory.contracts import SCOPE_IDENTIFIERS
from memory.enums import Lifecycle, ScopeKind
from memory.models import MemoryEntry
from memory.recall import RecallRequest

from .sql import ENDED, NO_END, RUNNING, WITHHELD, WITHHELD_ROWS, withheld_statement

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

# What a recall can weigh at all: a forgotten (tombstoned) entry is never there.
_FORGOTTEN = Lifecycle.TOMBSTONED
NOT_FORGOTTEN = ~Q(lifecycle=_FORGOTTEN)


def member_rows(member_id, kinds: Iterable[str] | None = None) -> QuerySet[MemoryEntry]:
    rows = MemoryEntry.objects.filter(member_id=member_id).order_by()
    return rows if kinds is None else rows.filter(scope_kind__in=list(kinds))


def pool_of(request: RecallRequest, kinds: Iterable[str]) -> QuerySet[MemoryEntry]:
    """The member's active rows of ``kinds`` (held ones included: the gate withholds
    them): every entry that can surface, but for ended timed pauses (which
    `index.statistics` lists and a recall's first load reads). Served by the
    `memory_recall_live` partial index. Built only where a recall reads it."""
    return member_rows(request.user_id, kinds).filter(lifecycle=Lifecycle.ACTIVE)


@dataclass(frozen=True)
class Reach:
    """The scope kinds a recall can reach, split by what the read gate says of each kind
    as a whole (`memory.access.gate.kind_reason`)."""

    kinds: tuple[str, ...]  # read row by row
    withheld: Mapping[str, str]  # kind → the gate's reason for withholding all of it


def reach_of(request: RecallRequest, reader: Reader, state: MemberState) -> Reach:
    kinds, withheld = [], {}
    for kind in REACHABLE_KINDS[request.scope.kind]:
        reason = kind_reason(ContentKind.ENTRY, kind, reader, state)
        if reason is None:
            kinds.append(kind)
        else:
            withheld[kind] = reason
    return Reach(tuple(kinds), withheld)


def _auto_forget_cutoffs(state: MemberState, now: datetime) -> dict[str, datetime]:
    """Per scope kind, the instant before which an entry's last assertion is past the
    member's auto-forget choice (the gate reads the first choice for a kind)."""
    cutoffs: dict[str, datetime] = {}
    for kind, days in state.auto_forget_days:
        cutoffs.setdefault(kind, now - timedelta(days=days))
    return cutoffs


def withheld_query(
    request: RecallRequest, reach: Reach, state: MemberState, now: datetime
) -> tuple[str, list] | None:
    """`withheld_in_reach`'s statement and its parameters (None: nothing is in reach), to
    run alone or beside the corpus statistics (`sql.reads_statement`)."""
    columns = reach_columns(request)
    if not columns or canonical_uuid(request.user_id) is None:
        return None
    return withheld_statement(
        member_id=request.user_id,
        tenant_id=canonical_uuid(request.effective_tenant_id),
        reach=columns,
        every_row=request.crisis_frame,
        withheld_kinds=sorted(reach.withheld),
        cutoffs=_auto_forget_cutoffs(state, now),
        now=now,
    )


def withheld_of(
    rows: Iterable[tuple], request: RecallRequest, reader: Reader, state: MemberState, now: datetime
) -> dict[str, int]:
    """`withheld_in_reach` from the rows of its statement (rows of other parts skipped):
    the pure gate judges each group's representative."""
    columns = reach_columns(request)
    days = dict(reversed(state.auto_forget_days))  # the first choice per kind wins
    counts: dict[str, int] = {}
    width = len(WITHHELD_ROWS.names)
    for part, *row in rows:
        if part != WITHHELD:
            continue
        values = WITHHELD_ROWS.values(row[:width])
        ends, held, actor, forgotten, n = row[width : width + 5]
        item = _group_item(request, columns, values, (ends, held, actor, forgotten), days, now)
        reason = decide(item, reader, state, now)
        if reason is not None:
            counts[reason] = counts.get(reason, 0) + n
    return counts


def withheld_in_reach(
    request: RecallRequest, reach: Reach, reader: Reader, state: MemberState, now: datetime
) -> dict[str, int]:
    """Every entry of the member in reach that the read gate withholds, by the gate's
    reason: exact, whatever the shortlist reads. "In reach" is the recall's boundary,
    the gate's first three checks: not forgotten, within the tenant boundary, reachable
    from the request's scope (`tenant_ok`, `reach_columns`).

    One aggregate statement (`sql.withheld_statement`) takes the rows in reach the gate
    could withhold — of a kind withheld as a whole, any lifecycle but active, suppressed,
    held, of a sensitive category the request cannot open, a sensitive mention the
    request cannot open, past the member's auto-forget choice; under a crisis frame every
    row — and groups them by every column the gate reads past the boundary (scope kind,
    category, lifecycle, suppression reason and whether it is running at ``now``, held,
    sensitive mention, past auto-forget). The pure gate (`memory.access.gate.decide`)
    then judges one representative item per group, in reach by construction (the
    identifiers the recall's scope requires of its kind, no tenant): no row is read into
    Python, and the reason is the gate's own."""
    query = withheld_query(request, reach, state, now)
    if query is None:
        return {}
    # Django's cursor, whose statements are never prepared: planned with this recall's
    # values, PostgreSQL reads the member's suspect rows from `memory_member_withheld`.
    with connection.cursor() as cursor:
        cursor.execute(*query)
        return withheld_of(cursor.fetchall(), request, reader, state, now)


# An identifier the recall's reach leaves free (a crisis recall reaches every session,
# no recall checks a room or an avatar): a representative may hold any value there.
_FREE = "any"


def _group_item(request, reach, columns, flags, days, now) -> ContentItem:
    """One group's representative, as `rows.candidate_of` builds a row's item: in reach
    (``reach``: `reach_columns`, the identifiers each kind must hold; the gate reads no
    other past its boundary), its tenant the recall's where its kind names one."""
    kind, category, lifecycle, reason = columns
    ends, held, actor, forgotten = flags
    member = request.user_id
    identifiers = dict(reach.get(kind, {}))
    for name in SCOPE_IDENTIFIERS[kind]:
        if name == "tenant_id":
            identifiers.setdefault(name, canonical_uuid(request.effective_tenant_id))
        elif name != "user_id":
            identifiers.setdefault(name, _FREE)
    tenant = identifiers.get("tenant_id")
    suppression = None
    if reason:
        end = {NO_END: None, RUNNING: now + timedelta(days=1), ENDED: now}[ends]
        suppression = Suppression(reason, end)
    # An assertion past the member's auto-forget choice for the kind, or a fresh one.
    asserted = now - timedelta(days=days.get(kind, 0), seconds=1) if forgotten else now
    return ContentItem(
        kind=ContentKind.ENTRY,
        item_id="",
        member_id=member,
        scope=ScopeKey(
            kind=kind,
            user_id=member,
            session_id=identifiers.get("session_id"),
            scene_id=identifiers.get("scene_id"),
            room_id=identifiers.get("room_id"),
            pose_id=identifiers.get("pose_id"),
            avatar_id=identifiers.get("avatar_id"),
            notebook_id=identifiers.get("notebook_id"),
            operator_id=identifiers.get("operator_id"),
            tenant_id=tenant,
        ),
        tenant_id=tenant,
        category=category,
        lifecycle=lifecycle,
        suppression=suppression,
        held=bool(held),
        actor_sensitive=bool(actor),
        asserted_at=asserted,
    )


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


def canonical_uuid(value: str | None) -> str | None:
    """The value if it is the text the pipeline compares a stored UUID against (its
    canonical form), else None: a UUID column matches other spellings in SQL, while
    the pipeline's string comparison does not."""
    if not value:
        return None
    try:
        return value if str(uuid.UUID(value)) == value else None
    except ValueError:
        return None


def reach_columns(request: RecallRequest) -> dict[str, dict[str, str]]:
    """`pipeline.is_reachable` for stored rows, per stored scope kind: the identifier
    columns a reachable row of that kind must hold (none: every row of the kind); a kind
    absent is not reachable at all."""
    scope, kind = request.scope, request.scope.kind
    parts: dict[str, dict[str, str]] = {}
    if kind in _PROFILE_REACHERS:
        parts[ScopeKind.PROFILE] = {}
    if kind == ScopeKind.CRISIS:
        for target in (
            ScopeKind.SESSION,
            ScopeKind.SCENE,
            ScopeKind.POSE,
            ScopeKind.NOTEBOOK,
            ScopeKind.CRISIS,
        ):
            parts[target] = {}
    if kind in (ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE):
        parts[ScopeKind.SESSION] = {"session_id": scope.session_id}
    if kind in (ScopeKind.SCENE, ScopeKind.POSE):
        parts[ScopeKind.SCENE] = {"session_id": scope.session_id, "scene_id": scope.scene_id}
    if kind == ScopeKind.POSE:
        parts[ScopeKind.POSE] = {
            "session_id": scope.session_id,
            "scene_id": scope.scene_id,
            "pose_id": scope.pose_id,
        }
    if kind == ScopeKind.NOTEBOOK:
        parts[ScopeKind.NOTEBOOK] = {"notebook_id": scope.notebook_id}
        if request.effective_tenant_id is not None:
            parts[ScopeKind.TENANT] = {}
    if kind == ScopeKind.OPERATOR_COPILOT and (operator := canonical_uuid(scope.operator_id)):
        parts[ScopeKind.OPERATOR_COPILOT] = {"operator_id": operator}
    if kind == ScopeKind.TENANT and (tenant := canonical_uuid(scope.tenant_id)):
        parts[ScopeKind.TENANT] = {"tenant_id": tenant}
    return parts
