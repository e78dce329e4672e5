"""Envelope encryption per member: seal and open content, keyed tokens, crypto-shredding.

Every member has a data key (AES-256, random), kept in the key store wrapped by the KEK.
Content is sealed with AES-256-GCM under the member's data key (a random 96-bit nonce
per value) and bound to where it is stored: the additional data is the column's name
and the token's own header, so a value copied to another column, another member or
another generation does not open. A sealed value is text:

    iris1:<base64url(member uuid 16 bytes | generation 4 bytes | nonce 12 | ciphertext+tag)>

so it opens without the row around it (`SealedTextField.from_db_value`).

Equality and the recall index use keyed tokens instead (`member_token`): HMAC-SHA256
under a key derived from the member's data key, so the same words give the same token
for one member only, and nothing once the key is destroyed.

Reads cache unwrapped keys for `IRIS_KEY_CACHE_SECONDS`; writes always ask the key store
which generation is live, so nothing is written under a destroyed key.
"""

import base64
import hashlib
import hmac
import logging
import os
import struct
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.utils.module_loading import import_string

from iris_site.keys.kek import KeyUnwrapFailed, wrapper
from iris_site.keys.store import KeyRecord, KeyStoreUnavailable

logger = logging.getLogger("iris.keys")

PREFIX = "iris1:"
_HEADER = struct.Struct(">16sI")
NONCE_BYTES = 12
TOKEN_CHARS = 22  # 128 bits of an HMAC-SHA256, base64url
_CACHE_LIMIT = 10_000


class Unreadable(str):
    """A sealed value that cannot be opened: its member's key was destroyed (erased), or
    it failed authentication (altered, or sealed under a key this deployment never had).
    Reads as empty text and is never shown as content; saving it back keeps the stored
    token unchanged (`SealedTextField.pre_save`)."""

    token: str
    reason: str

    def __new__(cls, token: str, reason: str) -> "Unreadable":
        value = super().__new__(cls, "")
        value.token = token
        value.reason = reason
        return value


def unreadable(value) -> bool:
    return isinstance(value, Unreadable) or getattr(value, "unreadable", False)


@dataclass(frozen=True, slots=True)
class MemberKey:
    generation: int
    aead: AESGCM
    token_key: bytes


@cache
def _store(path: str, location: str):
    return import_string(path)(location)


def key_store():
    return _store(settings.IRIS_KEYSTORE, settings.IRIS_KEYSTORE_PATH)


_lock = threading.Lock()
_cache: OrderedDict[tuple[str, int], tuple[float, MemberKey]] = OrderedDict()


def cache_clear(member_id: str | None = None) -> None:
    with _lock:
        if member_id is None:
            _cache.clear()
        else:
            for cached in [k for k in _cache if k[0] == member_id]:
                del _cache[cached]


def _wrap_context(member_id: str, generation: int) -> bytes:
    return b"iris.member-key.v1|" + member_id.encode() + b"|" + str(generation).encode()


def _member_key(record: KeyRecord) -> MemberKey:
    context = _wrap_context(record.member_id, record.generation)
    data_key = wrapper().unwrap(record.kek_id, record.wrapped, context=context)
    return _remember(record, data_key)


def _usable_key(record: KeyRecord) -> MemberKey:
    """The key for a write or a keyed token: one that does not unwrap (its KEK removed
    too early, or the key store altered) fails closed like a key store that is down."""
    try:
        return _cached(record.member_id, record.generation) or _member_key(record)
    except KeyUnwrapFailed as exc:
        logger.error(
            "a member's data key does not unwrap",
            extra={"member_id": record.member_id, "alert": "data_key_unwrap_failed"},
        )
        raise KeyStoreUnavailable("a member's data key does not unwrap with the KEK") from exc


def _remember(record: KeyRecord, data_key: bytes) -> MemberKey:
    token_key = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=b"iris.member-token.v1"
    ).derive(data_key)
    key = MemberKey(record.generation, AESGCM(data_key), token_key)
    with _lock:
        _cache[(record.member_id, record.generation)] = (
            time.monotonic() + settings.IRIS_KEY_CACHE_SECONDS,
            key,
        )
        while len(_cache) > _CACHE_LIMIT:
            _cache.popitem(last=False)
    return key


def _cached(member_id: str, generation: int) -> MemberKey | None:
    with _lock:
        hit = _cache.get((member_id, generation))
    if hit is None or hit[0] < time.monotonic():
        return None
    return hit[1]


def write_key(member_id) -> MemberKey:
    """The member's live data key, made when they have none (or theirs was destroyed).
    Always asks the key store: no write lands under a key another process destroyed."""
    member_id = str(member_id)
    store = key_store()
    record = store.latest(member_id)
    if record is None or record.destroyed:
        generation = 1 if record is None else record.generation + 1
        context = _wrap_context(member_id, generation)
        kek_id, wrapped = wrapper().wrap(os.urandom(32), context=context)
        record = store.add(KeyRecord(member_id, generation, kek_id, wrapped))
        if record.destroyed:  # destroyed between the two statements: fail closed
            raise KeyStoreUnavailable("the member's key was destroyed while being made")
    return _usable_key(record)


