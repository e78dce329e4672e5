import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q

# The longest `Idempotency-Key` accepted (`iris_site.idempotency`).
KEY_MAX_LENGTH = 128
# How long a key is remembered: a retry within this is answered from its record; after
# it the key is free again (and the record is purged).
IDEMPOTENCY_TTL = timedelta(hours=24)
SCOPE_MAX_LENGTH = 64


class IdempotencyRecord(models.Model):
    """One use of an `Idempotency-Key` by one principal on one endpoint (`scope`): a
    reservation while the write runs, then the outcome a retry is answered from.

    Content-free by construction: the request is kept only as a keyed digest
    (`fingerprint`, HMAC-SHA256 under `IRIS_HASH_SECRET` over the method, the resolved
    path and the canonical body), the answer only as the status code and the ids it named
    (`reference`). A replay re-renders the answer from the resource as it is now, so what
    a member forgets is never served back from here (`iris_site.idempotency`)."""

    class State(models.TextChoices):
        IN_PROGRESS = "in-progress", "In progress"
        COMPLETED = "completed", "Completed"
        # The resource it answered with was erased (a forget, a full clear, a data-rights
        # delete): a retry is told so (410) and nothing is written again.
        GONE = "gone", "Gone"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The principal that sent the key: a person (member or operator) or a service client.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    service_client = models.ForeignKey(
        "iris_site.ServiceClient",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    scope = models.CharField(max_length=SCOPE_MAX_LENGTH)
    key = models.CharField(max_length=KEY_MAX_LENGTH)
    # Empty once GONE: nothing derived from the erased write stays.
    fingerprint = models.CharField(max_length=64, blank=True)
    # Whose data the write concerned (set when it completes), so an erasure finds it.
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    state = models.CharField(max_length=16, choices=State, default=State.IN_PROGRESS)
    # Who holds an in-progress reservation: only that request completes or releases it.
    lease = models.UUIDField(default=uuid.uuid4)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    # The ids and flags the answer is re-rendered from; never content.
    reference = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["created_at"], name="idempotency_created"),
            models.Index(fields=["member", "state"], name="idempotency_member"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(service_client__isnull=True))
                | (Q(user__isnull=True) & Q(service_client__isnull=False)),
                name="%(app_label)s_%(class)s_one_principal",
                violation_error_message="A key belongs to a person or a service client.",
            ),
            models.UniqueConstraint(
                fields=["user", "scope", "key"],
                condition=Q(user__isnull=False),
                name="%(app_label)s_%(class)s_one_per_user_key",
                violation_error_message="This idempotency key is in use.",
            ),
            models.UniqueConstraint(
                fields=["service_client", "scope", "key"],
                condition=Q(service_client__isnull=False),
                name="%(app_label)s_%(class)s_one_per_client_key",
                violation_error_message="This idempotency key is in use.",
            ),
            models.CheckConstraint(
                condition=Q(state__in=["in-progress", "completed", "gone"]),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown state.",
            ),
            models.CheckConstraint(
                condition=~Q(state="completed") | Q(status_code__isnull=False),
                name="%(app_label)s_%(class)s_completed_has_status",
                violation_error_message="A completed key records its status code.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.scope} key ({self.state})"
