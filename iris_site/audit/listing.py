"""Operators' listings of the audit chain: what each role may list, what a listing shows,
and the record every listing of a member's events leaves in that member's chain.

- Every role sees a special-category value (a sensitive category, a consent type naming
  one) as `sealing.MARKER`, unless the listing is covered (`sealing.Cover`: a granted
  inspection of that member that includes sensitive categories, or an open data-rights
  request of that member handled by legal or admin); then, and only for that member's
  events, the values show.
- Support lists only what its work needs (`SUPPORT_ACTION_PREFIXES`: how a member's
  data-rights requests and inspections moved, and webhook deliveries), with counts only
  (`counts_only`: numbers, never an id, enum or value), and never under a cover. Support
  bound to a tenant sees that tenant's events, as every tenant-bound operator does.
- Listing a member's events is itself an event of that member
  (`iris_site.audit_events.listed`, one per member on a returned page): who (the
  operator's id and role), where, under which cover, how many events, how many values
  were shown as the marker and how many in the clear. The member's access report shows it.
"""

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from iris_site.audit.actions import AuditAction, current_name
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.sealing import Cover, Lister, cover_kinds, payload_listed, sensitive_values
from iris_site.audit.selectors import action_prefix_q
from iris_site.enums import OperatorRole
from iris_site.models import AuditEvent

POLICY_ID = "iris.iris_site.audit_listing.v1"
LISTED_ACTION = AuditAction.IRIS_SITE_AUDIT_EVENTS_LISTED
# What support's work needs from the chain: a member's data-rights requests and
# inspections moving along, and deliveries to the surfaces' webhooks. Not memory, consent,
# recall or short-term events, whose existence and timing say what a member confides.
SUPPORT_ACTION_PREFIXES = ("datarights.request.", "inspection.request.", "webhooks.")
# Roles whose listing may be covered (resolve special categories for one member).
COVERABLE_ROLES = frozenset({OperatorRole.ADMIN, OperatorRole.TRUST_AND_SAFETY, OperatorRole.LEGAL})


def role_events(events: QuerySet[AuditEvent], *, role: str) -> QuerySet[AuditEvent]:
    """The events a role may list at all (before any tenant binding)."""
    if role == OperatorRole.SUPPORT:
        allowed = Q()
        for prefix in SUPPORT_ACTION_PREFIXES:
            allowed |= action_prefix_q(prefix)
        return events.filter(allowed)
    if role in OperatorRole.values:
        return events
    return events.none()


def role_may_list(action: str, *, role: str) -> bool:
    """`role_events` for one event already read (by its current name or a former one)."""
    if role == OperatorRole.SUPPORT:
        name = current_name(action)
        return any(n.startswith(p) for n in (action, name) for p in SUPPORT_ACTION_PREFIXES)
    return role in OperatorRole.values


def category_listed(category: str | None) -> str | None:
    """A category read out of an event (a reconstruction's row) as a listing shows it."""
    if category is None:
        return None
    return payload_listed({"category": category})["category"]


def counts_only(payload: Mapping[str, Any] | None) -> dict:
    """A payload reduced to its counts: top-level numbers (not booleans, ids or enums)."""
    return {
        k: v
        for k, v in (payload or {}).items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }


@dataclass
class Listing:
    """One listing by one operator: how it shows each event's payload, and what it
    showed per member, for the record."""

    role: str
    cover: Cover | None = None

    def __post_init__(self) -> None:
        covered = (
            frozenset({str(self.cover.member_id)})
            if self.cover is not None and self.cover.sensitive
            else frozenset()
        )
        self.lister = Lister(covered=covered)
        self.counts_only = self.role not in COVERABLE_ROLES
        self._shown: dict[str, Counter] = defaultdict(Counter)

    def payload(self, event: AuditEvent) -> dict:
        tally = self._shown[str(event.target_member_id)] if event.target_member_id else Counter()
        tally["events"] += 1
        if self.counts_only:
            return counts_only(event.payload)
        return self.lister.payload(event, tally)

    def record(self, *, actor: Actor, surface: str, tenant_id=None) -> int:
        """One content-free event per member whose events this listing showed."""
        for member_id, tally in sorted(self._shown.items()):
            audit_listing_record(
                member_id=member_id,
                actor=actor,
                surface=surface,
                cover=self.cover,
                event_count=tally["events"],
                marker_count=tally["marker"],
                revealed_count=tally["revealed"],
                counts_only=self.counts_only,
                tenant_id=tenant_id,
            )
        return len(self._shown)

    def show(self, events: Iterable[AuditEvent]) -> list[dict]:
        return [self.payload(e) for e in events]


