"""Reads of inspections. Other apps (the member memory page) read here, never the models.

Visibility for operators: a request is visible to the operator who opened it; `admin`
operators (oversight) see everyone's; an approving role sees the requests on the paths it
approves as the second pair of eyes (legal: DSAR fulfilment; t&s: incident escalation).
A tenant-bound operator sees only requests about members of its tenant, and every lookup
outside that is a 404, as if nothing were there.
"""

from django.db.models import Q, QuerySet

from inspection.enums import InspectionState, NoticeState
from inspection.filters import InspectionRequestFilter
from inspection.models import (
    InspectionEvent,
    InspectionNotice,
    InspectionRequest,
    InspectionSnapshotItem,
)
from inspection.policy import (
    UNDECIDED_STATES,
    approvable_paths,
    may_see_others_requests,
    scope_admin_reviewable,
)
from iris_site.enums import OperatorRole
from iris_site.errors import NotFound
from iris_site.models import User
from iris_site.selectors import operator_tenant_id
from memory.contracts import parse_scope_key
from memory.enums import ScopeKind, is_sensitive_category
from memory.selectors import memory_entry_list


def member_tenant_ids(*, member_id) -> frozenset:
    return frozenset(
        User.objects.get(pk=member_id).tenant_memberships.values_list("tenant_id", flat=True)
    )


def inspection_target_member(*, operator: User, member_id) -> User:
    """The member an operator may open a request about, or 404 (no existence leak)."""
    member = User.objects.filter(pk=member_id).first()
    if member is None or not member.is_member:
        raise NotFound("No such member.")
    tenant_id = operator_tenant_id(operator)
    if tenant_id is not None and not member.tenant_memberships.filter(tenant_id=tenant_id).exists():
        raise NotFound("No such member.")
    return member


def inspection_member_find(*, operator: User, email: str) -> User | None:
    """The one member with exactly this email (letter case aside) whom the operator may
    open a request about, or None. A member outside the operator's tenant binding is None
    as well, exactly as if there were no such member (no existence leak)."""
    address = (email or "").strip()
    if not address:
        return None
    members = list(User.objects.filter(email__iexact=address)[:2])
    if len(members) != 1 or not members[0].is_member:
        return None
    tenant_id = operator_tenant_id(operator)
    member = members[0]
    if tenant_id is not None and not member.tenant_memberships.filter(tenant_id=tenant_id).exists():
        return None
    return member


def inspection_scope_options(*, operator: User, member: User) -> list[dict]:
    """The scopes an operator may ask to inspect for this member, each a scope key as
    `inspection_open` takes it (`{"kind", identifiers…}`) with its kind: the profile and
    crisis frames, every other admin-reviewable scope the member has memory in, and each
    of the member's tenants. A tenant-bound operator is offered its own tenant's scope
    only (the gate would refuse anything else). Identifiers, never content."""
    tenant_id = operator_tenant_id(operator)
    tenants = member.tenant_memberships.select_related("tenant").order_by("tenant__name")
    options = [
        {"scope": {"kind": ScopeKind.TENANT, "tenant_id": str(m.tenant_id)}, "tenant": m.tenant}
        for m in tenants
        if tenant_id is None or m.tenant_id == tenant_id
    ]
    if tenant_id is not None:
        return options
    fixed = [{"scope": {"kind": kind}} for kind in (ScopeKind.PROFILE, ScopeKind.CRISIS)]
    seen = {ScopeKind.PROFILE, ScopeKind.CRISIS, ScopeKind.TENANT}
    keys = (
        memory_entry_list(member_id=member.pk)
        .exclude(scope_kind__in=seen)
        .order_by("scope_kind", "scope_key")
        .values_list("scope_kind", "scope_key")
        .distinct()
    )
    found = []
    for _, key in keys:
        scope = parse_scope_key(key).model_dump(mode="json")
        scope.pop("user_id", None)
        found.append({"scope": scope})
    every = [*fixed, *found, *options]
    return [o for o in every if scope_admin_reviewable(o["scope"]["kind"])]


