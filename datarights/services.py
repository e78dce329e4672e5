"""Writes to data-rights requests. `datarights_request_transition` is the one place a
status changes: it locks the row, asks the policy, saves and appends the trail row (and
its episodic event) in one transaction, and enqueues processing in that same
transaction, so a committed `verified` always has its job and a rolled-back one never.
"""

import base64
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pydantic
from django.core.exceptions import ImproperlyConfigured
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from datarights import conf, crypto
from datarights.contracts import DeletePayload, ExportPayload, parse_payload
from datarights.enums import (
    FINISHED_STATUSES,
    OPEN_STATUSES,
    DeleteMode,
    FailureCode,
    RequestKind,
    RequestStatus,
    TrailEvent,
    VerificationMethod,
)
from datarights.events import trail_append
from datarights.models import DataRightsRequest, VerificationCode
from datarights.policy import (
    CODE_LIFETIME,
    CODE_MAX_ATTEMPTS,
    CODE_MAX_ISSUED,
    OPERATOR_TARGETS,
    TransitionRefused,
    can_fail,
    check_extension,
    check_transition,
    code_digest,
    code_matches,
    deadline_for,
    generate_code,
    latest_extension,
    operator_reason_problem,
    retry_progress,
    verify_by,
)
from datarights.selectors import datarights_active_code
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, iso
from iris_site.errors import Conflict, DomainError, InvalidInput, NotPermitted
from iris_site.models import User
from iris_site.services import member_lock

logger = logging.getLogger(__name__)

OPERATOR_VERIFICATION_METHODS = (
    VerificationMethod.OPERATOR_SIGNOFF,
    VerificationMethod.COURT_ORDER,
)


class DownloadGone(DomainError):
    """The export existed, but its download window is over (or it was erased)."""

    status_code = 410
    code = "download-expired"
    default_message = "This export is no longer available; request a new one."


def _lock(request_id) -> DataRightsRequest:
    return DataRightsRequest.objects.select_for_update().get(pk=request_id)


# The job that processes a verified request (`datarights.tasks.process_data_rights_request`),
# registered by `DatarightsConfig.ready()`: the task runs `datarights.processing`, which
# moves requests through this module, so this module does not import the task.
_processing_job = None


def processing_job_register(job) -> None:
    """`job.enqueue(request_id)` queues the processing of one request."""
    global _processing_job
    _processing_job = job


def _enqueue(request: DataRightsRequest) -> None:
    # Inside the caller's transaction: with the database task backend the job row
    # commits (or rolls back) together with the state change.
    if _processing_job is None:
        raise ImproperlyConfigured("No data-rights processing job is registered.")
    _processing_job.enqueue(str(request.pk))


def _refusal(exc: TransitionRefused) -> Conflict:
    return Conflict(exc.message, code=exc.code)


# --- The one status-changing service ---------------------------------------------------


