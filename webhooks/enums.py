"""The webhooks' vocabularies."""

from django.db import models


class DeliveryState(models.TextChoices):
    PENDING = "pending", "Pending"  # not yet delivered: due at next_attempt_at
    DELIVERED = "delivered", "Delivered"  # a 2xx answered it
    DEAD = "dead", "Dead"  # failed for the whole retry window; an operator may retry


class FailureKind(models.TextChoices):
    """Why an attempt failed without an HTTP status to show for it (or with one that is
    not an answer: a redirect is never followed)."""

    TIMEOUT = "timeout", "Timed out"
    REFUSED = "refused", "Connection refused"
    REDIRECT = "redirect", "Redirect (not followed)"
    TOO_LARGE = "too-large", "Response too large"
    UNREACHABLE = "unreachable", "Unreachable"
    # The endpoint's address is private, loopback, link-local or reserved and not
    # allow-listed, or its URL is not HTTPS outside DEBUG: never connected to.
    BLOCKED = "blocked", "Address not allowed"
