import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from datarights.enums import (
    OPEN_STATUSES,
    VERIFIED_STATUSES,
    FailureCode,
    RequestKind,
    RequestStatus,
    TrailEvent,
    VerificationMethod,
)
from iris_site.appendonly import append_only_triggers
from iris_site.keys.fields import SealedTextField


class DataRightsRequest(models.Model):
    """A member's data-rights request (delete, export or access): the seed's
    `IrisDataRightsRequest`, with its statutory clocks, its processing progress and the
    fingerprint that binds what was delivered or deleted."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="data_rights_requests"
    )
    kind = models.CharField(max_length=16, choices=RequestKind)
    status = models.CharField(max_length=16, choices=RequestStatus, default=RequestStatus.SUBMITTED)
    # The validated payload (`datarights.contracts`), as JSON.
    payload = models.JSONField(default=dict)

    received_at = models.DateTimeField()
    verify_by = models.DateTimeField()
    verified_at = models.DateTimeField(null=True, blank=True)
    verification_method = models.CharField(max_length=24, choices=VerificationMethod, blank=True)
    # The statutory deadline (from the later of receipt and verification) and, after
    # the one allowed extension, the extended one; `due_at` is whichever applies.
    deadline_at = models.DateTimeField()
    extended_deadline_at = models.DateTimeField(null=True, blank=True)
    extension_reason = models.TextField(max_length=2000, blank=True)
    extended_at = models.DateTimeField(null=True, blank=True)
    due_at = models.DateTimeField()

    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result_fingerprint = models.CharField(max_length=64, blank=True)
    failure_code = models.CharField(max_length=32, choices=FailureCode, blank=True)
    # An operator's reason for failing the request (operator text, shown to the member;
    # kept out of the audit, which records its length only).
    failure_reason = models.TextField(max_length=2000, blank=True)
    # The member's own words contesting a decision: sealed under their data key (issue
    # 45), so a dump does not hold them and their erasure shreds them. Read back as an
    # `Unreadable` (empty) once the key is destroyed or the value was altered.
    appeal_reason = SealedTextField(max_length=2000, blank=True)

    # Resumable processing: the steps done so far and their counters (ids, numbers).
    progress = models.JSONField(default=dict)
    # What a delete erased (ids only, sorted): the fingerprint recomputes from it.
    deleted_ids = models.JSONField(default=list)
    # Encrypted scratch a job needs across a crash (a wrapped export key, the deleted
    # text the completeness check searches for); emptied when the request finishes.
    work_state = models.TextField(blank=True)
    grace_ends_at = models.DateTimeField(null=True, blank=True)

    # Export delivery.
    artifact_name = models.CharField(max_length=200, blank=True)
    artifact_sha256 = models.CharField(max_length=64, blank=True)
    artifact_size = models.BigIntegerField(null=True, blank=True)
    artifact_encrypted = models.BooleanField(default=False)
    download_expires_at = models.DateTimeField(null=True, blank=True)
    artifact_removed_at = models.DateTimeField(null=True, blank=True)
    # Access: the read-only report (counts and the Art. 15 information, no content).
    access_report = models.JSONField(null=True, blank=True)

    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-received_at", "id"]
        indexes = [
            models.Index(fields=["member", "-received_at"], name="dsar_member_received"),
            models.Index(fields=["status", "due_at"], name="dsar_queue"),
            models.Index(
                fields=["verify_by"],
                name="dsar_unverified",
                condition=Q(status=RequestStatus.SUBMITTED),
            ),
            models.Index(
                fields=["grace_ends_at"],
                name="dsar_grace",
                condition=Q(status=RequestStatus.IN_PROGRESS, grace_ends_at__isnull=False),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=RequestStatus.values),
                name="%(app_label)s_%(class)s_status_valid",
                violation_error_message="Unknown data-rights status.",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=RequestKind.values),
                name="%(app_label)s_%(class)s_kind_valid",
                violation_error_message="Unknown data-rights request kind.",
            ),
            models.CheckConstraint(
                condition=~Q(status__in=sorted(VERIFIED_STATUSES)) | Q(verified_at__isnull=False),
                name="%(app_label)s_%(class)s_verified_before_work",
                violation_error_message="No request gets past submitted unverified.",
            ),
            models.CheckConstraint(
                condition=~Q(
                    status=RequestStatus.COMPLETED,
                    kind__in=[RequestKind.DELETE, RequestKind.EXPORT],
                )
                | ~Q(result_fingerprint=""),
                name="%(app_label)s_%(class)s_completed_has_fingerprint",
                violation_error_message="A completed delete or export carries a fingerprint.",
            ),
            models.CheckConstraint(
                condition=Q(extended_deadline_at__isnull=True)
                | (Q(extended_deadline_at__gt=models.F("deadline_at")) & ~Q(extension_reason="")),
                name="%(app_label)s_%(class)s_extension_recorded",
                violation_error_message="An extension is later and records its reason.",
            ),
            models.UniqueConstraint(
                fields=["member", "kind"],
                condition=Q(status__in=sorted(OPEN_STATUSES)),
                name="%(app_label)s_%(class)s_one_open_per_kind",
                violation_error_message="A request of this kind is already open.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} request {self.id} ({self.status})"


class DataRightsTrailEntry(models.Model):
    """One append-only row of a request's audit trail: it starts with `submitted` and
    never goes back in time. Ids, enums and numbers only."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    request = models.ForeignKey(
        DataRightsRequest, on_delete=models.PROTECT, related_name="trail", editable=False
    )
    # Denormalized owner: every query on member data filters by it.
    member_id = models.UUIDField(editable=False)
    sequence = models.PositiveIntegerField(editable=False)
    event = models.CharField(max_length=24, choices=TrailEvent, editable=False)
    status = models.CharField(max_length=16, choices=RequestStatus, editable=False)
    at = models.DateTimeField(editable=False)
    # `member`, `system`, `operator:<uuid>`: survives account changes.
    actor = models.CharField(max_length=160, editable=False)
    detail = models.JSONField(default=dict, editable=False)

    class Meta:
        ordering = ["request", "sequence"]
        constraints = [
            models.UniqueConstraint(
                fields=["request", "sequence"],
                name="%(app_label)s_%(class)s_unique_sequence",
                violation_error_message="The trail already has a row at this position.",
            ),
            models.CheckConstraint(
                condition=~Q(sequence=1)
                | Q(event=TrailEvent.SUBMITTED, status=RequestStatus.SUBMITTED),
                name="%(app_label)s_%(class)s_starts_submitted",
                violation_error_message="A trail starts with `submitted`.",
            ),
            models.CheckConstraint(
                condition=~Q(event__in=RequestStatus.values) | Q(event=models.F("status")),
                name="%(app_label)s_%(class)s_status_event_matches",
                violation_error_message="A status row names the status it moved to.",
            ),
        ]
        triggers = append_only_triggers()

    def __str__(self) -> str:
        return f"#{self.sequence} {self.event}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("data-rights trail rows are append-only")
        super().save(*args, **kwargs)