@transaction.atomic
def datarights_request_transition(
    *,
    request: DataRightsRequest,
    to: str,
    actor: Actor,
    verification_method: str = "",
    detail: dict | None = None,
    enqueue: bool = True,
    now: datetime | None = None,
    **changes,
) -> DataRightsRequest:
    """Move the request to `to` (409 if the state machine forbids it) and record it."""
    now = now or timezone.now()
    locked = _lock(request.pk)
    fingerprint = changes.get("result_fingerprint", locked.result_fingerprint)
    try:
        check_transition(
            current=locked.status,
            target=to,
            kind=locked.kind,
            verified=locked.verified_at is not None,
            has_fingerprint=bool(fingerprint),
        )
    except TransitionRefused as exc:
        raise _refusal(exc) from exc
    for field, value in changes.items():
        setattr(locked, field, value)
    locked.status = to
    if to == RequestStatus.VERIFIED:
        if verification_method not in VerificationMethod.values:
            raise InvalidInput(fields={"verification_method": ["Name how identity was verified."]})
        locked.verified_at = now
        locked.verification_method = verification_method
        locked.deadline_at = deadline_for(
            received_at=locked.received_at, verified_at=now, tz=conf.deadline_zone()
        )
        locked.due_at = locked.extended_deadline_at or locked.deadline_at
        detail = {"verification_method": verification_method, **(detail or {})}
    if to == RequestStatus.IN_PROGRESS:
        locked.started_at = locked.started_at or now
        locked.finished_at = None
        locked.failure_code = ""
    if to == RequestStatus.APPEALED:
        locked.finished_at = None
    if to in FINISHED_STATUSES:
        locked.finished_at = now
    if to in (RequestStatus.COMPLETED, RequestStatus.CANCELLED, RequestStatus.EXPIRED) or (
        to == RequestStatus.FAILED and locked.kind == RequestKind.DELETE
    ):
        # Scratch never outlives the work. A delete's is the erased text, sealed for its
        # check: a failed delete keeps none of it either (a retry collects again what is
        # still stored, `datarights.processing`). A failed export keeps its sealed key, the
        # member's own, so a retry can still encrypt the bundle.
        locked.work_state = ""
    locked.updated_at = now
    locked.save()
    if to in (RequestStatus.CANCELLED, RequestStatus.EXPIRED, RequestStatus.VERIFIED):
        _codes_end(locked, now=now)
    trail_append(request=locked, event=to, actor=actor, detail=detail, now=now)
    if enqueue and to in (RequestStatus.VERIFIED, RequestStatus.IN_PROGRESS):
        _enqueue(locked)
    return locked


# --- Submission -------------------------------------------------------------------------


def _parse(kind: str, payload) -> pydantic.BaseModel:
    if kind not in RequestKind.values:
        raise InvalidInput(fields={"kind": [f"Unknown request kind {kind!r}."]})
    try:
        return parse_payload(kind, payload)
    except pydantic.ValidationError as exc:
        fields: dict[str, list[str]] = {}
        for err in exc.errors(include_input=False, include_url=False):
            key = ".".join(["payload", *(str(p) for p in err["loc"])])
            fields.setdefault(key, []).append(err["msg"])
        raise InvalidInput("The request payload is invalid.", fields=fields) from exc


def _sealed_export_key(parsed, passphrase: str | None) -> str:
    encrypted = isinstance(parsed, ExportPayload) and parsed.encrypted
    if not encrypted:
        if passphrase:
            raise InvalidInput(fields={"passphrase": ["Only an encrypted export takes one."]})
        return ""
    if not passphrase or len(passphrase) < crypto.MIN_PASSPHRASE_LENGTH:
        raise InvalidInput(
            fields={
                "passphrase": [
                    f"An encrypted export needs a passphrase of at least "
                    f"{crypto.MIN_PASSPHRASE_LENGTH} characters."
                ]
            }
        )
    salt = crypto.new_salt()
    key = crypto.derive_key(passphrase, salt)
    return crypto.seal(
        {"export_key": key.decode("ascii"), "salt": base64.urlsafe_b64encode(salt).decode()},
        server_secret=conf.server_secret(),
    )


@dataclass(frozen=True, slots=True)
class Submission:
    """What a submission answered: the request made now (`created`), or the member's
    request of that kind that is still open (a retry, a double-click, a second tab)."""

    request: DataRightsRequest
    created: bool