def _read_key(member_id: str, generation: int) -> MemberKey | None:
    """The key of a generation for reading, None when it was destroyed or never made."""
    key = _cached(member_id, generation)
    if key is not None:
        return key
    record = key_store().get(member_id, generation)
    if record is None or record.destroyed:
        return None
    return _member_key(record)


def _aad(context: str, header: bytes) -> bytes:
    return b"iris1|" + context.encode() + b"|" + header


def seal(member_id, context: str, plaintext: str) -> str:
    """`plaintext` sealed under the member's live key, bound to `context` (its column)."""
    key = write_key(member_id)
    header = _HEADER.pack(uuid.UUID(str(member_id)).bytes, key.generation)
    nonce = os.urandom(NONCE_BYTES)
    sealed = key.aead.encrypt(nonce, plaintext.encode("utf-8"), _aad(context, header))
    return PREFIX + base64.urlsafe_b64encode(header + nonce + sealed).decode("ascii").rstrip("=")


def is_sealed(value) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


def open_sealed(token: str, context: str) -> str:
    """The plaintext of a sealed value, or `Unreadable` (never a partial plaintext).
    Raises `KeyStoreUnavailable` when the key store cannot be asked: reads fail closed."""
    try:
        payload = token[len(PREFIX) :]
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        header, rest = raw[: _HEADER.size], raw[_HEADER.size :]
        member_bytes, generation = _HEADER.unpack(header)
        member_id = str(uuid.UUID(bytes=member_bytes))
    except (ValueError, struct.error):
        return _fault(token, context, member_id=None)
    try:
        key = _read_key(member_id, generation)
    except KeyUnwrapFailed:
        return _fault(token, context, member_id=member_id)
    if key is None:
        return Unreadable(token, "erased")
    try:
        plaintext = key.aead.decrypt(rest[:NONCE_BYTES], rest[NONCE_BYTES:], _aad(context, header))
    except (InvalidTag, ValueError):
        return _fault(token, context, member_id=member_id)
    return plaintext.decode("utf-8")


def _fault(token: str, context: str, *, member_id: str | None) -> Unreadable:
    """A value that fails authentication: an operator alert (ids only, never content)."""
    logger.error(
        "a sealed value failed authentication",
        extra={"member_id": member_id, "column": context, "alert": "ciphertext_unreadable"},
    )
    return Unreadable(token, "fault")


def member_token(member_id, text: str) -> str:
    """A keyed token of `text` for one member: equal texts, equal tokens; no words."""
    key = write_key(member_id)
    return _token(key, text)


def member_tokens(member_id, texts) -> dict[str, str]:
    key = write_key(member_id)
    return {text: _token(key, text) for text in texts}


# What `read_tokens` names a text by when the member has no live key: no token has it
# (tokens are base64url), so it matches nothing.
NO_TOKEN = "!"  # noqa: S105 - not a secret: a token no text has


def read_tokens(member_id, texts) -> dict[str, str]:
    """Keyed tokens for a read (a recall's query): like `member_tokens`, but a member
    without a live key (never written, or erased) gets `NO_TOKEN` for every text
    instead of a new key being made by a read."""
    member_id = str(member_id)
    record = key_store().latest(member_id)
    if record is None or record.destroyed:
        return dict.fromkeys(texts, NO_TOKEN)
    key = _usable_key(record)
    return {text: _token(key, text) for text in texts}


def _token(key: MemberKey, text: str) -> str:
    digest = hmac.new(key.token_key, text.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:TOKEN_CHARS]


def member_file_key(
    member_id, label: str, *, generation: int | None = None
) -> tuple[int, bytes] | None:
    """A 32-byte key for one file of the member's (`label` names it, e.g. an export),
    derived (HKDF) from their data key, so it goes when their keys are shredded.

    Without `generation`: the live key (made when the member has none), for writing;
    returns (generation, key). With `generation`: that generation's key, for reading a
    file written under it; None once it was destroyed (or never made). Raises
    `KeyStoreUnavailable` when the key store cannot be asked, `KeyUnwrapFailed` when the
    stored key does not unwrap."""
    member_id = str(member_id)
    key = write_key(member_id) if generation is None else _read_key(member_id, generation)
    if key is None:
        return None
    derived = HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt=None,
        info=b"iris.member-file.v1|" + label.encode("utf-8"),
    ).derive(key.token_key)
    return key.generation, derived


def shred(member_id) -> int:
    """Destroys every key of the member (crypto-shredding): everything sealed for them,
    in this database and in every copy of it, no longer opens. Returns how many live
    keys were destroyed."""
    member_id = str(member_id)
    destroyed = key_store().destroy(member_id)
    cache_clear(member_id)
    return destroyed
