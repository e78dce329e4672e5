"""Operator reads of the hierarchy: tier counts (dashboard, counts API, CLI), the STM
replay (R1) and reconstruction (RC1), and long-term entries by entity (R3 / RC2).

Counts are aggregates; each part is computed on its own (in a savepoint) so one failing
query renders as "—" instead of failing the page. The long-term reads are cross-member
operator aggregates that memory's per-member selectors do not offer, so they read the
`MemoryEntry` model directly; they never return bodies or subjects, and a tenant-bound
operator never reaches another tenant's entries.
"""

import logging
import re
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q, QuerySet
from django.db.models.fields.json import KT
from django.db.models.functions import TruncDay, TruncHour
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult, get_date_max

from hierarchy.access import access_record_append
from hierarchy.enums import StmScopeKind
from hierarchy.models import ShortTermMemory
from hierarchy.stm import scope_digest
from iris_site.audit.actions import AuditAction, current_name, stored_names
from iris_site.audit.events import Actor
from iris_site.audit.refusals import WRITE_REFUSED_ACTION
from iris_site.audit.selectors import action_prefix_q, action_q
from iris_site.errors import InvalidInput
from iris_site.models import AuditEvent, TenantMembership
from memory.enums import Lifecycle
from memory.models import MemoryEntity, MemoryEntry, MemoryRevision
from memory.policy.handles import ACTOR_HANDLE_PATTERN
from memory.selectors import tenant_operator_reach

logger = logging.getLogger(__name__)
EPISODIC_WINDOW = timedelta(hours=24)
REFUSAL_WINDOW = timedelta(days=7)
# The refused-write events the counter counts: every write path's `memory.write.refused`
# and consolidation's own refusal, which carries the same payload shape.
REFUSAL_ACTIONS = stored_names(
    WRITE_REFUSED_ACTION, AuditAction.HIERARCHY_STM_CONSOLIDATION_REFUSED
)
REPLAY_DEFAULT_LIMIT = 200
REPLAY_MAX_LIMIT = 1000
LTM_DEFAULT_LIMIT = 100
LTM_MAX_LIMIT = 500


# --- counts --------------------------------------------------------------------------------


def stm_counts_by_kind(*, tenant_id=None, now: datetime | None = None) -> dict[str, int]:
    """Live short-term rows per scope kind (every kind present, zero when empty)."""
    rows = ShortTermMemory.objects.filter(ttl_expires__gt=now or timezone.now(), anonymized_at=None)
    if tenant_id is not None:
        rows = rows.filter(member__tenant_memberships__tenant_id=tenant_id)
    found = dict(
        rows.values_list("scope_kind").annotate(n=Count("id")).values_list("scope_kind", "n")
    )
    return {kind: found.get(kind, 0) for kind in StmScopeKind.values}


def _tenant_entries(tenant_id) -> QuerySet[MemoryEntry]:
    """The entries an operator may count or list: for one bound to a tenant, its own
    tenant's memory of its members (`memory.selectors.tenant_operator_reach`)."""
    entries = MemoryEntry.objects.all()
    return entries if tenant_id is None else entries.filter(tenant_operator_reach(tenant_id))


def _by_lifecycle(entries: QuerySet[MemoryEntry]) -> dict[str, int]:
    found = dict(
        entries.order_by()
        .values_list("lifecycle")
        .annotate(n=Count("id"))
        .values_list("lifecycle", "n")
    )
    return {state: found.get(state, 0) for state in Lifecycle.values}


def ltm_counts_by_lifecycle(*, tenant_id=None) -> dict[str, int]:
    return _by_lifecycle(_tenant_entries(tenant_id))


def tenant_events(events: QuerySet[AuditEvent], tenant_id=None) -> QuerySet[AuditEvent]:
    """Audit events a tenant-bound operator may count: about its tenant's members (by
    `TenantMembership`, not the optional `target_tenant_id` column, which most events
    leave empty), minus those scoped to another tenant (a member may belong to several)."""
    if tenant_id is None:
        return events
    members = TenantMembership.objects.filter(tenant_id=tenant_id).values("user_id")
    return events.filter(
        Q(target_tenant_id=None) | Q(target_tenant_id=tenant_id), target_member_id__in=members
    )


def _episodic_events(*, tenant_id=None, now: datetime) -> QuerySet[AuditEvent]:
    events = AuditEvent.objects.filter(occurred_at__gt=now - EPISODIC_WINDOW, occurred_at__lte=now)
    return tenant_events(events, tenant_id)


