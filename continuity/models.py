import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from continuity.contracts import (
    ANCHOR_ID_MAX_LENGTH,
    CURSOR_MAX_LENGTH,
    DEVICE_ID_MAX_LENGTH,
    IDEMPOTENCY_KEY_MAX_LENGTH,
    SCOPE_KEY_MAX_LENGTH,
    SESSION_ID_MAX_LENGTH,
)
from continuity.enums import NoticeKind, Posture, Surface


class ContinuationToken(models.Model):
    """A member's current place in one slot (a surface and a scope key): the most recent
    write by server time, from whichever device wrote it. References and posture only;
    there is deliberately no column that could hold content."""

    # The slot's id: stable across writes, so a continuation card can be addressed.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="continuation_tokens"
    )
    surface = models.CharField(max_length=16, choices=Surface)
    scope_key = models.CharField(max_length=SCOPE_KEY_MAX_LENGTH)
    # The winning write's own id and device.
    token_id = models.UUIDField()
    device_id = models.CharField(max_length=DEVICE_ID_MAX_LENGTH)
    # The authenticated service client that made the winning write: with `device_id`, the
    # server-side fact "the device that wrote it" for the read gate. NULL for writes
    # without one (before it was recorded, system seeds, a deleted client): such a
    # sensitive token is readable only under the cross-device grant it names.
    written_by_client = models.ForeignKey(
        "iris_site.ServiceClient",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # NULL, not "": the contract's session is optional and "" is not a valid reference.
    session_id = models.CharField(  # noqa: DJ001
        max_length=SESSION_ID_MAX_LENGTH, null=True, blank=True
    )
    tenant_id = models.UUIDField(null=True, blank=True)
    anchor_id = models.CharField(max_length=ANCHOR_ID_MAX_LENGTH)
    cursor = models.CharField(max_length=CURSOR_MAX_LENGTH)
    posture = models.CharField(max_length=16, choices=Posture)
    sensitive_categories = models.JSONField(default=list, blank=True)
    # Denormalized from `sensitive_categories` so the consent guard is one SQL condition.
    is_sensitive = models.BooleanField(default=False)
    # The member's `cross_device` grant the write named; not a foreign key, so a purge of
    # the consent ledger leaves this token hidden instead of blocked or cascaded.
    cross_device_consent_id = models.UUIDField(null=True, blank=True)
    idempotency_key = models.CharField(max_length=IDEMPOTENCY_KEY_MAX_LENGTH)
    # The device's own clock, kept as sent; ordering never trusts it.
    last_updated_at = models.DateTimeField()
    # Server time of the winning write: last-writer-wins compares this.
    recorded_at = models.DateTimeField()
    # Writes applied to this slot so far (1 for the first).
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-recorded_at", "id"]
        indexes = [
            models.Index(fields=["member", "-recorded_at"], name="continuity_member_recent"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["member", "surface", "scope_key"],
                name="%(app_label)s_%(class)s_one_per_slot",
                violation_error_message="A member has one current token per surface and scope.",
            ),
            models.CheckConstraint(
                condition=Q(surface__in=Surface.values),
                name="%(app_label)s_%(class)s_surface_valid",
                violation_error_message="Unknown surface.",
            ),
            models.CheckConstraint(
                condition=Q(posture__in=Posture.values),
                name="%(app_label)s_%(class)s_posture_valid",
                violation_error_message="Unknown posture.",
            ),
            models.CheckConstraint(
                condition=Q(is_sensitive=False) | Q(cross_device_consent_id__isnull=False),
                name="%(app_label)s_%(class)s_sensitive_needs_consent",
                violation_error_message="A sensitive token names a cross-device consent.",
            ),
            models.CheckConstraint(
                condition=Q(revision__gte=1),
                name="%(app_label)s_%(class)s_revision_positive",
                violation_error_message="Revisions count from 1.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.surface} token r{self.revision}"


class ContinuityNotice(models.Model):
    """The "this was also playing on your other device" notice: what the losing device of
    a close race between two devices is told on its next read, instead of a silent overwrite."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="continuity_notices"
    )
    token = models.ForeignKey(ContinuationToken, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(
        max_length=32, choices=NoticeKind, default=NoticeKind.ALSO_PLAYING_ELSEWHERE
    )
    # The device that lost, and where it was: its own write is kept here, not lost.
    device_id = models.CharField(max_length=DEVICE_ID_MAX_LENGTH)
    # The service client that made the losing write: a notice goes back to that client's
    # device only, never to a caller that merely names the device id.
    device_client = models.ForeignKey(
        "iris_site.ServiceClient",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    superseded_token_id = models.UUIDField()
    superseded_anchor_id = models.CharField(max_length=ANCHOR_ID_MAX_LENGTH)
    superseded_cursor = models.CharField(max_length=CURSOR_MAX_LENGTH)
    superseded_posture = models.CharField(max_length=16, choices=Posture)
    # Who won: a device and a time, never the winner's anchor (that goes through the guard).
    winning_token_id = models.UUIDField()
    winning_device_id = models.CharField(max_length=DEVICE_ID_MAX_LENGTH)
    winning_recorded_at = models.DateTimeField()
    created_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        indexes = [
            models.Index(
                fields=["member", "device_id"],
                name="continuity_notice_pending",
                condition=Q(delivered_at__isnull=True),
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["token", "device_id"],
                condition=Q(delivered_at__isnull=True),
                name="%(app_label)s_%(class)s_one_pending_per_device",
                violation_error_message="A device has one pending notice per slot.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} notice"