class VerificationCode(models.Model):
    """A one-time code proving the requester controls the account's mailbox. Stored as
    a keyed hash; destroyed (hash emptied) when used, out of attempts or out of time."""

    class State(models.TextChoices):
        ACTIVE = "active"
        USED = "used"
        DESTROYED = "destroyed"

    class Delivery(models.TextChoices):
        """What the mail transport said (the code is mailed after the request commits)."""

        PENDING = "pending"
        SENT = "sent"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    request = models.ForeignKey(
        DataRightsRequest, on_delete=models.CASCADE, related_name="verification_codes"
    )
    member_id = models.UUIDField()
    method = models.CharField(max_length=24, choices=VerificationMethod)
    code_hash = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=16, choices=State, default=State.ACTIVE)
    attempts = models.PositiveSmallIntegerField(default=0)
    issued_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    delivery = models.CharField(max_length=8, choices=Delivery, default=Delivery.PENDING)

    class Meta:
        ordering = ["-issued_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["request"],
                condition=Q(state="active"),
                name="%(app_label)s_%(class)s_one_active",
                violation_error_message="A request has one active code at a time.",
            ),
            models.CheckConstraint(
                condition=Q(state="active") | Q(code_hash=""),
                name="%(app_label)s_%(class)s_ended_codes_destroyed",
                violation_error_message="A used or destroyed code keeps no hash.",
            ),
        ]

    def __str__(self) -> str:
        return f"code for {self.request_id} ({self.state})"