def episodic_count_24h(*, tenant_id=None, now: datetime | None = None) -> int:
    return _episodic_events(tenant_id=tenant_id, now=now or timezone.now()).count()


def episodic_hourly_24h(*, tenant_id=None, now: datetime | None = None) -> list[dict]:
    """Events per hour over the last 24 h, oldest hour first (the dashboard's chart)."""
    now = now or timezone.now()
    top = now.replace(minute=0, second=0, microsecond=0)
    hours = [top - timedelta(hours=offset) for offset in range(23, -1, -1)]
    found = Counter(
        {
            hour: n
            for hour, n in _episodic_events(tenant_id=tenant_id, now=now)
            .annotate(hour=TruncHour("occurred_at"))
            .values_list("hour")
            .annotate(n=Count("id"))
            .values_list("hour", "n")
        }
    )
    return [{"hour": hour, "count": found.get(hour, 0)} for hour in hours]


def write_refusal_counts(*, tenant_id=None, now: datetime | None = None) -> list[dict]:
    """Refused writes per consumer and reason code over the last 24 h and 7 days, most
    refused first: counts only, read from the refusal events' identifiers (never content).

    One grouped query on the `(action, -occurred_at)` index; a tenant-bound operator
    counts only refusals that targeted its tenant's members."""
    now = now or timezone.now()
    events = AuditEvent.objects.filter(
        action__in=REFUSAL_ACTIONS, occurred_at__gt=now - REFUSAL_WINDOW, occurred_at__lte=now
    )
    events = tenant_events(events, tenant_id)
    rows = (
        events.order_by()
        .annotate(consumer=KT("payload__consumer"), reason=KT("payload__reason"))
        .values("consumer", "reason")
        .annotate(
            last_7d=Count("id"),
            last_24h=Count("id", filter=Q(occurred_at__gt=now - EPISODIC_WINDOW)),
        )
    )
    return sorted(
        (
            {
                # JSON null comes back as SQL NULL on PostgreSQL, as "null" on SQLite.
                "consumer": None if row["consumer"] in (None, "", "null") else row["consumer"],
                "reason": row["reason"] or "",
                "last_24h": row["last_24h"],
                "last_7d": row["last_7d"],
            }
            for row in rows
        ),
        key=lambda row: (-row["last_7d"], -row["last_24h"], row["consumer"] or "", row["reason"]),
    )


def _part(name: str, compute):
    """One dashboard part, or None when its query fails (rendered as "—")."""
    try:
        with transaction.atomic():
            return compute()
    except Exception:
        logger.exception("memory-hierarchy %s count failed", name)
        return None


@dataclass(frozen=True, slots=True)
class HierarchyCounts:
    stm: dict[str, int] | None
    ltm: dict[str, int] | None
    episodic_24h: int | None
    episodic_hourly: list[dict] | None
    generated_at: datetime
    refusals: list[dict] | None = None

    def as_dict(self) -> dict:
        return {
            "stm": None if self.stm is None else {**self.stm, "total": sum(self.stm.values())},
            "ltm": None if self.ltm is None else {**self.ltm, "total": sum(self.ltm.values())},
            "episodic_24h": self.episodic_24h,
            "generated_at": self.generated_at,
        }


def hierarchy_counts(*, tenant_id=None, with_hourly: bool = False) -> HierarchyCounts:
    now = timezone.now()
    return HierarchyCounts(
        stm=_part("stm", lambda: stm_counts_by_kind(tenant_id=tenant_id, now=now)),
        ltm=_part("ltm", lambda: ltm_counts_by_lifecycle(tenant_id=tenant_id)),
        episodic_24h=_part("episodic", lambda: episodic_count_24h(tenant_id=tenant_id, now=now)),
        episodic_hourly=_part(
            "episodic-hourly", lambda: episodic_hourly_24h(tenant_id=tenant_id, now=now)
        )
        if with_hourly
        else None,
        generated_at=now,
        refusals=_part("refusals", lambda: write_refusal_counts(tenant_id=tenant_id, now=now))
        if with_hourly
        else None,
    )


# --- trends over a time range (the dashboard) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimeRange:
    key: str
    label: str
    span: timedelta
    unit: str  # "hour" | "day": one bucket each


