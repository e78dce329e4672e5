"""The data-rights vocabulary, with the seed's exact strings."""

from django.db import models


class RequestKind(models.TextChoices):
    DELETE = "delete"  # erase memory (soft: after a grace window; hard: now)
    EXPORT = "export"  # a machine-readable copy of everything held (GDPR Arts. 15, 20)
    ACCESS = "access"  # "show me what you have on me": read-only, never mutates


class RequestStatus(models.TextChoices):
    SUBMITTED = "submitted"  # received; identity not yet verified
    VERIFIED = "verified"  # identity verified; processing is queued
    IN_PROGRESS = "in-progress"  # a job is working on it (or a soft delete waits out its grace)
    COMPLETED = "completed"  # done; delete/export carry a result fingerprint
    FAILED = "failed"  # processing could not finish, or the forget-completeness check failed
    CANCELLED = "cancelled"  # withdrawn by the member (or re-activated inside the grace window)
    EXPIRED = "expired"  # never verified before its verify-by time
    APPEALED = "appealed"  # the member contests the outcome; an operator decides


OPEN_STATUSES: frozenset[str] = frozenset(
    {RequestStatus.SUBMITTED, RequestStatus.VERIFIED, RequestStatus.IN_PROGRESS}
)
# Statuses only a verified request can be in: no request gets past `submitted` unverified.
VERIFIED_STATUSES: frozenset[str] = frozenset(
    {
        RequestStatus.VERIFIED,
        RequestStatus.IN_PROGRESS,
        RequestStatus.COMPLETED,
        RequestStatus.FAILED,
        RequestStatus.APPEALED,
    }
)
FINISHED_STATUSES: frozenset[str] = frozenset(
    {
        RequestStatus.COMPLETED,
        RequestStatus.FAILED,
        RequestStatus.CANCELLED,
        RequestStatus.EXPIRED,
    }
)


class DeleteMode(models.TextChoices):
    SOFT = "soft"  # hidden at once, re-activatable inside the grace window, then purged
    HARD = "hard"  # purged now; zero grace


class ExportFormat(models.TextChoices):
    JSON = "json"


class DeliveryChannel(models.TextChoices):
    DOWNLOAD = "download"  # the member downloads the bundle, signed in, for a limited time


class VerificationMethod(models.TextChoices):
    SESSION_TOKEN = "session-token"  # noqa: S105 - a method name; the member's signed-in browser session
    EMAIL_LINK = "email-link"  # a one-time code mailed to the account's address
    PHONE_OTP = "phone-otp"  # a one-time code by phone (no phone channel is wired yet)
    OPERATOR_SIGNOFF = "operator-signoff"  # an operator verified identity out of band
    COURT_ORDER = "court-order"  # a court order establishes the requester


class TrailEvent(models.TextChoices):
    """What an audit-trail row records: a status change, or a step inside one status."""

    SUBMITTED = "submitted"
    VERIFIED = "verified"
    IN_PROGRESS = "in-progress"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    APPEALED = "appealed"
    CODE_ISSUED = "code-issued"  # a one-time code was sent
    CODE_REJECTED = "code-rejected"  # a wrong code was entered
    CODE_DESTROYED = "code-destroyed"  # attempts or time ran out; the code is gone
    EXTENDED = "extended"  # the deadline was extended once, the member told
    STEP_COMPLETED = "step-completed"  # a processing step finished (resumable jobs)
    HELD = "held"  # a soft delete hid the entries for its grace window
    REACTIVATED = "reactivated"  # the member took a soft delete back inside the window
    DOWNLOADED = "downloaded"  # the member downloaded the export
    ARTIFACT_REMOVED = "artifact-removed"  # the export file was removed (window over, or erased)
    MAIL_UNDELIVERED = "mail-undelivered"  # the mail transport refused a code or a notice


STATUS_EVENTS: frozenset[str] = frozenset(RequestStatus.values)


class FailureCode(models.TextChoices):
    FORGET_INCOMPLETE = "forget-incomplete"  # content of deleted entries remains somewhere
    PROCESSING_ERROR = "processing-error"  # a step raised; an operator retries
    OPERATOR_DECISION = "operator-decision"  # an operator failed it (e.g. identity doubtful)
