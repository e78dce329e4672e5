"""Operators' changes to webhook endpoints: set or replace the URL, rotate the secret
(the old one signs too for an overlap of 24 hours), disable, and retry dead deliveries.

Every change is audited with ids, the URL's host and counts; never a secret. A secret is
returned once, to be shown once, and stored only encrypted (`iris_site.crypto`).
"""

import base64
import secrets
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.db import transaction
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.policy import TOKEN_RE
from iris_site.crypto import decrypt, encrypt
from iris_site.errors import InvalidInput
from iris_site.models import ServiceClient
from webhooks.enums import DeliveryState
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.transport import url_problem

POLICY_ID = "iris.webhooks.endpoints.v1"
ROTATION_OVERLAP = timedelta(hours=24)
SECRET_PREFIX = "whsec_"  # noqa: S105 - the Standard Webhooks secret prefix, no secret


def secret_new() -> str:
    """A Standard Webhooks secret: `whsec_` and 32 random bytes, base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def signing_secrets(endpoint: WebhookEndpoint, *, now: datetime) -> list[str]:
    """The secrets a delivery is signed with now: the current one, and the previous one
    while its overlap lasts."""
    found = [decrypt(endpoint.secret_encrypted)]
    if (
        endpoint.previous_secret_encrypted
        and endpoint.previous_secret_expires_at
        and now < endpoint.previous_secret_expires_at
    ):
        found.append(decrypt(endpoint.previous_secret_encrypted))
    return found


def url_host(url: str) -> str | None:
    """The URL's host, when it can be audited as a token (a name or an IPv4 address)."""
    host = (urlsplit(url).hostname or "").lower()
    return host if TOKEN_RE.match(host) else None


def _audit(action: AuditAction, actor: Actor, payload: dict, now: datetime) -> None:
    audit_event_append(
        action=action, policy_id=POLICY_ID, actor=actor, payload=payload, occurred_at=now
    )


@transaction.atomic
def webhook_endpoint_set(
    *, service_client: ServiceClient, url: str, actor: Actor, now: datetime | None = None
) -> tuple[WebhookEndpoint, str | None]:
    """Set (or replace) the client's endpoint URL and activate it. A new endpoint gets a
    secret, returned once; a replaced URL keeps its secret (None)."""
    now = now or timezone.now()
    url = url.strip()
    if problem := url_problem(url):
        raise InvalidInput(fields={"url": [problem]})
    endpoint = (
        WebhookEndpoint.objects.select_for_update().filter(service_client=service_client).first()
    )
    secret = None
    created = endpoint is None
    if endpoint is None:
        secret = secret_new()
        endpoint = WebhookEndpoint.objects.create(
            service_client=service_client,
            url=url,
            secret_encrypted=encrypt(secret),
            created_at=now,
            updated_at=now,
        )
    else:
        endpoint.url = url
        endpoint.is_active = True
        endpoint.updated_at = now
        endpoint.save(update_fields=["url", "is_active", "updated_at"])
    _audit(
        AuditAction.WEBHOOKS_ENDPOINT_SET,
        actor,
        {
            "endpoint_id": str(endpoint.pk),
            "service_client_id": str(service_client.pk),
            "host": url_host(url),
            "created": created,
        },
        now,
    )
    return endpoint, secret


@transaction.atomic
def webhook_secret_rotate(
    *, endpoint: WebhookEndpoint, actor: Actor, now: datetime | None = None
) -> str:
    """A new secret (returned once); the current one keeps signing for 24 hours."""
    now = now or timezone.now()
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    secret = secret_new()
    endpoint.previous_secret_encrypted = endpoint.secret_encrypted
    endpoint.previous_secret_expires_at = now + ROTATION_OVERLAP
    endpoint.secret_encrypted = encrypt(secret)
    endpoint.updated_at = now
    endpoint.save()
    _audit(
        AuditAction.WEBHOOKS_ENDPOINT_SECRET_ROTATED,
        actor,
        {
            "endpoint_id": str(endpoint.pk),
            "service_client_id": str(endpoint.service_client_id),
            "overlap_seconds": int(ROTATION_OVERLAP.total_seconds()),
        },
        now,
    )
    return secret


@transaction.atomic
def webhook_endpoint_disable(
    *, endpoint: WebhookEndpoint, actor: Actor, now: datetime | None = None
) -> None:
    """Nothing more is sent to it (pending deliveries wait; setting a URL resumes)."""
    now = now or timezone.now()
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(is_active=False, updated_at=now)
    _audit(
        AuditAction.WEBHOOKS_ENDPOINT_DISABLED,
        actor,
        {"endpoint_id": str(endpoint.pk), "service_client_id": str(endpoint.service_client_id)},
        now,
    )


@transaction.atomic
def webhook_dead_retry(
    *, endpoint: WebhookEndpoint, actor: Actor, now: datetime | None = None
) -> int:
    """Every dead delivery of the endpoint is pending again, due now, with a fresh retry
    window. Returns how many."""
    now = now or timezone.now()
    count = WebhookDelivery.objects.filter(endpoint=endpoint, state=DeliveryState.DEAD).update(
        state=DeliveryState.PENDING, next_attempt_at=now, created_at=now
    )
    _audit(
        AuditAction.WEBHOOKS_DELIVERIES_RETRIED,
        actor,
        {"endpoint_id": str(endpoint.pk), "delivery_count": count},
        now,
    )
    return count