TIME_RANGES: dict[str, TimeRange] = {
    r.key: r
    for r in (
        TimeRange("24h", "Last 24 hours", timedelta(hours=24), "hour"),
        TimeRange("7d", "Last 7 days", timedelta(days=7), "day"),
        TimeRange("30d", "Last 30 days", timedelta(days=30), "day"),
    )
}
DEFAULT_TIME_RANGE = "24h"


def time_range(key: str | None) -> TimeRange:
    """The named range; anything else (absent, unknown) is the default, never an error."""
    return TIME_RANGES.get(key or "", TIME_RANGES[DEFAULT_TIME_RANGE])


def range_buckets(span: TimeRange, now: datetime) -> list[datetime]:
    """The starts of the range's buckets (UTC), oldest first; the last holds `now`."""
    if span.unit == "hour":
        top = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
        step = timedelta(hours=1)
    else:
        top = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        step = timedelta(days=1)
    n = int(span.span / step)
    return [top - step * offset for offset in range(n - 1, -1, -1)]


@dataclass(frozen=True, slots=True)
class Trend:
    """Counts per bucket and series (a series is an enum value from the events'
    identifiers — a surface, a reason code, a step — never content)."""

    key: str
    title: str
    buckets: list[datetime]
    series: list[str]
    counts: dict[tuple[datetime, str], int]

    def row(self, bucket: datetime) -> list[int]:
        return [self.counts.get((bucket, name), 0) for name in self.series]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


# What the dashboard charts: (key, title, audit actions, how a series is named). A series
# is a payload identifier (`payload__…`), or the action itself named by `labels`. Actions
# are counted under every name they were stored under (`iris_site.audit.actions`).
_DATARIGHTS_EVENTS = ("submitted", "extended", "completed", "failed", "cancelled", "expired")
AUDIT_TRENDS: tuple[tuple[str, str, tuple[str, ...], str, dict[str, str]], ...] = (
    (
        "recalls",
        "Recalls by surface",
        (AuditAction.MEMORY_RECALL_RESOLVED,),
        "payload__surface",
        {},
    ),
    (
        "writes",
        "Writes by tier",
        (AuditAction.MEMORY_ENTRY_CREATED, AuditAction.HIERARCHY_STM_WRITTEN),
        "action",
        {
            AuditAction.MEMORY_ENTRY_CREATED: "long-term",
            AuditAction.HIERARCHY_STM_WRITTEN: "short-term",
        },
    ),
    ("refusals", "Refused writes by reason", REFUSAL_ACTIONS, "payload__reason", {}),
    ("consolidations", "Consolidations", (AuditAction.HIERARCHY_STM_CONSOLIDATED,), "action", {}),
    ("expiries", "Short-term expiries", (AuditAction.HIERARCHY_STM_EXPIRED,), "action", {}),
    (
        "inspections",
        "Inspection steps by state reached",
        (AuditAction.INSPECTION_REQUEST_TRANSITIONED,),
        "payload__to_state",
        {},
    ),
    (
        "datarights",
        "Data-rights requests by event",
        tuple(AuditAction.of("datarights.request", e) for e in _DATARIGHTS_EVENTS),
        "action",
        {AuditAction.of("datarights.request", e): e for e in _DATARIGHTS_EVENTS},
    ),
)
_SERIES_DEFAULT = {"consolidations": "consolidated", "expiries": "expired"}


def _trunc(unit: str, field: str):
    return (TruncHour if unit == "hour" else TruncDay)(field, tzinfo=UTC)


def audit_trend(
    *,
    key: str,
    title: str,
    actions: tuple[str, ...],
    series_by: str,
    labels: dict[str, str],
    span: TimeRange,
    now: datetime,
    tenant_id=None,
) -> Trend:
    """One grouped query on the `(action, -occurred_at)` index: events per bucket and
    series inside the range, for a tenant-bound operator by its members' tenancy."""
    buckets = range_buckets(span, now)
    events = tenant_events(
        AuditEvent.objects.filter(
            action_q(*actions), occurred_at__gte=buckets[0], occurred_at__lte=now
        ),
        tenant_id,
    )
    name = KT(series_by) if series_by.startswith("payload__") else F(series_by)
    rows = (
        events.order_by()
        .annotate(bucket=_trunc(span.unit, "occurred_at"), name=name)
        .values("bucket", "name")
        .annotate(n=Count("id"))
        .values_list("bucket", "name", "n")
    )
    counts: Counter = Counter()
    for bucket, raw, n in rows:
        raw = "" if raw in (None, "null") else str(raw)
        if series_by == "action":  # a row stored under an action's former name
            raw = current_name(raw)
        label = _SERIES_DEFAULT.get(key) or labels.get(raw) or raw or "unspecified"
        counts[(bucket.astimezone(UTC), label)] += n
    preferred = list(dict.fromkeys(labels.values()))  # named series: always a column
    others = sorted({name for _, name in counts} - set(preferred))
    series = preferred + others or [_SERIES_DEFAULT.get(key) or "events"]
    return Trend(key, title, buckets, series, dict(counts))