def audit_listing_record(
    *,
    member_id,
    actor: Actor,
    surface: str,
    cover: Cover | None,
    event_count: int,
    marker_count: int = 0,
    revealed_count: int = 0,
    counts_only: bool = False,
    tenant_id=None,
) -> AuditEvent:
    return audit_event_append(
        action=LISTED_ACTION,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member_id,
        target_tenant_id=tenant_id,
        payload={
            "surface": surface,
            "cover": cover.kind if cover is not None else "none",
            "cover_id": str(cover.cover_id) if cover is not None else None,
            "event_count": event_count,
            "marker_count": marker_count,
            "revealed_count": revealed_count,
            "counts_only": counts_only,
        },
    )


# --- The documented matrix: each role, each special category, each cover -----------------

# The events a special category shows up in, and the field it is in: a memory of that
# category written, and a consent to it granted.
MATRIX_EVENTS = (
    (AuditAction.MEMORY_ENTRY_CREATED, "category", ""),
    (AuditAction.CONSENT_EVENT_GRANT, "consent_type", "category:"),
)
NO_COVER = "no cover"
NOT_LISTED = "not listed"
REFUSED = "refused (403)"
SHOWN = "the category"


@dataclass(frozen=True, slots=True)
class MatrixColumn:
    label: str
    kind: str | None  # the cover kind, None for no cover
    sensitive: bool  # the cover reaches special categories
    roles: frozenset[str] = frozenset(OperatorRole.values)  # who can ever hold it


def matrix_columns() -> list[MatrixColumn]:
    columns = [MatrixColumn(NO_COVER, None, False)]
    for registered in cover_kinds():
        for label, sensitive, roles in registered.variants:
            columns.append(MatrixColumn(label, registered.kind, sensitive, roles))
    return columns


def listing_reveals(*, role: str, category: str, column: MatrixColumn) -> str:
    """What a listing by `role` under `column` reveals of a special category in the
    events it appears in (`MATRIX_EVENTS`): the policy, evaluated as the listing does."""
    if role not in column.roles:
        return REFUSED
    shown = set()
    for action, field_name, prefix in MATRIX_EVENTS:
        if not role_may_list(action, role=role):
            shown.add(NOT_LISTED)
            continue
        if role not in COVERABLE_ROLES:
            shown.add("counts only")
            continue
        value = prefix + category
        resolve = {} if column.sensitive else None
        listed = payload_listed({field_name: value}, resolve=resolve)[field_name]
        shown.add(SHOWN if listed == value else f"`{listed}`")
    return " / ".join(sorted(shown))


def listing_matrix() -> list[tuple[str, str, list[str]]]:
    """(role, category, a cell per column) for every role and special category."""
    categories = sorted(v for v in sensitive_values() if ":" not in v)
    columns = matrix_columns()
    return [
        (role, category, [listing_reveals(role=role, category=category, column=c) for c in columns])
        for role in OperatorRole.values
        for category in categories
    ]


def listing_matrix_table() -> str:
    """The matrix as Markdown (`manage.py audit_listing_matrix`; docs/audit-listings.md)."""
    columns = matrix_columns()
    lines = [
        "| role | category | " + " | ".join(c.label for c in columns) + " |",
        "|" + "---|" * (len(columns) + 2),
    ]
    for role, category, cells in listing_matrix():
        lines.append(f"| `{role}` | `{category}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
