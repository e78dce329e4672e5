"""The admin console workflow calls the same services as the API: open, move along,
read the snapshot while granted (recorded), close."""

import pytest
from django.contrib.admin import helpers
from django.urls import reverse

from inspection.models import InspectionRequest
from iris_site.models import User
from tests.inspection.factories import (
    JUSTIFICATION,
    granted,
    inspection_audit,
    member_with_memory,
    open_dsar,
    open_request,
)
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:inspection_inspectionrequest_changelist")
ADD = reverse("admin:inspection_inspectionrequest_add")


def logged_in(client, operator):
    client.force_login(operator)
    return client


def act(client, action: str, inspection):
    return client.post(
        CHANGELIST,
        {"action": action, helpers.ACTION_CHECKBOX_NAME: [str(inspection.pk)]},
        follow=True,
    )


def test_an_operator_opens_moves_reads_and_closes_in_the_admin(client):
    # given
    member, entries = member_with_memory()
    operator = OperatorFactory(role="support")
    logged_in(client, operator)
    assert client.get(ADD).status_code == 200
    # when: open
    response = client.post(
        ADD,
        {
            "target_user_id": str(member.pk),
            "scope": '{"kind": "profile"}',
            "justification": JUSTIFICATION,
        },
    )
    # then
    inspection = InspectionRequest.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "admin:inspection_inspectionrequest_change", args=[inspection.pk]
    )
    assert inspection.operator == operator and inspection.state == "requested"
    # move along with the changelist actions
    act(client, "move_to_routine_review", inspection)
    page = act(client, "move_to_granted", inspection)
    assert f"Inspection {inspection.pk}: now granted." in page.content.decode()
    inspection.refresh_from_db()
    assert inspection.state == "granted"
    # the snapshot page shows the pinned body and records the read
    snapshot = client.get(
        reverse("admin:inspection_inspectionrequest_snapshot", args=[inspection.pk])
    )
    assert snapshot.status_code == 200
    assert "I take my coffee black" in snapshot.content.decode()
    assert len(inspection_audit(inspection, "inspection.snapshot.read")) == 1
    # the change page lists the steps
    change = client.get(
        reverse("admin:inspection_inspectionrequest_change", args=[inspection.pk])
    ).content.decode()
    assert "routine-review" in change and "Read the snapshot" in change
    # close
    act(client, "move_to_closed", inspection)
    inspection.refresh_from_db()
    assert inspection.state == "closed"
    assert entries["ordinary"].body not in client.get(CHANGELIST).content.decode()


def test_refusals_in_the_admin_are_messages_not_errors(client):
    member, _ = member_with_memory("category:medical")
    operator = OperatorFactory(role="support")
    inspection = open_request(operator, member, include_sensitive=True)
    logged_in(client, operator)
    page = act(client, "move_to_granted", inspection).content.decode()
    assert "illegal-transition" in page
    act(client, "move_to_routine_review", inspection)
    page = act(client, "move_to_granted", inspection).content.decode()
    assert "refused (second-approver-required)" in page  # four eyes: never the requester
    # routine review's second pair of eyes grants; the gate refuses (never sensitive)
    logged_in(client, OperatorFactory(role="admin"))
    page = act(client, "move_to_granted", inspection).content.decode()
    assert "denied by the policy gate (no-legitimate-interest)" in page
    inspection.refresh_from_db()
    assert inspection.state == "denied"
    logged_in(client, operator)
    snapshot = client.get(
        reverse("admin:inspection_inspectionrequest_snapshot", args=[inspection.pk]), follow=True
    )
    assert "inspection-not-granted" in snapshot.content.decode()


def test_an_invalid_open_form_shows_the_services_errors(client):
    member, _ = member_with_memory()
    logged_in(client, OperatorFactory(role="legal"))
    response = client.post(
        ADD,
        {"target_user_id": str(member.pk), "scope": '{"kind": "session"}', "justification": "x"},
    )
    assert response.status_code == 200
    assert "session_id" in response.content.decode()
    assert not InspectionRequest.objects.exists()


def test_operators_see_only_their_requests_and_never_anothers_snapshot(client):
    member, _ = member_with_memory()
    owner = OperatorFactory(role="legal")
    inspection = granted(owner, member)
    logged_in(client, OperatorFactory(role="legal"))
    assert str(inspection.pk) not in client.get(CHANGELIST).content.decode()
    snapshot_url = reverse("admin:inspection_inspectionrequest_snapshot", args=[inspection.pk])
    assert client.get(snapshot_url).status_code == 404
    logged_in(client, OperatorFactory(role="admin"))  # oversight sees it, cannot read it
    assert str(inspection.pk) in client.get(CHANGELIST).content.decode()
    page = client.get(snapshot_url, follow=True).content.decode()
    assert "not-request-owner" in page and "coffee" not in page


def test_steps_and_notices_are_read_only(client):
    client.force_login(OperatorFactory(role="admin", is_superuser=True))
    for name in ("inspectionevent", "inspectionnotice"):
        assert client.get(reverse(f"admin:inspection_{name}_changelist")).status_code == 200
        assert client.get(reverse(f"admin:inspection_{name}_add")).status_code == 403


def test_a_superuser_without_an_operator_role_cannot_move_requests(client):
    member, _ = member_with_memory()
    inspection = open_request(OperatorFactory(role="legal"), member)
    root = User.objects.create_superuser("root@example.test", "pw-long-enough-1")
    client.force_login(root)
    assert client.get(ADD).status_code == 403
    page = act(client, "move_to_routine_review", inspection).content.decode()
    assert "refused (permission_denied)" in page
    inspection.refresh_from_db()
    assert inspection.state == "requested"


def test_a_second_legal_operator_grants_a_dsar_request_in_the_admin(client):
    # given: legal opens a sensitive request for the member's open data-rights request
    member, entries = member_with_memory("category:medical")
    dsar = open_dsar(member)
    requester, second = OperatorFactory(role="legal"), OperatorFactory(role="legal")
    logged_in(client, requester)
    client.post(
        ADD,
        {
            "target_user_id": str(member.pk),
            "scope": '{"kind": "profile"}',
            "justification": JUSTIFICATION,
            "include_sensitive": "on",
            "dsar_request_id": str(dsar.pk),
        },
    )
    inspection = InspectionRequest.objects.get()
    assert inspection.dsar_request_id == dsar.pk
    act(client, "move_to_dsar_fulfillment", inspection)
    # when: the second legal operator sees it on their path and grants it
    logged_in(client, second)
    assert str(inspection.pk) in client.get(CHANGELIST).content.decode()
    page = act(client, "move_to_granted", inspection).content.decode()
    # then
    assert f"Inspection {inspection.pk}: now granted." in page
    inspection.refresh_from_db()
    assert inspection.state == "granted" and inspection.granted_by == second
    assert str(entries["sensitive"].pk) in {
        str(i) for i in inspection.snapshot_items.values_list("entry_id", flat=True)
    }