def task_failure_trend(*, span: TimeRange, now: datetime) -> Trend:
    """Background tasks that failed, per bucket (platform-wide)."""
    buckets = range_buckets(span, now)
    rows = (
        DBTaskResult.objects.failed()
        .filter(finished_at__gte=buckets[0], finished_at__lte=now)
        .order_by()
        .annotate(bucket=_trunc(span.unit, "finished_at"))
        .values("bucket")
        .annotate(n=Count("id"))
        .values_list("bucket", "n")
    )
    counts = {(bucket.astimezone(UTC), "failed"): n for bucket, n in rows}
    return Trend("task-failures", "Failed background tasks", buckets, ["failed"], counts)


@dataclass(frozen=True, slots=True)
class TaskHealth:
    ready: int  # queue depth: runnable now
    oldest_ready_age: timedelta | None
    running: int
    stalled: int  # RUNNING past the lease: a lost worker (`tasks_recover_stalled` requeues)
    failed_in_range: int
    lease: timedelta

    @property
    def oldest_ready_age_text(self) -> str:
        if self.oldest_ready_age is None:
            return ""
        seconds = int(self.oldest_ready_age.total_seconds())
        if seconds < 120:
            return f"{seconds} s"
        if seconds < 2 * 3600:
            return f"{seconds // 60} min"
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def task_health(*, span: TimeRange, now: datetime) -> TaskHealth:
    """The background-task queue (django-tasks-db's rows): platform-wide counts only."""
    lease = timedelta(seconds=settings.IRIS_TASK_LEASE_SECONDS)
    ready = DBTaskResult.objects.filter(status=TaskResultStatus.READY).filter(
        Q(run_after__lte=now) | Q(run_after=get_date_max())
    )
    oldest = ready.order_by("enqueued_at").values_list("enqueued_at", flat=True).first()
    running = DBTaskResult.objects.running()
    return TaskHealth(
        ready=ready.count(),
        oldest_ready_age=None if oldest is None else max(now - oldest, timedelta(0)),
        running=running.count(),
        stalled=running.filter(started_at__lt=now - lease).count(),
        failed_in_range=DBTaskResult.objects.failed()
        .filter(finished_at__gte=range_buckets(span, now)[0], finished_at__lte=now)
        .count(),
        lease=lease,
    )


def dashboard_tasks(*, span: TimeRange, now: datetime) -> tuple[TaskHealth | None, Trend | None]:
    """Task health and failures per bucket, each on its own (None when it fails)."""
    return (
        _part("tasks", lambda: task_health(span=span, now=now)),
        _part("task-failures", lambda: task_failure_trend(span=span, now=now)),
    )


def dashboard_trends(*, span: TimeRange, now: datetime, tenant_id=None) -> dict[str, Trend | None]:
    """Every audit trend of the range, each on its own (None when its query fails)."""
    return {
        key: _part(
            f"trend-{key}",
            lambda key=key, title=title, actions=actions, by=by, labels=labels: audit_trend(
                key=key,
                title=title,
                actions=actions,
                series_by=by,
                labels=labels,
                span=span,
                now=now,
                tenant_id=tenant_id,
            ),
        )
        for key, title, actions, by, labels in AUDIT_TRENDS
    }


# --- replay (R1) and reconstruction (RC1) --------------------------------------------------


