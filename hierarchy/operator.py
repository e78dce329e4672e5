"""Operator reads of the hierarchy: tier counts (dashboard, counts API, CLI), the STM
replay (R1) and reconstruction (RC1), and long-term entries by entity (R3 / RC2).

Counts are aggregates; each part is computed on its own (in a savepoint) so one failing
query renders as "—" instead of failing the page. The long-term reads are cross-member
operator aggregates that memory's per-member selectors do not offer, so they read the
`MemoryEntry` model directly; they never return bodies.
"""

import contextlib
import logging
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.db.models.functions import TruncHour
from django.utils import timezone

from hierarchy.enums import StmScopeKind
from hierarchy.models import AuditEvent, ShortTermMemory
from hierarchy.stm import scope_digest
from iris_site.models import TenantMembership
from memory.enums import Lifecycle
from memory.models import MemoryEntry, MemoryRevision

logger = logging.getLogger(__name__)
EPISODIC_WINDOW = timedelta(hours=24)
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


def ltm_counts_by_lifecycle(*, tenant_id=None) -> dict[str, int]:
    entries = MemoryEntry.objects.all()
    if tenant_id is not None:
        entries = entries.filter(member__tenant_memberships__tenant_id=tenant_id)
    found = dict(
        entries.values_list("lifecycle").annotate(n=Count("id")).values_list("lifecycle", "n")
    )
    return {state: found.get(state, 0) for state in Lifecycle.values}


def _episodic_events(*, tenant_id=None, now: datetime) -> QuerySet[AuditEvent]:
    events = AuditEvent.objects.filter(occurred_at__gt=now - EPISODIC_WINDOW, occurred_at__lte=now)
    if tenant_id is not None:
        events = events.filter(target_tenant_id=tenant_id)
    return events


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
    )


# --- replay (R1) and reconstruction (RC1) --------------------------------------------------


def stm_replay(
    *,
    scope_id: str,
    since: datetime | None = None,
    limit: int = REPLAY_DEFAULT_LIMIT,
    member_id=None,
    tenant_id=None,
) -> list[AuditEvent]:
    """The `memory.stm.*` timeline of one scope, oldest first (ids and counts only)."""
    events = AuditEvent.objects.filter(
        action__startswith="memory.stm.", payload__scope_id_digest=scope_digest(scope_id)
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
    "memory.stm.write": "written",
    "memory.stm.demoted": "written",
    "memory.stm.refreshed": "refreshed",
    "memory.stm.rescoped": "rescoped",
    "memory.stm.expired": "expiring",
    "memory.stm.consolidated": "consolidated",
    "memory.stm.signal_triggered": "consolidated",
    "memory.stm.anonymized": "anonymized",
    "memory.stm.deleted": "deleted",
}


def stm_reconstruct(events: list[AuditEvent]) -> list[dict]:
    """RC1: the scope's rows as the chain tells them — derived data, never written back."""
    rows: dict[str, dict] = {}
    for event in events:
        stm_id = event.payload.get("stm_id")
        state = _STATE_BY_ACTION.get(event.action)
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


def ltm_entity_entries(
    *,
    entity: str,
    state: str | None = None,
    member_id=None,
    tenant_id=None,
    limit: int = LTM_DEFAULT_LIMIT,
) -> list[MemoryEntry]:
    """Entries about one entity — an actor handle, a subject, or an entry id — in every
    lifecycle state unless `state` narrows it."""
    match = Q(actor_handle=entity) | Q(subject__iexact=entity)
    with contextlib.suppress(ValueError):
        match |= Q(pk=uuid.UUID(entity))
    entries = MemoryEntry.objects.filter(match)
    if state:
        entries = entries.filter(lifecycle=state)
    if member_id is not None:
        entries = entries.filter(member_id=member_id)
    if tenant_id is not None:
        entries = entries.filter(member__tenant_memberships__tenant_id=tenant_id)
    limit = max(1, min(limit, LTM_MAX_LIMIT))
    return list(entries.order_by("-updated_at", "id")[:limit])


def ltm_history(entry: MemoryEntry) -> list[dict]:
    """RC2: the revision chain's metadata (never its content)."""
    return [
        {"number": r.number, "action": r.action, "actor": r.actor, "created_at": r.created_at}
        for r in MemoryRevision.objects.filter(member_id=entry.member_id, entry_id=entry.pk)
        .order_by("number")
        .only("number", "action", "actor", "created_at")
    ]
