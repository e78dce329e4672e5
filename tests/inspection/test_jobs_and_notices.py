"""Time boxes and member notices: the expiry and close jobs, notices queued at a
sensitive close (unless carved out) and delivered by a job; every job is idempotent."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from inspection.enums import InspectionState, NoticeState, ReasonCode
from inspection.models import InspectionEvent, InspectionNotice
from inspection.selectors import inspection_notices_for_member
from inspection.services import (
    inspection_close_expired_grants,
    inspection_expire_undecided,
    inspection_notices_deliver,
    inspection_transition,
)
from tests.inspection.factories import (
    approver_for,
    granted,
    inspection_audit,
    member_with_memory,
    move,
    open_request,
    route,
)
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

S = InspectionState
TRANSITION = "inspection.request.transitioned"
QUEUED = "inspection.notice.queued"
DELIVERED = "inspection.notice.delivered"


@pytest.fixture
def legal():
    return OperatorFactory(role="legal")


def sensitive_grant(operator, **open_fields):
    member, _ = member_with_memory("category:medical")
    path = (
        S.DSAR_FULFILLMENT if operator.operator_profile.role == "legal" else (S.INCIDENT_ESCALATION)
    )
    inspection = granted(operator, member, path, include_sensitive=True, **open_fields)
    return member, inspection


# --- Notices ---------------------------------------------------------------------------------


def test_a_sensitive_close_queues_exactly_one_notice_due_within_72_hours(legal):
    # given
    member, inspection = sensitive_grant(legal)
    # when
    result = inspection_transition(inspection=inspection, to=S.CLOSED, operator=legal)
    # then
    (notice,) = InspectionNotice.objects.filter(member=member)
    closed_at = result.inspection.closed_at
    assert notice.inspection_id == inspection.pk and notice.state == NoticeState.PENDING
    assert notice.queued_at == closed_at
    assert notice.due_at - closed_at == timedelta(hours=72)
    (queued,) = inspection_audit(inspection, QUEUED)
    assert queued.payload["notice_id"] == str(notice.pk)
    assert queued.target_member_id == member.pk
    # pending notices are not shown to the member yet
    assert not inspection_notices_for_member(member.pk).exists()


def test_delivery_shows_the_notice_to_the_member_and_is_idempotent(legal):
    # given
    member, inspection = sensitive_grant(legal)
    inspection_transition(inspection=inspection, to=S.CLOSED, operator=legal)
    # when
    first = inspection_notices_deliver()
    second = inspection_notices_deliver()
    # then
    assert (first, second) == (1, 0)
    (notice,) = inspection_notices_for_member(member.pk)
    assert notice.state == NoticeState.DELIVERED and notice.delivered_at <= notice.due_at
    (delivered,) = inspection_audit(inspection, DELIVERED)
    assert delivered.payload["on_time"] is True and delivered.actor_type == "system"


def test_an_investigation_carveout_suppresses_the_notice():
    # given
    tns = OperatorFactory(role="t&s")
    _member, inspection = sensitive_grant(tns)
    # when
    result = inspection_transition(
        inspection=inspection, to=S.CLOSED, operator=tns, investigation_carveout=True
    )
    # then
    assert result.inspection.investigation_carveout
    assert not InspectionNotice.objects.exists()
    assert not inspection_audit(inspection, QUEUED)
    close = inspection_audit(inspection, TRANSITION)[-1]
    assert close.payload["investigation_carveout"] is True and close.payload["to_state"] == "closed"


def test_a_carveout_recorded_at_grant_holds_when_the_time_box_closes_it():
    tns = OperatorFactory(role="t&s")
    member, _ = member_with_memory("category:medical")
    inspection = open_request(tns, member, include_sensitive=True)
    inspection = route(inspection, tns, S.INCIDENT_ESCALATION)
    move(inspection, approver_for(S.INCIDENT_ESCALATION), S.GRANTED, investigation_carveout=True)
    inspection.refresh_from_db()
    assert inspection_close_expired_grants(now=inspection.expires_at) == 1
    assert not InspectionNotice.objects.exists()


def test_closing_an_ordinary_inspection_queues_no_notice(legal):
    member, _ = member_with_memory("category:medical")
    inspection = granted(legal, member)
    inspection_transition(inspection=inspection, to=S.CLOSED, operator=legal)
    assert not InspectionNotice.objects.exists()


# --- Undecided requests expire ---------------------------------------------------------------


def test_undecided_requests_are_denied_expired_after_72_hours_through_allowed_steps(legal):
    # given
    member, _ = member_with_memory()
    unrouted = open_request(legal, member)
    routed = open_request(legal, member)
    route(routed, legal, S.DSAR_FULFILLMENT)
    fresh = open_request(legal, member, now=timezone.now() + timedelta(hours=1))
    later = unrouted.created_at + timedelta(hours=72, seconds=1)
    # when
    first = inspection_expire_undecided(now=later)
    second = inspection_expire_undecided(now=later)
    # then
    assert (first, second) == (2, 0)
    for inspection in (unrouted, routed):
        inspection.refresh_from_db()
        assert inspection.state == S.DENIED and inspection.reason_code == ReasonCode.EXPIRED
        last = inspection_audit(inspection, TRANSITION)[-1]
        assert last.actor_type == "system" and last.payload["reason_code"] == "expired"
    steps = list(
        InspectionEvent.objects.filter(inspection=unrouted).values_list(
            "from_state", "to_state", "reason_code"
        )
    )
    assert steps == [
        ("", "requested", ""),
        ("requested", "routine-review", "expired"),
        ("routine-review", "denied", "expired"),
    ]
    fresh.refresh_from_db()
    assert fresh.state == S.REQUESTED


def test_a_decided_request_is_left_alone_by_the_expiry_job(legal):
    member, _ = member_with_memory()
    inspection = granted(legal, member)
    assert inspection_expire_undecided(now=inspection.created_at + timedelta(days=10)) == 0


# --- Grants are time-boxed -------------------------------------------------------------------


def test_grants_close_by_themselves_after_24_hours(legal):
    # given
    _member, inspection = sensitive_grant(legal)
    # when
    early = inspection_close_expired_grants(now=inspection.granted_at + timedelta(hours=23))
    on_time = inspection_close_expired_grants(now=inspection.granted_at + timedelta(hours=24))
    again = inspection_close_expired_grants(now=inspection.granted_at + timedelta(hours=25))
    # then
    assert (early, on_time, again) == (0, 1, 0)
    inspection.refresh_from_db()
    assert inspection.state == S.CLOSED and inspection.reason_code == ReasonCode.GRANT_EXPIRED
    last = inspection_audit(inspection, TRANSITION)[-1]
    assert last.actor_type == "system" and last.payload["reason_code"] == "grant-expired"
    # a sensitive grant closed by its time box still owes the member a notice
    assert InspectionNotice.objects.filter(inspection=inspection).count() == 1


@override_settings(IRIS_INSPECTION_GRANT_HOURS=1, IRIS_INSPECTION_DECISION_HOURS=2)
def test_the_time_boxes_are_configurable(legal):
    member, _ = member_with_memory()
    inspection = granted(legal, member)
    assert inspection.expires_at - inspection.granted_at == timedelta(hours=1)
    assert inspection.decide_by - inspection.created_at == timedelta(hours=2)


def test_the_management_command_runs_every_job(legal, capsys):
    _member, inspection = sensitive_grant(legal)
    inspection_transition(inspection=inspection, to=S.CLOSED, operator=legal)
    call_command("inspection_jobs")
    out = capsys.readouterr().out
    assert "1 member notice(s) delivered" in out
    call_command("inspection_jobs", "--only", "deliver")
    assert "0 member notice(s) delivered" in capsys.readouterr().out
