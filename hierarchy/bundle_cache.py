"""The context bundle's 30-second cache (Django's cache framework: Redis shared by every
worker in production, LocMemCache otherwise).

Three things keep a cached bundle from outliving what it was resolved under, in every
process, whatever cache backend is configured:

- the key carries every input of the answer, the reader's effective capabilities and
  the member's read state (consents, pending full clear, off the record) included, so a
  consent or settings change reaches a new key at once;
- the key carries the member's bundle generation, a counter in the database
  (`BundleGeneration`) that every change to the member's content moves on inside the
  writer's transaction (`bundle_generation_bump`): it becomes visible exactly when the
  change commits, never before it (a bundle resolved from the old data would be cached
  under the new key) and never after it or not at all (as a cache write after commit
  could be), and a process whose local cache still holds older bundles stops asking
  for them;
- a bundle is kept no longer than its first short-term row lives.

Reading the generation before resolving is what makes this hold: a bundle is only ever
cached under a generation no newer than the data it was resolved from.
"""

import dataclasses
import hashlib
import math
from datetime import datetime

from django.core.cache import cache
from django.db.models import F

from hierarchy.models import BundleGeneration

BUNDLE_TTL_SECONDS = 30


def bundle_generation(member_id) -> int:
    """The member's current generation (one primary-key read; 0 before any change)."""
    version = (
        BundleGeneration.objects.filter(member_id=member_id)
        .values_list("version", flat=True)
        .first()
    )
    return version or 0


def bundle_generation_bump(member_id) -> None:
    """The member's content changed: no bundle cached before this transaction commits is
    served again.

    Called for every audited change about the member (`hierarchy.receivers`), so inside
    the writer's transaction and under the audit chain's lock, which that writer then
    holds until it commits: two writers never wait on each other for this row, and it
    adds no lock order to deadlock against (`member_lock`, entry and row locks). The
    increment is one UPDATE, so no bump is ever lost; the row is created on the first
    change, and `get_or_create` survives a concurrent creator (savepoint, then re-read).
    """
    generation = BundleGeneration.objects.filter(member_id=member_id)
    if generation.update(version=F("version") + 1):
        return
    _, created = BundleGeneration.objects.get_or_create(
        member_id=member_id, defaults={"version": 1}
    )
    if not created:
        generation.update(version=F("version") + 1)


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


# A member's cached bundles are listed under one key, so that an erasure can delete them:
# unreachable is not gone (the text would sit in Redis until it expired).
MAX_INDEXED = 200


def _index_key(member_id) -> str:
    return f"iris:bundle-keys:{member_id}"


def bundle_cache_set(
    key: str, value, *, member_id, now: datetime, expires_at: datetime | None
) -> None:
    """Keep `value` for 30 s, or only until `expires_at` (the first of its short-term rows
    to expire) if that is sooner: an expired row is never served from the cache. The key
    is listed among the member's (`bundle_cache_drop`)."""
    timeout = BUNDLE_TTL_SECONDS
    if expires_at is not None:
        timeout = min(timeout, math.floor((expires_at - now).total_seconds()))
    if timeout > 0:
        cache.set(key, value, timeout)
        index = _index_key(member_id)
        listed = [k for k in cache.get(index) or [] if k != key][-(MAX_INDEXED - 1) :]
        cache.set(index, [*listed, key], BUNDLE_TTL_SECONDS)


def bundle_cache_drop(member_id) -> None:
    """Delete the member's cached bundles (an erasure's: what it forgot is gone from the
    cache too, not only unreachable). Two processes listing a key at the same instant can
    lose one from the list: that bundle stays unreachable (the generation moved on) until
    it expires, at most 30 s."""
    index = _index_key(member_id)
    cache.delete_many([*(cache.get(index) or []), index])


def bundle_cache_held(member_id) -> list:
    """The member's listed bundles the cache still holds."""
    return list(cache.get_many(cache.get(_index_key(member_id)) or []).values())
