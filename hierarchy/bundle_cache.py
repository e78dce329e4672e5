"""The context bundle's 30-second cache (Django's cache framework: Redis shared by every
worker in production, LocMemCache otherwise).

Three things keep a cached bundle from outliving what it was resolved under:

- the key carries every input of the answer, the reader's effective capabilities and
  the member's read state (consents, pending full clear, off the record) included, so a
  consent or settings change reaches a new key in every process at once;
- each member has a generation token in the key: a change to the member's content (an
  entry saved: edit, pause, forget; held, released or purged entries; short-term rows)
  replaces it, so older bundles are never served again;
- a bundle is kept no longer than its first short-term row lives.

The generation is only as shared as the cache: with LocMemCache (no `CACHE_URL`) each
process keeps its own, so a content change committed by another process (a second web
worker; `make run`'s task worker purging or holding entries) is not seen by this one's
cached bundles for up to 30 s. Consent and settings changes are (they are in the key).
Serve from more than one process only with a shared cache
(`tests/trust/test_read_gate_attacks.py` shows both).
"""

import dataclasses
import hashlib
import math
import uuid
from datetime import datetime

from django.core.cache import cache

BUNDLE_TTL_SECONDS = 30
_GENERATION_KEY = "iris:bundle:generation:{member_id}"


def bundle_generation(member_id) -> str:
    key = _GENERATION_KEY.format(member_id=member_id)
    return cache.get_or_set(key, uuid.uuid4().hex, None)


def bundle_invalidate(member_id) -> None:
    cache.set(_GENERATION_KEY.format(member_id=member_id), uuid.uuid4().hex, None)


def _spelled(part: object) -> str:
    """One spelling per value in every process: sets sorted (their iteration order
    follows string hashing, which differs between processes), dataclasses field by field."""
    if dataclasses.is_dataclass(part) and not isinstance(part, type):
        return repr([_spelled(getattr(part, f.name)) for f in dataclasses.fields(part)])
    if isinstance(part, set | frozenset):
        return repr(sorted(str(p) for p in part))
    return str(part)


def bundle_cache_key(member_id, *parts: object) -> str:
    spelled = "\x1f".join(_spelled(p) for p in parts)
    digest = hashlib.sha256(spelled.encode("utf-8")).hexdigest()
    return f"iris:bundle:{member_id}:{bundle_generation(member_id)}:{digest}"


def bundle_cache_get(key: str):
    return cache.get(key)


def bundle_cache_set(key: str, value, *, now: datetime, expires_at: datetime | None) -> None:
    """Keep `value` for 30 s, or only until `expires_at` (the first of its short-term rows
    to expire) if that is sooner: an expired row is never served from the cache."""
    timeout = BUNDLE_TTL_SECONDS
    if expires_at is not None:
        timeout = min(timeout, math.floor((expires_at - now).total_seconds()))
    if timeout > 0:
        cache.set(key, value, timeout)