def stm_replay(
    *,
    scope_id: str,
    since: datetime | None = None,
    limit: int = REPLAY_DEFAULT_LIMIT,
    member_id=None,
    tenant_id=None,
) -> list[AuditEvent]:
    """The short-term timeline of one scope, oldest first (ids and counts only): the
    events once named `memory.stm.*`, under their former names and their current ones
    (`hierarchy.stm.*`)."""
    events = AuditEvent.objects.filter(
        action_prefix_q("memory.stm."), payload__scope_id_digest=scope_digest(scope_id)
    )
    if since is not None:
        events = events.filter(occurred_at__gte=since)
    if member_id is not None:
        events = events.filter(target_member_id=member_id)
    if tenant_id is not None:
        members = TenantMembership.objects.filter(tenant_id=tenant_id).values("user_id")
        events = events.filter(target_member_id__in=members)
    limit = max(1, min(limit, REPLAY_MAX_LIMIT))
    return list(events.order_by("sequence")[:limit])


_STATE_BY_ACTION = {
    AuditAction.HIERARCHY_STM_WRITTEN: "written",
    AuditAction.HIERARCHY_STM_DEMOTED: "written",
    AuditAction.HIERARCHY_STM_REFRESHED: "refreshed",
    AuditAction.HIERARCHY_STM_RESCOPED: "rescoped",
    AuditAction.HIERARCHY_STM_EXPIRED: "expiring",
    AuditAction.HIERARCHY_STM_CONSOLIDATED: "consolidated",
    AuditAction.HIERARCHY_STM_SIGNAL_TRIGGERED: "consolidated",
    AuditAction.HIERARCHY_STM_ANONYMIZED: "anonymized",
    AuditAction.HIERARCHY_STM_DELETED: "deleted",
}


def stm_reconstruct(events: list[AuditEvent]) -> list[dict]:
    """RC1: the scope's rows as the chain tells them — derived data, never written back."""
    rows: dict[str, dict] = {}
    for event in events:
        stm_id = event.payload.get("stm_id")
        state = _STATE_BY_ACTION.get(current_name(event.action))
        if not stm_id or state is None:
            continue
        row = rows.setdefault(
            stm_id,
            {
                "stm_id": stm_id,
                "member_id": str(event.target_member_id) if event.target_member_id else None,
                "scope_kind": event.payload.get("scope_kind"),
                "category": event.payload.get("category"),
                "first_seen_at": event.occurred_at,
                "consolidated_to": None,
            },
        )
        row["state"] = state
        row["last_event_at"] = event.occurred_at
        row["last_sequence"] = event.sequence
        if state == "consolidated":
            row["consolidated_to"] = event.payload.get("entry_id")
    return list(rows.values())


# --- long-term entries by entity (R3, RC2) -------------------------------------------------


class LtmLookupKind:
    """What an entity string names; each kind matches its own column only."""

    ENTRY_ID = "entry-id"  # a UUID: the entry's id
    ENTITY = "entity"  # a UUID naming an entity (memory.entities.services), in any state
    ACTOR_HANDLE = "actor-handle"  # the keyed-hash shape of memory.policy.handles.actor_handle
    SUBJECT = "subject"  # anything else: a subject, which is member content

    CHOICES = (
        (ENTRY_ID, "entry id"),
        (ENTITY, "entity id"),
        (ACTOR_HANDLE, "actor handle"),
        (SUBJECT, "subject"),
    )


_ACTOR_HANDLE = re.compile(ACTOR_HANDLE_PATTERN)


def ltm_lookup_kind(entity: str) -> str:
    try:
        uuid.UUID(entity)
    except ValueError:
        return LtmLookupKind.ACTOR_HANDLE if _ACTOR_HANDLE.match(entity) else LtmLookupKind.SUBJECT
    return LtmLookupKind.ENTRY_ID


