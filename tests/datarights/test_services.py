"""Submission, verification, the transitions and their audit, deadlines, expiry and
the database's guarantees (append-only trail, constraints)."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from datarights.enums import RequestStatus, TrailEvent
from datarights.models import DataRightsRequest, DataRightsTrailEntry, VerificationCode
from datarights.policy import CODE_MAX_ATTEMPTS, CODE_MAX_ISSUED, code_digest, trail_problem
from datarights.selectors import datarights_trail_rows
from datarights.services import (
    datarights_appeal,
    datarights_cancel,
    datarights_code_resend,
    datarights_expire_unverified_due,
    datarights_extend,
    datarights_fail,
    datarights_operator_transition,
    datarights_request_submit_or_join,
    datarights_request_transition,
    datarights_verify_code,
    datarights_verify_session,
)
from iris_site.audit.events import Actor
from iris_site.errors import Conflict, InvalidInput, NotPermitted
from tests.datarights.factories import (
    HARD_DELETE,
    PAYLOADS,
    audit_for,
    process,
    submit,
    trail_events,
)
from tests.iris_site.factories import MemberFactory, OperatorFactory

pytestmark = pytest.mark.django_db


def _code_of(message) -> str:
    return re.search(r"code is (\d{6})", message.body).group(1)


def _job_rows(request) -> int:
    """Processing jobs enqueued for this request (django-tasks-db rows)."""
    return sum(
        1
        for row in DBTaskResult.objects.filter(
            task_path="datarights.tasks.process_data_rights_request"
        )
        if row.args_kwargs["args"] == [str(request.pk)]
    )


def _matches(request, stored, code: str) -> bool:
    return (
        code_digest(
            secret=settings.IRIS_HASH_SECRET.encode(), request_id=str(request.pk), code=code
        )
        == stored.code_hash
    )


def _wrong(request) -> str:
    stored = VerificationCode.objects.get(request=request, state="active")
    return next(f"{n:06d}" for n in range(10) if not _matches(request, stored, f"{n:06d}"))


# --- submission and verification ------------------------------------------------------------


def test_a_signed_in_session_verifies_at_once_and_queues_the_job_in_the_same_transaction():
    member = MemberFactory()
    request = submit(member, "access")
    assert request.status == RequestStatus.VERIFIED
    assert request.verification_method == "session-token"
    assert trail_events(request) == ["submitted", "verified"]
    assert _job_rows(request) == 1
    assert [e.action for e in audit_for(request)] == [
        "datarights.request.submitted",
        "datarights.request.verified",
    ]


def test_a_rolled_back_submission_leaves_no_request_and_no_job():
    member = MemberFactory()
    with pytest.raises(RuntimeError), transaction.atomic():
        submit(member, "access")
        raise RuntimeError("crash before commit")
    assert not DataRightsRequest.objects.exists()
    assert not DBTaskResult.objects.filter(
        task_path="datarights.tasks.process_data_rights_request"
    ).exists()


def test_a_token_submission_waits_for_the_mailed_code(django_capture_on_commit_callbacks):
    member = MemberFactory()
    with django_capture_on_commit_callbacks(execute=True):
        request = submit(member, "access", session=False)
    assert request.status == RequestStatus.SUBMITTED
    assert trail_events(request) == ["submitted", "code-issued"]
    assert _job_rows(request) == 0
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [member.email]
    code = _code_of(mail.outbox[0])
    stored = VerificationCode.objects.get(request=request)
    assert code not in stored.code_hash
    verified = datarights_verify_code(request=request, code=code, actor=Actor.of(member))
    assert verified.status == RequestStatus.VERIFIED
    assert verified.verification_method == "email-link"
    stored.refresh_from_db()
    assert stored.state == "used" and stored.code_hash == ""
    assert _job_rows(request) == 1
    assert audit_for(request, "datarights.request.verified")


def test_a_wrong_code_is_refused_and_counted(django_capture_on_commit_callbacks):
    member = MemberFactory()
    request = submit(member, "access", session=False)
    with pytest.raises(NotPermitted) as refused:
        datarights_verify_code(request=request, code=_wrong(request), actor=Actor.of(member))
    assert refused.value.status_code == 403
    assert refused.value.code == "verification-code-invalid"
    code = VerificationCode.objects.get(request=request)
    assert code.attempts == 1
    assert trail_events(request)[-1] == TrailEvent.CODE_REJECTED
    assert audit_for(request, "datarights.request.code_rejected")


def test_the_attempt_limit_destroys_the_code():
    member = MemberFactory()
    request = submit(member, "access", session=False)
    stored = VerificationCode.objects.get(request=request)
    wrong = [f"{n:06d}" for n in range(CODE_MAX_ATTEMPTS + 1)]
    wrong = [c for c in wrong if not _matches(request, stored, c)][:CODE_MAX_ATTEMPTS]
    codes = []
    for code in wrong:
        with pytest.raises(NotPermitted) as refused:
            datarights_verify_code(request=request, code=code, actor=Actor.of(member))
        codes.append(refused.value.code)
    assert codes == ["verification-code-invalid"] * (CODE_MAX_ATTEMPTS - 1) + [
        "verification-attempts-exhausted"
    ]
    stored.refresh_from_db()
    assert stored.state == "destroyed" and stored.code_hash == ""
    assert stored.attempts == CODE_MAX_ATTEMPTS
    with pytest.raises(NotPermitted) as refused:
        datarights_verify_code(request=request, code="123456", actor=Actor.of(member))
    assert refused.value.code == "verification-code-missing"
    assert len(audit_for(request, "datarights.request.code_rejected")) == CODE_MAX_ATTEMPTS
    assert audit_for(request, "datarights.request.code_destroyed")[0].payload["reason"] == (
        "attempts-exhausted"
    )
    request.refresh_from_db()
    assert request.status == RequestStatus.SUBMITTED


def test_an_expired_code_is_destroyed(django_capture_on_commit_callbacks):
    member = MemberFactory()
    with django_capture_on_commit_callbacks(execute=True):
        request = submit(member, "access", session=False)
    code = _code_of(mail.outbox[-1])
    later = timezone.now() + timedelta(minutes=16)
    with pytest.raises(NotPermitted) as refused:
        datarights_verify_code(request=request, code=code, actor=Actor.of(member), now=later)
    assert refused.value.code == "verification-code-expired"
    assert VerificationCode.objects.get(request=request).state == "destroyed"


def test_a_new_code_replaces_the_old_and_issuing_is_bounded(django_capture_on_commit_callbacks):
    member = MemberFactory()
    with django_capture_on_commit_callbacks(execute=True):
        request = submit(member, "access", session=False)
    first = _code_of(mail.outbox[-1])
    with django_capture_on_commit_callbacks(execute=True):
        datarights_code_resend(request=request, actor=Actor.of(member))
    second = _code_of(mail.outbox[-1])
    assert VerificationCode.objects.filter(request=request, state="active").count() == 1
    if first != second:
        with pytest.raises(NotPermitted):
            datarights_verify_code(request=request, code=first, actor=Actor.of(member))
    for _ in range(CODE_MAX_ISSUED - 2):
        datarights_code_resend(request=request, actor=Actor.of(member))
    with pytest.raises(NotPermitted) as refused:
        datarights_code_resend(request=request, actor=Actor.of(member))
    assert refused.value.code == "verification-codes-exhausted"
    # The signed-in session still verifies.
    assert datarights_verify_session(request=request, actor=Actor.of(member)).status == "verified"


def test_one_open_request_per_kind_a_second_returns_the_open_one():
    member = MemberFactory()
    first = submit(member, "access", session=False)
    again = datarights_request_submit_or_join(
        member=member,
        kind="access",
        payload={"include_operator_actions": False},
        actor=Actor.of(member),
        signed_in_session=True,
    )
    # the open request, untouched: still waiting for its code, nothing new recorded
    assert not again.created and again.request.pk == first.pk
    assert again.request.status == RequestStatus.SUBMITTED
    assert DataRightsRequest.objects.filter(member=member).count() == 1
    assert VerificationCode.objects.filter(request=first).count() == 1
    assert trail_events(first) == ["submitted", "code-issued"]
    assert submit(member, "access").pk == first.pk
    other = datarights_request_submit_or_join(
        member=member,
        kind="export",
        payload=PAYLOADS["export"],
        actor=Actor.of(member),
        signed_in_session=True,
    )
    assert other.created and other.request.pk != first.pk  # another kind is fine
    # once it is finished, the next one is new
    datarights_cancel(request=first, actor=Actor.of(member))
    assert submit(member, "access").pk != first.pk


def test_payload_errors_name_the_payload_fields():
    member = MemberFactory()
    with pytest.raises(InvalidInput) as refused:
        submit(member, "delete", {"mode": "hard", "scopes": [], "retention_grace_ms": 0})
    assert any(key.startswith("payload") for key in refused.value.fields)
    with pytest.raises(InvalidInput) as refused:
        submit(member, "export", {"encrypted": True}, passphrase="short")
    assert "passphrase" in refused.value.fields
    with pytest.raises(InvalidInput):
        submit(member, "export", {"encrypted": False}, passphrase="a long passphrase here")
    assert not DataRightsRequest.objects.exists()


# --- transitions ---------------------------------------------------------------------------


def test_cancel_before_processing():
    member = MemberFactory()
    request = submit(member, "access", session=False)
    cancelled = datarights_cancel(request=request, actor=Actor.of(member))
    assert cancelled.status == RequestStatus.CANCELLED and cancelled.finished_at
    assert trail_events(cancelled)[-1] == "cancelled"
    assert audit_for(cancelled, "datarights.request.cancelled")
    assert VerificationCode.objects.get(request=request).state == "destroyed"
    with pytest.raises(Conflict):
        datarights_cancel(request=cancelled, actor=Actor.of(member))


def test_cancel_a_verified_request():
    member = MemberFactory()
    request = submit(member, "access")
    assert datarights_cancel(request=request, actor=Actor.of(member)).status == "cancelled"


def test_a_running_hard_delete_cannot_be_cancelled():
    member = MemberFactory()
    request = submit(member, "delete", HARD_DELETE)
    datarights_request_transition(
        request=request, to=RequestStatus.IN_PROGRESS, actor=Actor.system(), enqueue=False
    )
    with pytest.raises(Conflict) as refused:
        datarights_cancel(request=request, actor=Actor.of(member))
    assert refused.value.code == "not-cancellable"


def test_appeal_a_completed_request_and_an_operator_decides():
    member = MemberFactory()
    request = process(submit(member, "access"))
    assert request.status == RequestStatus.COMPLETED
    appealed = datarights_appeal(
        request=request, reason="You missed my notebook.", actor=Actor.of(member)
    )
    assert appealed.status == RequestStatus.APPEALED and appealed.appeal_reason
    assert audit_for(appealed, "datarights.request.appealed")[0].payload["reason_recorded"] is True
    assert "notebook" not in str(audit_for(appealed, "datarights.request.appealed")[0].payload)
    legal = OperatorFactory(role="legal")
    decided = datarights_operator_transition(
        request=appealed, to=RequestStatus.COMPLETED, actor=Actor.of(legal)
    )
    assert decided.status == RequestStatus.COMPLETED and decided.result_fingerprint
    assert audit_for(decided, "datarights.request.completed")[-1].actor_role == "legal"


def test_an_appeal_needs_a_reason_and_a_finished_request():
    member = MemberFactory()
    request = submit(member, "access")
    with pytest.raises(InvalidInput):
        datarights_appeal(request=request, reason=" ", actor=Actor.of(member))
    with pytest.raises(Conflict):
        datarights_appeal(request=request, reason="why", actor=Actor.of(member))


def test_an_operator_verifies_out_of_band_and_restarts_failed_work():
    member = MemberFactory()
    legal = OperatorFactory(role="legal")
    request = submit(member, "access", session=False)
    verified = datarights_operator_transition(
        request=request, to="verified", verification_method="court-order", actor=Actor.of(legal)
    )
    assert verified.verification_method == "court-order"
    with pytest.raises(InvalidInput):
        datarights_operator_transition(
            request=submit(MemberFactory(), "access", session=False),
            to="verified",
            verification_method="session-token",
            actor=Actor.of(legal),
        )
    running = datarights_request_transition(
        request=verified, to="in-progress", actor=Actor.system(), enqueue=False
    )
    with pytest.raises(InvalidInput) as unexplained:
        datarights_operator_transition(request=running, to="failed", actor=Actor.of(legal))
    assert unexplained.value.code == "reason-required"
    failed = datarights_fail(
        request=running, reason="Identity not confirmed", actor=Actor.of(legal)
    )
    assert failed.failure_code == "operator-decision"
    again = datarights_operator_transition(request=failed, to="in-progress", actor=Actor.of(legal))
    assert again.status == "in-progress" and again.failure_code == ""
    assert process(again).status == "completed"


def test_operators_cannot_expire_or_appeal_and_illegal_moves_are_409():
    member = MemberFactory()
    legal = OperatorFactory(role="legal")
    request = submit(member, "access")
    for target in ("expired", "appealed", "submitted"):
        with pytest.raises(Conflict):
            datarights_operator_transition(request=request, to=target, actor=Actor.of(legal))
    with pytest.raises(Conflict) as refused:
        datarights_operator_transition(request=request, to="completed", actor=Actor.of(legal))
    assert refused.value.status_code == 409
    with pytest.raises(Conflict) as refused:
        datarights_request_transition(request=request, to="completed", actor=Actor.of(legal))
    assert refused.value.code == "illegal-transition"


# --- deadlines, extension and expiry -------------------------------------------------------------


def test_the_deadline_is_recounted_from_verification():
    member = MemberFactory()
    received = timezone.now() - timedelta(days=3)
    request = submit(member, "access", session=False, now=received)
    assert request.deadline_at == request.due_at
    verified = datarights_verify_session(request=request, actor=Actor.of(member))
    assert verified.deadline_at > request.deadline_at
    assert verified.deadline_at - verified.verified_at <= timedelta(days=30)


def test_an_extension_is_recorded_once_and_the_member_told(django_capture_on_commit_callbacks):
    member = MemberFactory()
    legal = OperatorFactory(role="legal")
    request = submit(member, "access")
    until = request.deadline_at + timedelta(days=40)
    with django_capture_on_commit_callbacks(execute=True):
        extended = datarights_extend(
            request=request, until=until, reason="Archive review by counsel.", actor=Actor.of(legal)
        )
    assert extended.due_at == until and extended.extension_reason
    assert trail_events(extended)[-1] == "extended"
    event = audit_for(extended, "datarights.request.extended")[0]
    assert event.payload["member_notified"] is True and "counsel" not in str(event.payload)
    assert mail.outbox[-1].to == [member.email] and "counsel" in mail.outbox[-1].body
    with pytest.raises(Conflict) as refused:
        datarights_extend(request=extended, until=until, reason="again", actor=Actor.of(legal))
    assert refused.value.code == "already-extended"


def test_an_extension_beyond_two_months_or_after_the_deadline_is_refused():
    member = MemberFactory()
    legal = OperatorFactory(role="legal")
    request = submit(member, "access")
    with pytest.raises(Conflict) as refused:
        datarights_extend(
            request=request,
            until=request.deadline_at + timedelta(days=63),
            reason="x",
            actor=Actor.of(legal),
        )
    assert refused.value.code == "extension-too-long"
    with pytest.raises(Conflict) as refused:
        datarights_extend(
            request=request,
            until=request.deadline_at + timedelta(days=10),
            reason="x",
            actor=Actor.of(legal),
            now=request.deadline_at + timedelta(seconds=1),
        )
    assert refused.value.code == "extension-too-late"


def test_unverified_requests_expire_after_seven_days():
    member = MemberFactory()
    request = submit(member, "access", session=False)
    assert datarights_expire_unverified_due(now=timezone.now() + timedelta(days=6)) == 0
    assert datarights_expire_unverified_due(now=timezone.now() + timedelta(days=7, seconds=1)) == 1
    request.refresh_from_db()
    assert request.status == RequestStatus.EXPIRED
    assert audit_for(request, "datarights.request.expired")[0].actor_type == "system"
    assert VerificationCode.objects.get(request=request).state == "destroyed"
    # Idempotent.
    assert datarights_expire_unverified_due(now=timezone.now() + timedelta(days=8)) == 0


# --- database guarantees --------------------------------------------------------------------


def test_the_trail_is_append_only_in_the_database():
    member = MemberFactory()
    request = submit(member, "access")
    row = DataRightsTrailEntry.objects.filter(request=request).first()
    with pytest.raises(ValueError, match="append-only"):
        row.save()
    table = DataRightsTrailEntry._meta.db_table
    for sql in (f'UPDATE "{table}" SET event = %s', f'DELETE FROM "{table}"'):
        with (
            pytest.raises(Exception) as refused,
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, ["cancelled"] if "UPDATE" in sql else [])
        assert "append" in str(refused.value).lower() or "cannot" in str(refused.value).lower()
    assert DataRightsTrailEntry.objects.filter(request=request).count() == 2


def test_the_trail_starts_with_submitted_and_is_chronological():
    member = MemberFactory()
    request = process(submit(member, "access"))
    assert trail_problem(datarights_trail_rows(request=request)) is None
    with pytest.raises(IntegrityError), transaction.atomic():
        DataRightsTrailEntry.objects.create(
            request=submit(MemberFactory(), "access", session=False),
            member_id=member.pk,
            sequence=1 + 100,
            event="verified",
            status="completed",
            at=timezone.now(),
            actor="member",
        )


def test_constraints_keep_the_status_honest():
    member = MemberFactory()
    request = submit(member, "export", session=False)
    with pytest.raises(IntegrityError), transaction.atomic():
        DataRightsRequest.objects.filter(pk=request.pk).update(status="completed")
    verified = datarights_verify_session(request=request, actor=Actor.of(member))
    with pytest.raises(IntegrityError), transaction.atomic():
        DataRightsRequest.objects.filter(pk=verified.pk).update(status="completed")
    with pytest.raises(IntegrityError), transaction.atomic():
        DataRightsRequest.objects.filter(pk=verified.pk).update(status="teleported")
