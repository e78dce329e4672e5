import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from iris_site.enums import Consumer


class ServiceClient(models.Model):
    """An assistant surface's machine identity, bound to exactly one consumer name."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    consumer = models.CharField(max_length=32, choices=Consumer)
    label = models.SlugField(max_length=64, unique=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["consumer", "label"]
        constraints = [
            models.CheckConstraint(
                condition=Q(consumer__in=Consumer.values),
                name="%(app_label)s_%(class)s_consumer_valid",
                violation_error_message="Unknown consumer.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.consumer}:{self.label}"

    # DRF and Django treat request.user duck-typed; a service client is authenticated.
    is_authenticated = True
    is_anonymous = False
    is_member = False
    is_operator = False
    is_service = True


class ApiToken(models.Model):
    """A bearer credential. Only its keyed digest is stored, never the token itself."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The first characters of the token, kept so an owner can tell tokens apart.
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="api_tokens",
    )
    service_client = models.ForeignKey(
        ServiceClient, on_delete=models.CASCADE, null=True, blank=True, related_name="api_tokens"
    )
    label = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # When a member token's owner re-entered their password to mint it (step-up): an
    # irreversible action over the API needs a token minted within a few minutes.
    reauthenticated_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(service_client__isnull=True))
                | (Q(user__isnull=True) & Q(service_client__isnull=False)),
                name="%(app_label)s_%(class)s_one_owner",
                violation_error_message="A token belongs to a user or a service client.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.prefix}…"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None
