"""Encryption at rest for sensitive short-term content, and keyed digests.

Fernet (AES-128-CBC + HMAC-SHA256, from the `cryptography` package) with a key derived
by HKDF-SHA256 from `IRIS_HASH_SECRET`; keys derived the same way from
`SECRET_KEY_FALLBACKS` still decrypt, so a rotation does not strand rows that live at
most a few hours anyway.
"""

import base64
import hashlib
import hmac
from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

_SALT = b"iris.hierarchy.stm"
_INFO = b"stm-content-encryption-v1"
_DIGEST_CONTEXT = b"iris.hierarchy.digest.v1:"
REDACTED_SENSITIVE = "<encrypted>"


class ContentUnreadable(ValueError):
    """The stored token does not decrypt with any current or fallback key."""


def _fernet_key(secret: str) -> bytes:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=_INFO).derive(
        secret.encode("utf-8")
    )
    return base64.urlsafe_b64encode(derived)


@cache
def _cipher(secret: str, fallbacks: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(_fernet_key(s)) for s in (secret, *fallbacks)])


def cipher() -> MultiFernet:
    return _cipher(settings.IRIS_HASH_SECRET, tuple(getattr(settings, "SECRET_KEY_FALLBACKS", ())))


def encrypt(plaintext: str) -> str:
    return cipher().encrypt(plaintext.encode("utf-8")).decode("ascii")


def decrypt(token: str) -> str:
    try:
        return cipher().decrypt(token.encode("ascii")).decode("utf-8")
    except (InvalidToken, ValueError) as exc:
        raise ContentUnreadable("short-term content does not decrypt") from exc


def keyed_digest(value: str, *, length: int = 32) -> str:
    """HMAC-SHA256 hex of `value`: lets the chain and queries match caller-chosen ids and
    repeated content without storing either in the clear."""
    mac = hmac.new(
        settings.IRIS_HASH_SECRET.encode("utf-8"), _DIGEST_CONTEXT + value.encode(), hashlib.sha256
    )
    return mac.hexdigest()[:length]
