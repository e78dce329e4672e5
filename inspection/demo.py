"""Demo inspection: legal fulfils Ada's data-rights request, reads her profile memory
(sensitive included) and closes; Ada gets the notice. Written through the services, so
the audit chain shows every step. Skipped when it already exists, so re-running is a no-op.
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
JUSTIFICATION = "Fulfilling the member's own data-rights access request (demo)."


def seed(data: dict) -> None:
    member = next((m for m in data["members"] if m["email"] == MEMBER), None)
    operator_row = next((o for o in data["operators"] if o["email"] == OPERATOR), None)
    if member is None or operator_row is None:
        return
    operator = User.objects.select_related("operator_profile").get(pk=operator_row["id"])
    if inspection_list(operator=operator).filter(member_id=member["id"]).exists():
        return
    inspection = inspection_open(
        operator=operator,
        member_id=member["id"],
        scope={"kind": "profile"},
        justification=JUSTIFICATION,
        include_sensitive=True,
    )
    for step in (
        InspectionState.DSAR_FULFILLMENT,
        InspectionState.GRANTED,
        InspectionState.CLOSED,
    ):
        result = inspection_transition(inspection=inspection, to=step, operator=operator)
        if result.inspection.state == InspectionState.DENIED:
            return  # the gate said no (e.g. consents changed): the denial is the demo
    inspection_notices_deliver()
