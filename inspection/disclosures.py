"""What the member is told about inspections, for memory's member surfaces (registered
in `memory.access.disclosures` from `InspectionConfig.ready()`, since memory cannot import
inspection).

Notices: every delivered notice of a sensitive inspection (the compliance notice, as
before) and, since issue 19, every closed non-sensitive inspection that let an operator
see at least one of the member's memories — the member learns of those too. Per memory:
each closed inspection whose snapshot held it, once the member may know of it (a
non-sensitive one when closed, a sensitive one once its notice is delivered). An
investigation carve-out is never disclosed here (it is told when the investigation
allows, through the notice). Roles, reasons and times only: never the operator.
"""

from inspection.enums import InspectionState, NoticeState
from inspection.models import InspectionNotice, InspectionRequest, InspectionSnapshotItem
from inspection.selectors import inspection_notice_summary, inspection_notices_for_member
from iris_site.enums import OperatorRole
from memory.access.disclosures import DisclosureSource

LIMIT = 50

PATH_WORDS = {
    InspectionState.DSAR_FULFILLMENT: "to fulfil your data-rights request",
    InspectionState.INCIDENT_ESCALATION: "to investigate a safety incident",
    InspectionState.ROUTINE_REVIEW: "for a routine review",
}


def _role(value: str) -> str:
    try:
        return str(OperatorRole(value).label)
    except ValueError:
        return "operator"


def _disclosable_closed():
    return InspectionRequest.objects.filter(
        state=InspectionState.CLOSED, investigation_carveout=False
    )


def _plain_summary(inspection: InspectionRequest, items: list) -> dict:
    """A closed non-sensitive inspection, in the shape of `inspection_notice_summary`."""
    return {
        "id": inspection.pk,
        "inspection_id": inspection.pk,
        "state": NoticeState.DELIVERED,
        "path": inspection.path,
        "operator_role": inspection.operator_role,
        "scope_kind": inspection.scope_kind,
        "entry_ids": [i.entry_id for i in items],
        "sensitive_categories": [],
        "granted_at": inspection.granted_at,
        "closed_at": inspection.closed_at,
        "queued_at": inspection.closed_at,
        "due_at": inspection.closed_at,
        "delivered_at": inspection.closed_at,
        "summary": (
            f"An operator ({_role(inspection.operator_role)}) looked at {len(items)} of "
            f"your {inspection.scope_kind} memories "
            f"{PATH_WORDS.get(inspection.path, '')}. No sensitive memory was included."
        ).replace("  ", " "),
    }


def member_inspection_notices(member_id, *, limit: int = LIMIT) -> list[dict]:
    """The member's inspection notices, sensitive and not, newest first; each has
    `kind` "inspection" and `sensitive`."""
    notices = [
        {**inspection_notice_summary(n), "kind": "inspection", "sensitive": True}
        for n in inspection_notices_for_member(member_id)[:limit]
    ]
    plain = (
        _disclosable_closed()
        .filter(member_id=member_id, include_sensitive=False)
        .prefetch_related("snapshot_items")
        .order_by("-closed_at", "id")[:limit]
    )
    for inspection in plain:
        items = list(inspection.snapshot_items.all())
        if items:
            notices.append(
                {**_plain_summary(inspection, items), "kind": "inspection", "sensitive": False}
            )
    notices.sort(key=lambda n: n["closed_at"], reverse=True)
    return notices[:limit]


def entry_inspections(*, member_id, entry_id) -> list[dict]:
    """The closed inspections that let an operator see this memory, newest first."""
    delivered = InspectionNotice.objects.filter(
        member_id=member_id, state=NoticeState.DELIVERED
    ).values("inspection_id")
    seen = InspectionSnapshotItem.objects.filter(member_id=member_id, entry_id=entry_id).values(
        "inspection_id"
    )
    inspections = (
        _disclosable_closed()
        .filter(member_id=member_id, pk__in=seen)
        .order_by("-granted_at", "id")[:LIMIT]
    )
    out = []
    delivered_ids = set(delivered.values_list("inspection_id", flat=True))
    for inspection in inspections:
        if inspection.include_sensitive and inspection.pk not in delivered_ids:
            continue  # told once its notice is delivered
        out.append(
            {
                "kind": "inspection",
                "who": f"An operator ({_role(inspection.operator_role)})",
                "at": inspection.granted_at or inspection.closed_at,
                "why": PATH_WORDS.get(inspection.path, ""),
            }
        )
    return out


INSPECTION_DISCLOSURES = DisclosureSource(
    name="inspection",
    notices=lambda *, member_id: member_inspection_notices(member_id),
    entry_accesses=entry_inspections,
)
