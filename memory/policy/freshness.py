"""Freshness of long-term memory by source tier, computed on read (pure).

ARCHITECTURE.md: user-stated / user-confirmed facts have a 365-day half-life,
summarized / imported ones 180 days, model-inferred / operator-copilot ones 30 days.
freshness = 0.5 ** (age / half-life), age counted from the entry's last revision (the
last time anyone asserted it). No Django import.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import MappingProxyType

from memory.enums import Origin

HALF_LIFE_DAYS: Mapping[str, int] = MappingProxyType(
    {
        Origin.USER_STATED: 365,
        Origin.USER_CONFIRMED: 365,
        Origin.SUMMARIZED_FROM_SESSION: 180,
        Origin.IMPORTED: 180,
        Origin.MODEL_INFERRED: 30,
        Origin.OPERATOR_COPILOT: 30,
    }
)
SOURCE_TIER: Mapping[str, int] = MappingProxyType(
    {origin: {365: 1, 180: 2, 30: 3}[days] for origin, days in HALF_LIFE_DAYS.items()}
)
# Inferences the member never confirmed; the only ones re-confirmation is asked for.
INFERRED_ORIGINS = frozenset({Origin.MODEL_INFERRED, Origin.OPERATOR_COPILOT})
# confidence * freshness below this, or older than the maximum age, is stale.
RECONFIRM_THRESHOLD = 0.3
MAX_INFERENCE_AGE = timedelta(days=180)


def freshness(*, origin: str, asserted_at: datetime, now: datetime) -> float:
    half_life = HALF_LIFE_DAYS.get(origin, 30)
    age_days = max(timedelta(0), now - asserted_at) / timedelta(days=1)
    return round(0.5 ** (age_days / half_life), 6)


@dataclass(frozen=True, slots=True)
class Staleness:
    freshness: float
    effective_confidence: float
    stale: bool


def staleness(*, origin: str, confidence: float, asserted_at: datetime, now: datetime) -> Staleness:
    """Is this a stale, low-confidence inference that the member should re-confirm?"""
    fresh = freshness(origin=origin, asserted_at=asserted_at, now=now)
    effective = round(confidence * fresh, 6)
    stale = origin in INFERRED_ORIGINS and (
        effective < RECONFIRM_THRESHOLD or now - asserted_at > MAX_INFERENCE_AGE
    )
    return Staleness(freshness=fresh, effective_confidence=effective, stale=stale)
