"""Confidence by origin, and the privacy storage gate: what may be stored at all, in which
lifecycle, given its category, origin and the member's consents.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from consent.enums import BaseConsentType, category_consent_type
from memory.enums import (
    Origin,
    StorageGateReason,
    is_sensitive_category,
)
from memory.policy.scopes import label_words

# --- Confidence -------------------------------------------------------------------------

# The seed derives confidence from origin and ranks origins in recall with the weights
# 1 / 0.9 / 0.75 / 0.7 / 0.5 / 0.4. One table serves both, so a fact's stored confidence
# and its recall weight can never disagree about which origin is more trustworthy.
ORIGIN_CONFIDENCE: Mapping[str, float] = MappingProxyType(
    {
        Origin.USER_STATED: 1.0,
        Origin.USER_CONFIRMED: 0.9,
        Origin.SUMMARIZED_FROM_SESSION: 0.75,
        Origin.IMPORTED: 0.7,
        Origin.MODEL_INFERRED: 0.5,
        Origin.OPERATOR_COPILOT: 0.4,
    }
)


def confidence_for_origin(origin: str) -> float:
    """The confidence a new entry gets when the writer does not state one."""
    try:
        return ORIGIN_CONFIDENCE[origin]
    except KeyError:
        raise ValueError(f"unknown origin {origin!r}") from None


# --- Privacy storage gate ---------------------------------------------------------------

# The only origins a sensitive write may be persisted with: the member's own word, or an
# inference the member confirmed. A summary quotes only some of the member's turns and an
# import was never confirmed here, so whatever a write is labelled, anything else is an
# inference that waits for the member (`memory.access.origins` binds the labels to the writer).
MEMBER_WORD_ORIGINS: frozenset[str] = frozenset({Origin.USER_STATED, Origin.USER_CONFIRMED})


@dataclass(frozen=True, slots=True)
class StorageGateResult:
    allowed: bool
    reason: str | None = None  # a StorageGateReason value when refused
    required_consent: str | None = None  # the consent type that would unblock the write
    message: str = ""


STORAGE_ALLOWED = StorageGateResult(allowed=True)


def evaluate_privacy_storage_gate(
    *,
    category: str,
    origin: str,
    multi_actor_sensitive: bool,
    active_consent_types: frozenset[str],
) -> StorageGateResult:
    """May this write be persisted at all? Checked before scope policy and conflicts.

    Consent comes first: without it no confirmation could make the write legal, so
    that is the more useful thing to tell the member. A sensitive multi-actor
    interaction is sensitive whatever its category, so it is also never auto-persisted
    from an inference.
    """
    category_sensitive = is_sensitive_category(category)
    if category_sensitive:
        needed = category_consent_type(category)
        if needed not in active_consent_types:
            return StorageGateResult(
                allowed=False,
                reason=StorageGateReason.SENSITIVE_CATEGORY_WITHOUT_CONSENT,
                required_consent=needed,
                message=f"Storing {label_words(category)} memory requires `{needed}` consent.",
            )
    if multi_actor_sensitive:
        needed = BaseConsentType.MULTI_ACTOR_SENSITIVE.value
        if needed not in active_consent_types:
            return StorageGateResult(
                allowed=False,
                reason=StorageGateReason.MULTI_ACTOR_SENSITIVE_WITHOUT_CONSENT,
                required_consent=needed,
                message=f"Storing a sensitive interaction with someone requires `{needed}` "
                "consent.",
            )
    if (category_sensitive or multi_actor_sensitive) and origin not in MEMBER_WORD_ORIGINS:
        return StorageGateResult(
            allowed=False,
            reason=StorageGateReason.SENSITIVE_INFERENCE_REQUIRES_CONFIRMATION,
            message="A sensitive inference is never stored until the member confirms it.",
        )
    return STORAGE_ALLOWED
