"""Special-category values in the audit chain: sealed when written, neutral when listed.

"This member has mental-health memory" is itself a special-category fact, so the chain
never holds a sensitive category or a consent type naming one in the clear:

- **Writing** (`payload_seal`, called by `audit_event_append` under the chain's lock):
  a sensitive value under one of the `SENSITIVE_KEYS` of a member's event becomes
  `sealed:<HMAC-SHA256(member key, value) hex>`. The member key is 32 random bytes kept
  in `AuditMemberKey`, created on first need and stored sealed under the member's data
  key (`iris_site.keys`), so a copy of the database alone cannot try the few candidate
  values, and once the member's data keys are destroyed no copy ever can. The digest is
  what the chain hashes and the checkpoints seal.
- **Listing** (`payload_listed`): every reader an operator uses (the audit API, the
  Django admin, the short-term replay) shows the neutral `MARKER` for a sensitive value,
  sealed or written in the clear before sealing existed, unless the listing is covered:
  inside a granted inspection that includes sensitive categories, or a data-rights task,
  of that member (`cover_resolve`). Covered, a sealed value is resolved by trying the
  registered candidates' digests under the member key (`resolver_for`).
- **Erasing** (`audit_member_key_destroy`: a full clear's purge, a data-rights delete of
  everything): the key goes. The chain still verifies (its digests are unchanged), and no
  one can tell any more which category a digest was.

iris_site is the bottom layer: the sensitive values are registered by the app that
defines them (`consent`, `sensitive_values_register`), and the covers by the apps that own
inspections and data-rights requests (`cover_register`). With no value registered, every
value under a sensitive key counts as sensitive (fail closed); with no cover registered,
nothing resolves.
"""

import base64
import hashlib
import hmac
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from iris_site.keys import envelope
from iris_site.models import AuditMemberKey

# Payload keys whose values may name a special category (a memory category, a consent
# type, a list of either). Only these are sealed and neutralised: the same words are
# other things elsewhere (`legal` is also an operator role, `safety` a recall context).
SENSITIVE_KEYS = frozenset(
    {"category", "categories", "consent_type", "consent_types", "from_category", "to_category"}
)
SEALED_PREFIX = "sealed:"
# What a listing shows for a sensitive value it may not resolve: which of the special
# categories it was is not said, only that the field held one.
MARKER = "special-category"
_KEY_BYTES = 32
_SALT = b"iris.audit.member-key"
_INFO = b"audit-member-key-wrap-v1"

_sensitive: set[str] = set()


def sensitive_values_register(values: Iterable[str]) -> None:
    """Add the values that are special-category facts (categories, consent types)."""
    _sensitive.update(str(v) for v in values)


def sensitive_values() -> frozenset[str]:
    return frozenset(_sensitive)


def is_sealed(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(SEALED_PREFIX)


def is_sensitive(value: Any) -> bool:
    """A value (under a sensitive key) that a listing must not show in the clear."""
    if not isinstance(value, str):
        return False
    return is_sealed(value) or not _sensitive or value in _sensitive


# --- The member key --------------------------------------------------------------------


def _fernet(secret: str) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=_INFO).derive(
        secret.encode("utf-8")
    )
    return Fernet(base64.urlsafe_b64encode(derived))


