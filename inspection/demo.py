"""Demo inspections, written through the services so the audit chain shows every step:

- legal fulfils Ada's data-rights request (the data-rights demo files it), a second legal
  operator grants the request (four eyes: never its requester), the requester reads her
  profile memory (sensitive included) and closes; Ada gets the notice;
- support has opened a routine review of Ben's profile and left it waiting for its next
  step, so the console's "Waiting for you" has something to show.

Each is skipped when it already exists, so re-running is a no-op.
"""

from inspection.enums import InspectionState
from inspection.selectors import inspection_list
from inspection.services import (
    inspection_notices_deliver,
    inspection_open,
    inspection_transition,
)
from iris_site.models import User

MEMBER = "ada@iris.example"
OPERATOR = "legal@iris.example"
ROUTINE_MEMBER = "ben@iris.example"
SUPPORT = "support@iris.example"
ROUTINE_JUSTIFICATION = "Ben reported that the assistant repeats an old preference (demo)."
APPROVER = "legal-review@iris.example"
JUSTIFICATION = "Fulfilling the member's own data-rights access request (demo)."


def _operator(data: dict, email: str) -> User | None:
    row = next((o for o in data["operators"] if o["email"] == email), None)
    if row is None:
        return None
    return User.objects.select_related("operator_profile").get(pk=row["id"])


def _waiting_routine_review(data: dict) -> None:
    member = next((m for m in data["members"] if m["email"] == ROUTINE_MEMBER), None)
    support = _operator(data, SUPPORT)
    if member is None or support is None:
        return
    if inspection_list(operator=support).filter(member_id=member["id"]).exists():
        return
    inspection_open(
        operator=support,
        member_id=member["id"],
        scope={"kind": "profile"},
        justification=ROUTINE_JUSTIFICATION,
    )


def seed(data: dict) -> None:
    _waiting_routine_review(data)
    member = next((m for m in data["members"] if m["email"] == MEMBER), None)
    operator, approver = _operator(data, OPERATOR), _operator(data, APPROVER)
    # Handed on by the data-rights demo; not part of the demo data seed_demo prints.
    open_requests = data.pop("open_data_rights_requests", {})
    dsar_request_id = open_requests.get(member["id"]) if member else None
    if member is None or operator is None or approver is None or dsar_request_id is None:
        return
    if inspection_list(operator=operator).filter(member_id=member["id"]).exists():
        return
    inspection = inspection_open(
        operator=operator,
        member_id=member["id"],
        scope={"kind": "profile"},
        justification=JUSTIFICATION,
        include_sensitive=True,
        dsar_request_id=dsar_request_id,
    )
    for step, actor in (
        (InspectionState.DSAR_FULFILLMENT, operator),
        (InspectionState.GRANTED, approver),
        (InspectionState.CLOSED, operator),
    ):
        result = inspection_transition(inspection=inspection, to=step, operator=actor)
        if result.inspection.state == InspectionState.DENIED:
            return  # the gate said no (e.g. consents changed): the denial is the demo
    inspection_notices_deliver()
