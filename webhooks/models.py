import uuid

from django.db import models
from django.utils import timezone

from iris_site.models import ServiceClient
from memory.models import ChangeEvent
from webhooks.enums import DeliveryState


class WebhookEndpoint(models.Model):
    """Where a service client's change events are delivered, set by a platform operator.

    The signing secret (`whsec_…`, Standard Webhooks) is stored encrypted
    (`iris_site.crypto`) and shown once, when made. A rotation keeps the previous secret
    until `previous_secret_expires_at`: meanwhile every delivery carries a signature by
    each, so a receiver still verifying with the old one keeps working."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    service_client = models.OneToOneField(
        ServiceClient, on_delete=models.CASCADE, related_name="webhook_endpoint"
    )
    url = models.URLField(max_length=500)
    secret_encrypted = models.TextField(editable=False)
    previous_secret_encrypted = models.TextField(blank=True, editable=False)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"webhook of {self.service_client_id}"


class WebhookDelivery(models.Model):
    """One change event on its way to one endpoint. Pending until a 2xx answers it
    (delivered) or its retry window ends (dead). `attempts` and `last_status` (an HTTP
    status, or a `FailureKind`) are written only with an attempt's outcome, in one
    transaction: a worker killed mid-attempt leaves it pending, to be sent again."""

    id = models.BigAutoField(primary_key=True)
    event = models.ForeignKey(
        ChangeEvent, on_delete=models.CASCADE, related_name="webhook_deliveries"
    )
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    # The event's member, for per-member order without a join.
    member_id = models.UUIDField()
    state = models.CharField(max_length=16, choices=DeliveryState, default=DeliveryState.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_status = models.CharField(max_length=16, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["event", "endpoint"], name="webhooks_delivery_once_per_endpoint"
            ),
            models.CheckConstraint(
                condition=models.Q(state__in=DeliveryState.values),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown delivery state.",
            ),
        ]
        indexes = [
            models.Index(fields=["endpoint", "state", "event"], name="webhooks_delivery_queue"),
            models.Index(fields=["state", "next_attempt_at"], name="webhooks_delivery_due"),
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk} ({self.state})"
