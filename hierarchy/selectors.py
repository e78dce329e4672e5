"""Reads of the episodic chain."""

from dataclasses import dataclass

from django.db.models import QuerySet

from hierarchy.events import link_of
from hierarchy.models import AuditEvent
from hierarchy.policy import ChainBreak, first_break


def audit_event_list(*, tenant_id=None) -> QuerySet[AuditEvent]:
    """Events an operator may list; a tenant-bound operator sees only their tenant's."""
    events = AuditEvent.objects.all()
    if tenant_id is not None:
        events = events.filter(target_tenant_id=tenant_id)
    return events


def audit_events_for_member(*, member_id) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(target_member_id=member_id)


@dataclass(frozen=True, slots=True)
class ChainReport:
    valid: bool
    checked_count: int
    first_break: ChainBreak | None


def audit_chain_verify(*, batch_size: int = 2000) -> ChainReport:
    """Recompute every hash in sequence order; name the first event that fails."""
    counted = 0

    def links():
        nonlocal counted
        for event in AuditEvent.objects.order_by("sequence").iterator(chunk_size=batch_size):
            counted += 1
            yield link_of(event), event.previous_hash, event.hash

    broken = first_break(links())
    return ChainReport(valid=broken is None, checked_count=counted, first_break=broken)
