"""Inspection test data, written through the services every caller uses."""

from django.conf import settings

from datarights.services import datarights_request_submit
from inspection.enums import InspectionState
from inspection.models import InspectionRequest
from inspection.policy import APPROVING_ROLES, incident_signature, needs_second_approver
from inspection.services import inspection_open, inspection_transition
from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

JUSTIFICATION = "Member wrote to support about a wrong reminder; checking what is stored."
INCIDENT_ID = "inc-2026-0042"


def incident_ref(member, incident_id: str = INCIDENT_ID) -> str:
    """A reference as the incident system signs it for this member (docs/design.md, "Four eyes")."""
    key = settings.INCIDENT_SIGNING_KEY.encode()
    signature = incident_signature(key=key, incident_id=incident_id, member_id=member.pk)
    return f"{incident_id}.{signature}"


def open_dsar(member):
    """An open (verified) data-rights access request of the member."""
    return datarights_request_submit(
        member=member,
        kind="access",
        payload={"include_operator_actions": True},
        actor=Actor.of(member),
        signed_in_session=True,
    )


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


def approver_for(path: str, *, tenant=None):
    """A second operator holding the path's approving role."""
    return OperatorFactory(role=APPROVING_ROLES[path], tenant=tenant)


def route(inspection, operator, path):
    """Route down an entry path with what the path needs (an open DSAR, a signed ref);
    returns the routed inspection."""
    extra = {}
    if path == InspectionState.DSAR_FULFILLMENT and inspection.dsar_request_id is None:
        extra["dsar_request_id"] = open_dsar(inspection.member).pk
    if path == InspectionState.INCIDENT_ESCALATION and not inspection.signed_incident_ref:
        extra["signed_incident_ref"] = incident_ref(inspection.member)
    return move(inspection, operator, path, **extra).inspection


def grant(inspection, operator, *, approver=None):
    """`→ granted` as it must be made: by the requester, or on a four-eyes request by a
    second operator with the approving role."""
    if needs_second_approver(path=inspection.state, include_sensitive=inspection.include_sensitive):
        operator = approver or approver_for(inspection.state)
    return move(inspection, operator, InspectionState.GRANTED)


def granted(operator, member, path=InspectionState.ROUTINE_REVIEW, *, approver=None, **open_fields):
    inspection = open_request(operator, member, **open_fields)
    inspection = route(inspection, operator, path)
    result = grant(inspection, operator, approver=approver)
    assert result.inspection.state == InspectionState.GRANTED, result.inspection.reason_code
    return result.inspection


def inspection_audit(inspection, action: str | None = None) -> list[AuditEvent]:
    """This inspection's episodic events, oldest first."""
    events = AuditEvent.objects.filter(payload__inspection_id=str(inspection.pk))
    if action is not None:
        events = events.filter(action=action)
    return list(events.order_by("sequence"))
