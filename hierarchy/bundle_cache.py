"""The context bundle's 30-second cache (Django's cache framework, LocMemCache unless
configured otherwise). Each member has a generation token in the key: any write to that
member's memory, short-term rows or consent replaces it, so older bundles are never
served again."""

import hashlib
import uuid

from django.core.cache import cache

BUNDLE_TTL_SECONDS = 30
_GENERATION_KEY = "iris:bundle:generation:{member_id}"


def bundle_generation(member_id) -> str:
    key = _GENERATION_KEY.format(member_id=member_id)
    return cache.get_or_set(key, uuid.uuid4().hex, None)


def bundle_invalidate(member_id) -> None:
    cache.set(_GENERATION_KEY.format(member_id=member_id), uuid.uuid4().hex, None)


def bundle_cache_key(member_id, *parts: object) -> str:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return f"iris:bundle:{member_id}:{bundle_generation(member_id)}:{digest}"


def bundle_cache_get(key: str):
    return cache.get(key)


def bundle_cache_set(key: str, value) -> None:
    cache.set(key, value, BUNDLE_TTL_SECONDS)
