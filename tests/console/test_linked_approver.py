"""The console's inspection page for a linked approver: "Approve as second approver" is
offered disabled, with why; a forced POST is refused with the service's words, audited,
and the request stays undecided."""

import pytest

from inspection.enums import InspectionState
from inspection.services import inspection_transition
from iris_site.models import AuditEvent, OperatorAccountChange, User
from iris_site.operators import operator_change_decide, operator_create
from tests.inspection.factories import member_with_memory, open_dsar, open_request
from tests.iris_site.factories import PASSWORD, OperatorFactory

pytestmark = pytest.mark.django_db

S = InspectionState


def legal_made_by(admin, approver, email):
    account = operator_create(email=email, password=PASSWORD, role="legal", by=admin)
    change = OperatorAccountChange.objects.get(subject=account, state="pending")
    operator_change_decide(change=change, by=approver, approve=True)
    return User.objects.get(pk=account.pk)  # its role now legal


@pytest.fixture
def routed():
    member, _ = member_with_memory("category:medical")
    admin, second_admin = OperatorFactory(role="admin"), OperatorFactory(role="admin")
    requester = legal_made_by(admin, second_admin, "one@example.test")
    linked = legal_made_by(admin, second_admin, "two@example.test")
    inspection = open_request(requester, member, include_sensitive=True)
    inspection_transition(
        inspection=inspection,
        to=S.DSAR_FULFILLMENT,
        operator=requester,
        dsar_request_id=open_dsar(member).pk,
    )
    return inspection, linked


def test_a_linked_approver_sees_approve_disabled_with_why(client, routed):
    inspection, linked = routed
    client.force_login(linked)
    page = client.get(f"/console/inspections/{inspection.pk}/").content.decode()
    assert "Approve as second approver" in page
    assert 'disabled aria-describedby="why-granted"' in page
    assert "count as one person" in page
    assert "the same operator created or changed both accounts recently" in page
    # an unlinked legal operator is offered it
    client.force_login(OperatorFactory(role="legal"))
    page = client.get(f"/console/inspections/{inspection.pk}/").content.decode()
    assert 'disabled aria-describedby="why-granted"' not in page


def test_a_forced_approval_is_refused_and_audited(client, routed):
    inspection, linked = routed
    client.force_login(linked)
    response = client.post(f"/console/inspections/{inspection.pk}/granted/", follow=True)
    assert response.status_code == 200
    assert "You and the requester are linked" in response.content.decode()
    inspection.refresh_from_db()
    assert inspection.state == S.DSAR_FULFILLMENT
    event = AuditEvent.objects.get(
        action="inspection.request.transition_rejected", actor_id=linked.pk
    )
    assert event.payload["refusal"] == "approver-linked-to-requester"