@cache
def _cipher_of(secret: str, fallbacks: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([_fernet(s) for s in (secret, *fallbacks)])


def _cipher() -> MultiFernet:
    return _cipher_of(
        settings.IRIS_HASH_SECRET, tuple(getattr(settings, "SECRET_KEY_FALLBACKS", ()))
    )


_KEY_CONTEXT = "iris_site_auditmemberkey.key"


def _wrap(member_id, key: bytes) -> bytes:
    return envelope.seal(member_id, _KEY_CONTEXT, base64.b64encode(key).decode()).encode()


def _unwrap(stored) -> bytes | None:
    text = bytes(stored).decode("ascii", errors="replace")
    if envelope.is_sealed(text):
        opened = envelope.open_sealed(text, _KEY_CONTEXT)
        return None if envelope.unreadable(opened) else base64.b64decode(opened)
    try:  # wrapped before the member data keys existed: Fernet under the hash secret
        return _cipher().decrypt(bytes(stored))
    except (InvalidToken, ValueError, TypeError):
        return None


def member_key(member_id, *, create: bool = False) -> bytes | None:
    """The member's audit key, made on first need when `create`; None if there is none
    (never made, or destroyed by an erasure) or it no longer unwraps."""
    row = AuditMemberKey.objects.filter(member_id=member_id).first()
    if row is None and create:
        try:
            with transaction.atomic():
                row = AuditMemberKey.objects.create(
                    member_id=member_id,
                    key=_wrap(member_id, os.urandom(_KEY_BYTES)),
                    created_at=timezone.now(),
                )
        except IntegrityError:  # made meanwhile by another writer of this member
            row = AuditMemberKey.objects.get(member_id=member_id)
    return None if row is None else _unwrap(row.key)


def audit_member_key_destroy(*, member_id) -> int:
    """Erase the member's audit key: their sealed values can no longer be resolved by
    anyone, while every digest the chain hashed stays (it still verifies). Returns how
    many keys went (0 or 1)."""
    deleted, _ = AuditMemberKey.objects.filter(member_id=member_id).delete()
    return deleted


def audit_member_key_exists(*, member_id) -> bool:
    return AuditMemberKey.objects.filter(member_id=member_id).exists()


def seal_value(key: bytes, value: str) -> str:
    return SEALED_PREFIX + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()


# --- Writing ---------------------------------------------------------------------------


def _map_sensitive(payload: Mapping[str, Any], change: Callable[[str], str]) -> dict:
    """The payload with `change` applied to every sensitive value under a sensitive key,
    at any depth (lists of values included); everything else as it was."""

    def leaf(value):
        if isinstance(value, str):
            return change(value) if is_sensitive(value) else value
        if isinstance(value, list | tuple):
            return [leaf(v) for v in value]
        return walk(value)

    def walk(value):
        if isinstance(value, Mapping):
            return {k: leaf(v) if k in SENSITIVE_KEYS else walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [walk(v) for v in value]
        return value

    return walk(payload)


def holds_sensitive(payload: Mapping[str, Any]) -> bool:
    found = False

    def spot(value: str) -> str:
        nonlocal found
        found = True
        return value

    _map_sensitive(payload, spot)
    return found


def payload_seal(payload: Mapping[str, Any], *, member_id) -> dict:
    """What the chain keeps of a member's payload: its sensitive values sealed under the
    member's key (made now if this is the first). A value already sealed stays as it is;
    an event of no member is kept as given (its listing neutralises it all the same)."""
    if member_id is None or not holds_sensitive(payload):
        return dict(payload)
    key = member_key(member_id, create=True)
    if key is None:  # a key that no longer unwraps: start a new one
        audit_member_key_destroy(member_id=member_id)
        key = member_key(member_id, create=True)
    return _map_sensitive(payload, lambda v: v if is_sealed(v) else seal_value(key, v))


# --- Listing ---------------------------------------------------------------------------


def resolver_for(member_id) -> dict[str, str]:
    """Sealed form → value, for every registered candidate under the member's key; empty
    when the key is gone (erased) or was never made."""
    key = member_key(member_id) if member_id is not None else None
    if key is None:
        return {}
    return {seal_value(key, value): value for value in _sensitive}


def payload_listed(
    payload: Mapping[str, Any] | None,
    *,
    resolve: Mapping[str, str] | None = None,
    tally: dict[str, int] | None = None,
):
    """A payload as a listing shows it: each sensitive value (sealed, or in the clear in a
    row written before sealing) becomes `MARKER`, unless the listing is covered: then
    `resolve` (the member's `resolver_for`) is given, a value in the clear shows, and a
    sealed one shows what it resolves to (the marker once the key is erased)."""
    plain = resolve is not None  # a covered listing: values in the clear show
    resolve = resolve if resolve is not None else {}

    def shown(value: str) -> str:
        if is_sealed(value):
            value = resolve.get(value, MARKER)
        elif not plain:
            value = MARKER
        if tally is not None:
            tally["marker" if value == MARKER else "revealed"] += 1
        return value

    return _map_sensitive(payload or {}, shown)


@dataclass
class Lister:
    """Resolves (or not) the events of one listing: one resolver per member, on demand.
    `covered` is the set of member ids the listing covers (None: none)."""

    covered: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self._resolvers: dict[str, Mapping[str, str]] = {}

    def resolver(self, member_id) -> Mapping[str, str] | None:
        if member_id is None or str(member_id) not in self.covered:
            return None
        key = str(member_id)
        if key not in self._resolvers:
            self._resolvers[key] = resolver_for(member_id)
        return self._resolvers[key]

    def payload(self, event, tally: dict[str, int] | None = None) -> dict:
        return payload_listed(
            event.payload, resolve=self.resolver(event.target_member_id), tally=tally
        )


# --- Covers: where a listing may resolve ------------------------------------------------

# `lookup(operator=user, cover_id=uuid)` → the member id the cover reaches for this
# operator now, and whether it reaches special categories; None when it does not hold.
CoverLookup = Callable[..., "Cover | None"]


@dataclass(frozen=True, slots=True)
class Cover:
    kind: str  # "inspection" | "data-rights-request"
    cover_id: uuid.UUID
    member_id: uuid.UUID
    # Whether the cover reaches the member's special categories (an inspection that
    # includes sensitive categories; a data-rights task always does: it is the member's).
    sensitive: bool


@dataclass(frozen=True, slots=True)
class CoverKind:
    """A kind of cover as registered: how to look one up, which operator roles it can
    ever hold for, and its variants (a label each, and whether it reaches special
    categories), which the documented matrix (`iris_site.audit.listing`) is made of."""

    kind: str
    lookup: CoverLookup
    roles: frozenset[str]
    # (label, reaches special categories, the roles that can ever hold such a cover)
    variants: tuple[tuple[str, bool, frozenset[str]], ...]


_covers: dict[str, CoverKind] = {}


def cover_register(
    kind: str,
    lookup: CoverLookup,
    *,
    roles: Iterable[str],
    variants: Iterable[tuple[str, bool, Iterable[str]]],
) -> None:
    _covers[kind] = CoverKind(
        kind,
        lookup,
        frozenset(roles),
        tuple((label, sensitive, frozenset(held)) for label, sensitive, held in variants),
    )


def cover_kinds() -> tuple[CoverKind, ...]:
    return tuple(_covers[kind] for kind in sorted(_covers))


def cover_resolve(*, kind: str, cover_id: uuid.UUID, operator) -> Cover | None:
    """The cover, if it holds for this operator now; None otherwise (fail closed)."""
    registered = _covers.get(kind)
    if registered is None:
        return None
    role = getattr(getattr(operator, "operator_profile", None), "role", None)
    if role not in registered.roles:
        return None
    return registered.lookup(operator=operator, cover_id=cover_id)
