"""Inspection test data, written through the services every caller uses."""

from hierarchy.models import AuditEvent
from inspection.enums import InspectionState
from inspection.models import InspectionRequest
from inspection.services import inspection_open, inspection_transition
from tests.memory.factories import consenting_member, remember

JUSTIFICATION = "Member wrote to support about a wrong reminder; checking what is stored."
INCIDENT_REF = "inc-2026-0042"


def member_with_memory(*consents, tenants=()):
    """A consenting member with one ordinary and (with `category:medical`) one sensitive
    profile memory, plus a session memory outside the profile scope."""
    member = consenting_member(*consents, tenants=tenants)
    entries = {"ordinary": remember(member, subject="coffee").entry}
    entries["session"] = remember(
        member, scope={"kind": "session", "session_id": "s-1"}, subject="walks"
    ).entry
    if "category:medical" in consents:
        entries["sensitive"] = remember(
            member, category="medical", subject="allergy", body="I am allergic to penicillin"
        ).entry
    return member, entries


def open_request(operator, member, **overrides) -> InspectionRequest:
    fields = {
        "scope": {"kind": "profile"},
        "justification": JUSTIFICATION,
        "include_sensitive": False,
        "signed_incident_ref": None,
    }
    fields.update(overrides)
    return inspection_open(operator=operator, member_id=member.pk, **fields)


def move(inspection, operator, *states, **extra):
    """Take the given steps in order as `operator`; returns the last result."""
    result = None
    for state in states:
        result = inspection_transition(inspection=inspection, to=state, operator=operator, **extra)
        inspection = result.inspection
    return result


def granted(operator, member, path=InspectionState.ROUTINE_REVIEW, **open_fields):
    inspection = open_request(operator, member, **open_fields)
    result = move(inspection, operator, path, InspectionState.GRANTED)
    assert result.inspection.state == InspectionState.GRANTED, result.inspection.reason_code
    return result.inspection


def inspection_audit(inspection, action: str | None = None) -> list[AuditEvent]:
    """This inspection's episodic events, oldest first."""
    events = AuditEvent.objects.filter(payload__inspection_id=str(inspection.pk))
    if action is not None:
        events = events.filter(action=action)
    return list(events.order_by("sequence"))
