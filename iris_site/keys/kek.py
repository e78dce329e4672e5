"""The key-encryption key (KEK): wraps every member's data key; held outside the main
database and outside the key store.

A keyset is JSON, ``{"primary": "<id>", "keys": {"<id>": "<base64 of 32 bytes>", ...}}``,
from `IRIS_KEK` (the JSON itself) or the file `IRIS_KEK_FILE`. New wraps use the primary
key; every listed key unwraps, so a rotation is: add a new key as primary, run
`manage.py keys_rotate` (re-wraps every data key), then remove the old key. In
development the file is generated (mode 0600) on first use, like the audit signing key;
production settings never generate one and refuse to start without it.

A provider of wrapping (a cloud KMS, an HSM) replaces `LocalKeyset` behind the same two
methods, `wrap` and `unwrap` (`IRIS_KEY_WRAPPER`, docs/encryption.md).
"""

import base64
import contextlib
import json
import logging
import os
from functools import cache
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from django.utils.module_loading import import_string

from iris_site.keys.store import KeyStoreUnavailable

logger = logging.getLogger("iris.keys")

NONCE_BYTES = 12


class KeyUnwrapFailed(ValueError):
    """A wrapped data key that no configured KEK opens (unknown id, or altered bytes)."""


def keyset_new(key_id: str | None = None) -> dict:
    key_id = key_id or f"k{timezone.now():%Y%m%d%H%M%S}"
    return {"primary": key_id, "keys": {key_id: base64.b64encode(os.urandom(32)).decode()}}


def keyset_parse(text: str) -> tuple[str, dict[str, bytes]]:
    try:
        data = json.loads(text)
        keys = {str(k): base64.b64decode(v, validate=True) for k, v in data["keys"].items()}
        primary = str(data["primary"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ImproperlyConfigured(
            "the key-encryption keyset is not valid JSON of the form "
            '{"primary": "<id>", "keys": {"<id>": "<base64 of 32 bytes>"}}'
        ) from exc
    if primary not in keys or any(len(key) != 32 for key in keys.values()):
        raise ImproperlyConfigured(
            "the key-encryption keyset must name its primary key and hold 32-byte keys"
        )
    return primary, keys


def keyset_text() -> str:
    """The configured keyset's JSON: `IRIS_KEK`, else the file (generated when allowed)."""
    if settings.IRIS_KEK:
        return settings.IRIS_KEK
    path = Path(settings.IRIS_KEK_FILE)
    if not path.exists() and settings.IRIS_KEK_GENERATE:
        _generate(path)
    try:
        return path.read_text()
    except OSError as exc:
        raise ImproperlyConfigured(
            f"no key-encryption key: set IRIS_KEK, or provide the keyset file {path} "
            "(docs/encryption.md). Iris never stores member content unencrypted."
        ) from exc


def _generate(path: Path) -> None:
    """Writes a new keyset to `path` whole or not at all: a private temporary file,
    flushed to disk, then linked into place (fails if another process got there first),
    so no reader ever sees it half written."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(keyset_new(), out)
            out.flush()
            os.fsync(out.fileno())
        # Another process may have generated it first: theirs is the keyset.
        with contextlib.suppress(FileExistsError):
            os.link(partial, path)
    finally:
        partial.unlink(missing_ok=True)


class LocalKeyset:
    """AES-256-GCM wrapping under keys held in the process (from `IRIS_KEK`/its file)."""

    def __init__(self, text: str) -> None:
        self.primary, keys = keyset_parse(text)
        self._ciphers = {key_id: AESGCM(key) for key_id, key in keys.items()}

    @property
    def key_ids(self) -> frozenset[str]:
        return frozenset(self._ciphers)

    def wrap(self, data_key: bytes, *, context: bytes) -> tuple[str, bytes]:
        nonce = os.urandom(NONCE_BYTES)
        return self.primary, nonce + self._ciphers[self.primary].encrypt(nonce, data_key, context)

    def unwrap(self, key_id: str, wrapped: bytes, *, context: bytes) -> bytes:
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise KeyUnwrapFailed(f"the key-encryption key {key_id!r} is not configured")
        try:
            return cipher.decrypt(wrapped[:NONCE_BYTES], wrapped[NONCE_BYTES:], context)
        except InvalidTag as exc:
            raise KeyUnwrapFailed("a wrapped data key failed authentication") from exc


@cache
def _wrapper(path: str, text: str):
    return import_string(path)(text)


_last_good: list = []


def wrapper() -> LocalKeyset:
    """The configured wrapper (`IRIS_KEY_WRAPPER`, default `LocalKeyset`). The keyset is
    read again on each call, so a rotation needs no restart (replace the file in one
    step: write a new file, then rename it over the old). A keyset that cannot be read
    or parsed while serving keeps the last good one of this process, else fails closed
    (`KeyStoreUnavailable`: 503), never a 500."""
    try:
        current = _wrapper(settings.IRIS_KEY_WRAPPER, keyset_text())
    except ImproperlyConfigured as exc:
        if _last_good:
            logger.error("the key-encryption keyset is unreadable: kept the last good one")
            return _last_good[0]
        raise KeyStoreUnavailable(f"the key-encryption keyset is unusable: {exc}") from exc
    _last_good[:] = [current]
    return current
