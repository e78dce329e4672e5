"""Bearer tokens: minted once, shown once, stored as a keyed SHA-256 digest."""

import hashlib
import hmac
import secrets

from django.conf import settings

TOKEN_PREFIX = "iris_"  # noqa: S105 - a label, not a secret


def token_generate() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_digest(raw_token: str) -> str:
    # Tokens carry 256 bits of entropy, so a keyed fast hash suffices (no password KDF):
    # a leaked table reveals nothing, and a lookup stays one indexed equality.
    return hmac.new(
        settings.IRIS_HASH_SECRET.encode(), raw_token.encode(), hashlib.sha256
    ).hexdigest()