@dataclass(frozen=True, slots=True)
class LtmLookup:
    """The answer to an operator's lookup: counts by lifecycle, and the entries' metadata
    unless the lookup was by subject (``entries`` is None: counts only)."""

    kind: str
    counts: dict[str, int]
    entries: list[MemoryEntry] | None
    # For a lookup by entity id: the entity (its kind and lifecycle state, never a label).
    entity: MemoryEntity | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def ltm_entity_read(
    *,
    entity: str,
    actor: Actor,
    justification: str,
    state: str | None = None,
    member_id=None,
    tenant_id=None,
    limit: int = LTM_DEFAULT_LIMIT,
    with_history: bool = False,
) -> LtmLookup:
    """R3 (RC2 `with_history`): entries about one entity — an entity id (in any state:
    active, archived or retired, whose entries were erased with it), an entry id, an actor
    handle or a subject — in every lifecycle state unless `state` narrows it, inside the operator's
    tenant (`tenant_id`); justified and audited with ids and counts only.

    A subject is what a member said, so a lookup by subject answers how many entries and
    in which lifecycle, never whose or which: "which members have a memory about thyroid
    medication" is not an operator's question outside a granted inspection. For the same
    reason it cannot be narrowed to one member, shows no revision history, and its audit
    keeps the count, not the ids it matched (they would write the withheld answer into
    the chain). An entry id or an actor handle already names one member's entry or handle
    (handles are bound to the member's namespace): those answer with the entries'
    metadata, never a body or subject."""
    lookup = _ltm_lookup(
        entity=entity,
        state=state,
        member_id=member_id,
        tenant_id=tenant_id,
        limit=limit,
        with_history=with_history,
    )
    payload = {
        "lookup": lookup.kind,
        "entry_count": lookup.total,
        "state": state,
        "transition": "rc2" if with_history else "r3",
    }
    target = None
    if lookup.entity is not None:
        payload |= {"entity_id": str(lookup.entity.pk), "entity_state": lookup.entity.state}
    if lookup.entries is not None:
        members = sorted({str(e.member_id) for e in lookup.entries})
        payload |= {"entry_ids": [str(e.pk) for e in lookup.entries], "member_ids": members}
        target = member_id or (members[0] if len(members) == 1 else None)
    if lookup.entity is not None:
        target = lookup.entity.member_id
    access_record_append(
        action=AuditAction.HIERARCHY_LTM_HISTORY_READ
        if with_history
        else AuditAction.HIERARCHY_LTM_READ,
        actor=actor,
        justification=justification,
        target_member_id=target,
        payload=payload,
    )
    return lookup


def _ltm_lookup(
    *, entity: str, state, member_id, tenant_id, limit: int, with_history: bool
) -> LtmLookup:
    kind = ltm_lookup_kind(entity)
    entries = _tenant_entries(tenant_id)
    found = None
    if kind == LtmLookupKind.ENTRY_ID:
        found = _tenant_entity(uuid.UUID(entity), tenant_id)
    if found is not None:
        kind = LtmLookupKind.ENTITY
        entries = entries.filter(member_id=found.member_id, entity_links__entity=found)
    elif kind == LtmLookupKind.ENTRY_ID:
        entries = entries.filter(pk=uuid.UUID(entity))
    elif kind == LtmLookupKind.ACTOR_HANDLE:
        entries = entries.filter(actor_handle=entity)
    else:
        refused = {
            name: ["A lookup by subject answers counts only, across members."]
            for name, given in (("member_id", member_id), ("include_history", with_history))
            if given
        }
        if refused:
            raise InvalidInput(
                "A subject is member content: its lookup cannot name a member or show "
                "entries; open an inspection to read a member's memory.",
                code="subject-lookup-counts-only",
                fields=refused,
            )
        # Subjects are sealed under each member's key: no SQL can compare them, so the
        # reachable entries with a subject are opened and compared here (counts only).
        wanted = entity.casefold()
        entries = entries.filter(
            pk__in=[
                pk
                for pk, subject in entries.exclude(subject="").values_list("pk", "subject")
                if subject.casefold() == wanted
            ]
        )
    if state:
        entries = entries.filter(lifecycle=state)
    if member_id is not None:
        entries = entries.filter(member_id=member_id)
    counts = _by_lifecycle(entries)
    if kind == LtmLookupKind.SUBJECT:
        return LtmLookup(kind, counts, None)
    limit = max(1, min(limit, LTM_MAX_LIMIT))
    return LtmLookup(kind, counts, list(entries.order_by("-updated_at", "id")[:limit]), found)


def _tenant_entity(pk: uuid.UUID, tenant_id) -> MemoryEntity | None:
    """The entity with this id, if there is one the operator may see."""
    entities = MemoryEntity.objects.filter(pk=pk)
    if tenant_id is not None:
        members = TenantMembership.objects.filter(tenant_id=tenant_id).values("user_id")
        entities = entities.filter(member_id__in=members)
    return entities.first()


def ltm_history(entry: MemoryEntry) -> list[dict]:
    """RC2: the revision chain's metadata (never its content)."""
    return [
        {"number": r.number, "action": r.action, "actor": r.actor, "created_at": r.created_at}
        for r in MemoryRevision.objects.filter(member_id=entry.member_id, entry_id=entry.pk)
        .order_by("number")
        .only("number", "action", "actor", "created_at")
    ]