def inspection_list(*, operator: User, filters: dict | None = None) -> QuerySet[InspectionRequest]:
    """The requests this operator may see, newest first."""
    requests = InspectionRequest.objects.all()
    role = operator.operator_profile.role
    if not may_see_others_requests(role):
        requests = requests.filter(Q(operator=operator) | Q(path__in=approvable_paths(role)))
    tenant_id = operator_tenant_id(operator)
    if tenant_id is not None:
        # A tenant-bound operator sees only its own tenant's memory: requests about its
        # tenant's members, and of those only the ones on its tenant's scope (or its own),
        # never a platform operator's request on consumer memory or another tenant's scope.
        requests = requests.filter(member__tenant_memberships__tenant_id=tenant_id).filter(
            Q(operator=operator) | Q(scope_kind=ScopeKind.TENANT, target_tenant_id=tenant_id)
        )
    if filters:
        requests = InspectionRequestFilter(filters, requests).qs
    return requests.select_related("operator", "member")


def inspection_get(*, operator: User, inspection_id) -> InspectionRequest:
    """One request this operator may see, or 404."""
    inspection = inspection_list(operator=operator).filter(pk=inspection_id).first()
    if inspection is None:
        raise NotFound("No such inspection.")
    return inspection


def inspection_event_list(*, inspection_id) -> QuerySet[InspectionEvent]:
    return InspectionEvent.objects.filter(inspection_id=inspection_id).order_by("sequence")


def inspection_snapshot_items(*, inspection_id) -> QuerySet[InspectionSnapshotItem]:
    return InspectionSnapshotItem.objects.filter(inspection_id=inspection_id).order_by("position")


def inspection_undecided_due(*, now) -> QuerySet[InspectionRequest]:
    return InspectionRequest.objects.filter(state__in=UNDECIDED_STATES, decide_by__lte=now)


def inspection_grants_due(*, now) -> QuerySet[InspectionRequest]:
    return InspectionRequest.objects.filter(state=InspectionState.GRANTED, expires_at__lte=now)


def inspection_notices_pending(*, now) -> QuerySet[InspectionNotice]:
    return InspectionNotice.objects.filter(state=NoticeState.PENDING, queued_at__lte=now)


def inspection_notices_for_member(member_id) -> QuerySet[InspectionNotice]:
    """The member's delivered inspection notices, newest first (for the memory page too)."""
    return (
        InspectionNotice.objects.filter(member_id=member_id, state=NoticeState.DELIVERED)
        .select_related("inspection")
        .prefetch_related("inspection__snapshot_items")
        .order_by("-queued_at", "id")
    )


def inspection_notice_summary(notice: InspectionNotice) -> dict:
    """A delivered notice as the member sees it (the API's shape; the memory page can
    render it as is): who looked by role, which entries, why, when. Never the operator."""
    inspection = notice.inspection
    items = list(inspection.snapshot_items.all())
    categories = sorted({i.category for i in items if is_sensitive_category(i.category)})
    path_words = {
        InspectionState.DSAR_FULFILLMENT: "to fulfil your data-rights request",
        InspectionState.INCIDENT_ESCALATION: "to investigate a safety incident",
        InspectionState.ROUTINE_REVIEW: "for a routine review",
    }
    return {
        "id": notice.pk,
        "inspection_id": inspection.pk,
        "state": notice.state,
        "path": inspection.path,
        "operator_role": inspection.operator_role,
        "scope_kind": inspection.scope_kind,
        "entry_ids": [i.entry_id for i in items],
        "sensitive_categories": categories,
        "granted_at": inspection.granted_at,
        "closed_at": inspection.closed_at,
        "queued_at": notice.queued_at,
        "due_at": notice.due_at,
        "delivered_at": notice.delivered_at,
        "summary": (
            f"An operator ({OperatorRole(inspection.operator_role).label}) looked at "
            f"{len(items)} of your {inspection.scope_kind} memories, including sensitive "
            f"memory, {path_words.get(inspection.path, '')}."
        ),
    }