@transaction.atomic
def datarights_request_submit_or_join(
    *,
    member: User,
    kind: str,
    payload,
    actor: Actor,
    signed_in_session: bool,
    passphrase: str | None = None,
    now: datetime | None = None,
) -> Submission:
    """Receive a request, or answer with the one of that kind already running.

    A member has at most one open request of each kind (submitted, verified or in
    progress). Another while one is open returns the open one untouched, whatever this
    call's payload: no new row, trail entry, code or mail, and an unverified one still
    waits for its code (or a signed-in session's verify). A retrying client or a
    double-click gets the running request instead of an error; its payload says what it
    covers. The member lock keeps the check and the insert together, so racing
    submissions make exactly one request.

    A new request from a signed-in browser session is verified at once (the session is
    the identity check); otherwise a one-time code goes to the account's mailbox and the
    request waits (up to seven days) to be verified with it."""
    now = now or timezone.now()
    parsed = _parse(kind, payload)
    sealed = _sealed_export_key(parsed, passphrase)
    # One writer per member: the open-request check and the insert cannot interleave.
    member_lock(member_id=member.pk)
    running = (
        DataRightsRequest.objects.filter(member=member, kind=kind, status__in=sorted(OPEN_STATUSES))
        .order_by("received_at", "pk")
        .first()
    )
    if running is not None:
        return Submission(request=running, created=False)
    deadline = deadline_for(received_at=now, verified_at=None, tz=conf.deadline_zone())
    request = DataRightsRequest(
        member=member,
        kind=kind,
        payload=parsed.model_dump(mode="json"),
        received_at=now,
        verify_by=verify_by(now),
        deadline_at=deadline,
        due_at=deadline,
        work_state=sealed,
        artifact_encrypted=bool(sealed),
        updated_at=now,
    )
    request.save(force_insert=True)
    trail_append(
        request=request,
        event=TrailEvent.SUBMITTED,
        actor=actor,
        detail=_payload_summary(parsed),
        now=now,
    )
    if signed_in_session:
        request = datarights_request_transition(
            request=request,
            to=RequestStatus.VERIFIED,
            actor=actor,
            verification_method=VerificationMethod.SESSION_TOKEN,
            now=now,
        )
    else:
        _code_issue(request, actor=actor, now=now)
    return Submission(request=request, created=True)


def datarights_request_submit(
    *,
    member: User,
    kind: str,
    payload,
    actor: Actor,
    signed_in_session: bool,
    passphrase: str | None = None,
    now: datetime | None = None,
) -> DataRightsRequest:
    """Receive a request; the open one of that kind when there is one
    (`datarights_request_submit_or_join`, which also says which it was)."""
    return datarights_request_submit_or_join(
        member=member,
        kind=kind,
        payload=payload,
        actor=actor,
        signed_in_session=signed_in_session,
        passphrase=passphrase,
        now=now,
    ).request


def _payload_summary(parsed) -> dict:
    """The payload's shape for the audit (enums and flags, never free text)."""
    if isinstance(parsed, DeletePayload):
        return {
            "mode": parsed.mode,
            "scopes": list(parsed.scopes),
            "categories": list(parsed.categories),
            "purge_consent_ledger": parsed.purge_consent_ledger,
            "retention_grace_ms": parsed.retention_grace_ms,
        }
    if isinstance(parsed, ExportPayload):
        return {"scopes": list(parsed.scope_kinds), "encrypted": parsed.encrypted}
    return {"include_operator_actions": parsed.include_operator_actions}


# --- Verification -----------------------------------------------------------------------


def _codes_end(request: DataRightsRequest, *, now: datetime) -> None:
    VerificationCode.objects.filter(request=request, state=VerificationCode.State.ACTIVE).update(
        state=VerificationCode.State.DESTROYED, code_hash="", ended_at=now
    )


def _code_issue(request: DataRightsRequest, *, actor: Actor, now: datetime) -> None:
    issued = VerificationCode.objects.filter(request=request).count()
    if issued >= CODE_MAX_ISSUED:
        raise NotPermitted(
            "No more codes can be sent for this request; verify it signed in, or submit anew.",
            code="verification-codes-exhausted",
        )
    _codes_end(request, now=now)
    raw = generate_code()
    code = VerificationCode.objects.create(
        request=request,
        member_id=request.member_id,
        method=VerificationMethod.EMAIL_LINK,
        code_hash=code_digest(secret=conf.hash_secret(), request_id=str(request.pk), code=raw),
        issued_at=now,
        expires_at=now + CODE_LIFETIME,
    )
    trail_append(
        request=request,
        event=TrailEvent.CODE_ISSUED,
        actor=actor,
        detail={
            "method": VerificationMethod.EMAIL_LINK,
            "expires_in_s": int(CODE_LIFETIME.total_seconds()),
            "issued_count": issued + 1,
        },
        now=now,
    )
    email = request.member.email
    transaction.on_commit(lambda: _mail_code(email, raw, request, code.pk))


def _mail_undelivered(request_id, mail: str, error: Exception) -> None:
    """A mail the transport refused: the member sees it on the request (its trail, and
    the code's delivery), operators in the audit log. The error's class only: transport
    messages can carry the address."""
    logger.warning(
        "mail (%s) for data-rights request %s not delivered: %s",
        mail,
        request_id,
        type(error).__name__,
    )
    with transaction.atomic():
        locked = _lock(request_id)
        trail_append(
            request=locked,
            event=TrailEvent.MAIL_UNDELIVERED,
            actor=Actor.system("mail"),
            severity=Severity.WARNING,
            detail={"mail": mail},
        )


# What the confirmation mail says was asked for, per kind (issue 47, item 8: never "a access").
MAIL_ASKED_FOR = {
    RequestKind.EXPORT: "for a copy (export) of your data",
    RequestKind.ACCESS: "for an access report on your data",
    RequestKind.DELETE: "to erase your data",
}


def _mail_code(email: str, code: str, request: DataRightsRequest, code_id) -> None:
    minutes = int(CODE_LIFETIME.total_seconds() // 60)
    try:
        send_mail(
            "Confirm your Iris data request",
            f"Someone (hopefully you) asked Iris {MAIL_ASKED_FOR[request.kind]}.\n"
            f"Your confirmation code is {code}. It works for {minutes} minutes.\n"
            f"Enter it on the 'Your data' page, or ignore this message.\n",
            None,
            [email],
        )
    except Exception as error:  # a mail outage must not lose the request: it can resend
        VerificationCode.objects.filter(pk=code_id).update(
            delivery=VerificationCode.Delivery.FAILED
        )
        _mail_undelivered(request.pk, "code", error)
    else:
        VerificationCode.objects.filter(pk=code_id).update(delivery=VerificationCode.Delivery.SENT)


@transaction.atomic
def datarights_code_resend(
    *, request: DataRightsRequest, actor: Actor, now: datetime | None = None
) -> None:
    now = now or timezone.now()
    locked = _lock(request.pk)
    if locked.status != RequestStatus.SUBMITTED:
        raise Conflict("This request no longer needs verifying.", code="not-awaiting-verification")
    _code_issue(locked, actor=actor, now=now)


def datarights_verify_session(
    *, request: DataRightsRequest, actor: Actor, now: datetime | None = None
) -> DataRightsRequest:
    """The member, signed in to the browser, confirms the request."""
    return datarights_request_transition(
        request=request,
        to=RequestStatus.VERIFIED,
        actor=actor,
        verification_method=VerificationMethod.SESSION_TOKEN,
        now=now,
    )


@dataclass(frozen=True, slots=True)
class _CodeOutcome:
    request: DataRightsRequest | None = None
    refusal: DomainError | None = None


def datarights_verify_code(
    *, request: DataRightsRequest, code: str, actor: Actor, now: datetime | None = None
) -> DataRightsRequest:
    """Check a one-time code. A wrong one is a 403 that counts against the limit; at the
    limit, or past its time, the code is destroyed. The count commits even though the
    call fails, so retrying cannot reset it."""
    now = now or timezone.now()
    outcome = _check_code(request, code=code, actor=actor, now=now)
    if outcome.refusal is not None:
        raise outcome.refusal
    return outcome.request


@transaction.atomic
def _check_code(request: DataRightsRequest, *, code: str, actor: Actor, now: datetime):
    locked = _lock(request.pk)
    if locked.status != RequestStatus.SUBMITTED:
        return _CodeOutcome(
            refusal=Conflict(
                "This request is already verified or closed.", code="not-awaiting-verification"
            )
        )
    active = datarights_active_code(request=locked)
    if active is None:
        return _CodeOutcome(
            refusal=NotPermitted(
                "There is no valid code; ask for a new one.", code="verification-code-missing"
            )
        )
    if now >= active.expires_at:
        _code_destroy(locked, active, reason="expired", actor=actor, now=now)
        return _CodeOutcome(
            refusal=NotPermitted(
                "The code has expired; ask for a new one.", code="verification-code-expired"
            )
        )
    secret = conf.hash_secret()
    if code_matches(secret=secret, request_id=str(locked.pk), code=code, digest=active.code_hash):
        active.state, active.code_hash, active.ended_at = VerificationCode.State.USED, "", now
        active.save(update_fields=["state", "code_hash", "ended_at"])
        verified = datarights_request_transition(
            request=locked,
            to=RequestStatus.VERIFIED,
            actor=actor,
            verification_method=active.method,
            now=now,
        )
        return _CodeOutcome(request=verified)
    active.attempts += 1
    active.save(update_fields=["attempts"])
    trail_append(
        request=locked,
        event=TrailEvent.CODE_REJECTED,
        actor=actor,
        detail={"attempts": active.attempts, "max_attempts": CODE_MAX_ATTEMPTS},
        now=now,
    )
    if active.attempts >= CODE_MAX_ATTEMPTS:
        _code_destroy(locked, active, reason="attempts-exhausted", actor=actor, now=now)
        return _CodeOutcome(
            refusal=NotPermitted(
                "Too many wrong codes: this one is destroyed. Ask for a new one.",
                code="verification-attempts-exhausted",
            )
        )
    return _CodeOutcome(
        refusal=NotPermitted("That code is not right.", code="verification-code-invalid")
    )


def _code_destroy(request, active: VerificationCode, *, reason: str, actor: Actor, now) -> None:
    active.state, active.code_hash, active.ended_at = VerificationCode.State.DESTROYED, "", now
    active.save(update_fields=["state", "code_hash", "ended_at"])
    trail_append(
        request=request,
        event=TrailEvent.CODE_DESTROYED,
        actor=actor,
        detail={"reason": reason, "attempts": active.attempts},
        now=now,
    )


# --- Member actions ----------------------------------------------------------------------


def _soft_delete_in_grace(request: DataRightsRequest, now: datetime) -> bool:
    done = set(request.progress.get("done", []))
    return (
        request.kind == RequestKind.DELETE
        and request.payload.get("mode") == DeleteMode.SOFT
        and request.grace_ends_at is not None
        and now < request.grace_ends_at
        and "hold" in done
        and "tombstone" not in done
    )


@transaction.atomic
def datarights_cancel(
    *, request: DataRightsRequest, actor: Actor, now: datetime | None = None
) -> DataRightsRequest:
    """Withdraw a request before work starts; inside a soft delete's grace window this
    re-activates the held entries (and short-term rows) exactly as they were."""
    from memory.forgetting.dsar import memory_hold_release
    from memory.forgetting.stores import extent_release

    now = now or timezone.now()
    locked = _lock(request.pk)
    if locked.status == RequestStatus.IN_PROGRESS:
        if not _soft_delete_in_grace(locked, now):
            raise Conflict(
                "Processing has started; only a soft delete can be taken back, within "
                "its grace window.",
                code="not-cancellable",
            )
        released = memory_hold_release(
            member_id=locked.member_id, request_id=locked.pk, actor=actor
        )
        rows = extent_release(member_id=locked.member_id, request_id=locked.pk)
        trail_append(
            request=locked,
            event=TrailEvent.REACTIVATED,
            actor=actor,
            detail={"released_count": released, "released_rows": sum(rows.values())},
            now=now,
        )
    return datarights_request_transition(
        request=locked, to=RequestStatus.CANCELLED, actor=actor, now=now
    )


@transaction.atomic
def datarights_appeal(
    *, request: DataRightsRequest, reason: str, actor: Actor, now: datetime | None = None
) -> DataRightsRequest:
    reason = (reason or "").strip()
    if not reason:
        raise InvalidInput(fields={"reason": ["Say what you contest."]})
    if len(reason) > 2000:
        raise InvalidInput(fields={"reason": ["At most 2000 characters."]})
    return datarights_request_transition(
        request=request,
        to=RequestStatus.APPEALED,
        actor=actor,
        now=now,
        detail={"reason_recorded": True},
        enqueue=False,
        appeal_reason=reason,
    )


# --- Operator actions --------------------------------------------------------------------


@transaction.atomic
def datarights_operator_transition(
    *,
    request: DataRightsRequest,
    to: str,
    actor: Actor,
    verification_method: str = "",
    now: datetime | None = None,
) -> DataRightsRequest:
    """The work queue's moves: verify out of band, (re)start processing, fail, decide an
    appeal against the member (→ completed keeps the original fingerprint), cancel."""
    now = now or timezone.now()
    if to not in OPERATOR_TARGETS:
        raise Conflict(f"Operators do not move requests to {to}.", code="illegal-transition")
    locked = _lock(request.pk)
    if to == RequestStatus.VERIFIED:
        method = verification_method or VerificationMethod.OPERATOR_SIGNOFF
        if method not in OPERATOR_VERIFICATION_METHODS:
            raise InvalidInput(fields={"verification_method": ["operator-signoff or court-order."]})
        return datarights_request_transition(
            request=locked, to=to, actor=actor, verification_method=method, now=now
        )
    if to == RequestStatus.CANCELLED and locked.status == RequestStatus.IN_PROGRESS:
        return datarights_cancel(request=locked, actor=actor, now=now)
    if to == RequestStatus.COMPLETED and locked.status != RequestStatus.APPEALED:
        raise Conflict("Only processing completes a request.", code="illegal-transition")
    if to == RequestStatus.FAILED:
        # Failing is its own decision, with a reason the member is shown.
        raise InvalidInput(
            "Failing a request needs a reason (`datarights_fail`).",
            fields={"reason": ["A reason is required."]},
            code="reason-required",
        )
    if to == RequestStatus.IN_PROGRESS:
        return datarights_request_transition(
            request=locked, to=to, actor=actor, now=now, progress=retry_progress(locked.progress)
        )
    return datarights_request_transition(request=locked, to=to, actor=actor, now=now)


def _reason_checked(reason: str | None, *, what: str) -> str:
    """An operator's reason, stripped; 400 (`reason-required` / `reason-too-long`)."""
    problem = operator_reason_problem(reason)
    if problem == "reason-required":
        raise InvalidInput(
            f"Say why ({what}): the member is shown the reason.",
            fields={"reason": ["A reason is required."]},
            code="reason-required",
        )
    if problem == "reason-too-long":
        raise InvalidInput(
            "The reason is too long.",
            fields={"reason": ["At most 2000 characters."]},
            code="reason-too-long",
        )
    return (reason or "").strip()


@transaction.atomic
def datarights_fail(
    *,
    request: DataRightsRequest,
    reason: str,
    actor: Actor,
    now: datetime | None = None,
) -> DataRightsRequest:
    """An operator fails the request (e.g. identity doubtful, or an appeal rejected),
    with a reason the member sees; the audit records the reason's length, not its text."""
    reason = _reason_checked(reason, what="failing a request")
    now = now or timezone.now()
    locked = _lock(request.pk)
    if not can_fail(status=locked.status, verified=locked.verified_at is not None):
        raise Conflict(f"A {locked.status} request cannot be failed.", code="illegal-transition")
    return datarights_request_transition(
        request=locked,
        to=RequestStatus.FAILED,
        actor=actor,
        now=now,
        failure_code=FailureCode.OPERATOR_DECISION,
        failure_reason=reason,
        detail={
            "failure_code": FailureCode.OPERATOR_DECISION,
            "reason_length": len(reason),
            "member_notified": True,
        },
    )


@transaction.atomic
def datarights_extend(
    *,
    request: DataRightsRequest,
    reason: str,
    actor: Actor,
    until: datetime | None = None,
    now: datetime | None = None,
) -> DataRightsRequest:
    """Extend the deadline once (GDPR Art. 12(3)), by at most two further months (the
    full two when `until` is not given), with the reason recorded on the request and
    the member told (the "Your data" page, the receipt, a mail), within the first
    month. The audit records the reason's length, never its text."""
    reason = _reason_checked(reason, what="extending the deadline")
    now = now or timezone.now()
    locked = _lock(request.pk)
    zone = conf.deadline_zone()
    until = until or latest_extension(locked.deadline_at, zone)
    decision = check_extension(
        status=locked.status,
        deadline_at=locked.deadline_at,
        already_extended=locked.extended_deadline_at is not None,
        new_deadline=until,
        reason=reason,
        now=now,
        tz=zone,
    )
    if not decision.allowed:
        raise Conflict(decision.message, code=decision.code)
    locked.extended_deadline_at = until
    locked.extension_reason = reason
    locked.extended_at = now
    locked.due_at = until
    locked.updated_at = now
    locked.save()
    trail_append(
        request=locked,
        event=TrailEvent.EXTENDED,
        actor=actor,
        detail={
            "extended_deadline_at": iso(until),
            "reason_length": len(reason),
            "member_notified": True,
        },
        now=now,
    )
    email, request_id = locked.member.email, locked.pk
    transaction.on_commit(
        lambda: _mail_extension(email, request_id, until, locked.extension_reason)
    )
    return locked


def _mail_extension(email: str, request_id, until: datetime, reason: str) -> None:
    try:
        send_mail(
            "Your Iris data request needs more time",
            f"We need more time to finish your data request {request_id}.\n"
            f"New deadline: {iso(until)}.\nWhy: {reason}\n"
            f"You can see it on the 'Your data' page, and you may complain to your "
            f"supervisory authority.\n",
            None,
            [email],
        )
    except Exception as error:
        _mail_undelivered(request_id, "extension", error)


# --- Jobs ----------------------------------------------------------------------------------


def datarights_expire_unverified_due(*, now: datetime | None = None) -> int:
    """Expire every request still unverified past its verify-by time. Idempotent."""
    from datarights.selectors import datarights_unverified_due

    now = now or timezone.now()
    expired = 0
    for request_id in datarights_unverified_due(now=now).values_list("pk", flat=True):
        with transaction.atomic():
            locked = _lock(request_id)
            if locked.status != RequestStatus.SUBMITTED or locked.verify_by > now:
                continue
            datarights_request_transition(
                request=locked,
                to=RequestStatus.EXPIRED,
                actor=Actor.system("datarights-expiry"),
                now=now,
            )
            expired += 1
    return expired


# --- Downloads -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Download:
    path: Path
    filename: str
    # Sealed with the member's passphrase: served as it is stored.
    encrypted: bool
    # Sealed at rest under the member's key: decrypted while it is served.
    sealed: bool = False
    member_id: str | None = None


@transaction.atomic
def datarights_download_open(
    *, request: DataRightsRequest, actor: Actor, now: datetime | None = None
) -> Download:
    """The member's export file, while its download window lasts; each download is
    recorded in the trail."""
    from datarights import export
    from datarights.export import artifact_path

    now = now or timezone.now()
    locked = _lock(request.pk)
    if locked.kind != RequestKind.EXPORT or locked.status != RequestStatus.COMPLETED:
        raise Conflict("Only a completed export can be downloaded.", code="not-downloadable")
    path = artifact_path(locked)
    if (
        locked.artifact_removed_at is not None
        or (locked.download_expires_at and now >= locked.download_expires_at)
        or path is None
        or not path.exists()
    ):
        raise DownloadGone()
    sealed = export.artifact_format(path) == export.MEMBER_SEALED
    if sealed:
        # Opened whole before anything is sent: a file whose key was shredded (or that
        # was altered) is gone, never a 500 and never a partial zip.
        try:
            export.verify_sealed(path, member_id=locked.member_id)
        except crypto.KeyDestroyed:
            raise DownloadGone() from None
        except crypto.DecryptionFailed:
            logger.error(
                "an export file failed authentication",
                extra={"request_id": str(locked.pk), "alert": "ciphertext_unreadable"},
            )
            raise DownloadGone() from None
    trail_append(request=locked, event=TrailEvent.DOWNLOADED, actor=actor, now=now)
    suffix = ".zip.enc" if locked.artifact_encrypted else ".zip"
    return Download(
        path,
        f"iris-export-{locked.pk}{suffix}",
        locked.artifact_encrypted,
        sealed=sealed,
        member_id=str(locked.member_id),
    )
