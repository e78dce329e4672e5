"""Retention envelopes: how long each scope kind keeps raw memory and summaries, and what
happens when they expire (summarize, delete, review).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import MappingProxyType

from memory.enums import (
    AdapterScope,
    ExpiryAction,
    ScopeKind,
)
from memory.policy.scopes import KIND_BLUEPRINTS, KIND_PRIMARY_SCOPE

# --- Retention --------------------------------------------------------------------------

SESSION_RAW_RETENTION_DAYS = 30
SESSION_SUMMARY_RETENTION_DAYS = 90
SCENE_RAW_RETENTION_DAYS = 14
SCENE_SUMMARY_RETENTION_DAYS = 90
POSE_RAW_RETENTION_DAYS = 7
POSE_SUMMARY_RETENTION_DAYS = 30
OPERATOR_COPILOT_RETENTION_DAYS = 14
TENANT_MEMORY_RETENTION_DAYS = 365
# Not in the seed: crisis memory is reviewed (never auto-summarized) a session-length
# window after the frame, so safety context neither lingers nor silently vanishes.
CRISIS_RETENTION_DAYS = 30


@dataclass(frozen=True, slots=True)
class RetentionEnvelope:
    """How long raw and summarized memory of a scope survive, and what happens at expiry.

    `raw_days=None` means no age limit: durable until the member deletes it (review), or
    bound to its container and deleted with it (delete, e.g. a notebook).
    """

    raw_days: int | None
    summary_days: int | None
    expiry_action: str  # an ExpiryAction value

    def raw_expires_at(self, since: datetime) -> datetime | None:
        return None if self.raw_days is None else since + timedelta(days=self.raw_days)

    def summary_expires_at(self, since: datetime) -> datetime | None:
        return None if self.summary_days is None else since + timedelta(days=self.summary_days)


_DURABLE = RetentionEnvelope(None, None, ExpiryAction.REVIEW)
_SESSION = RetentionEnvelope(
    SESSION_RAW_RETENTION_DAYS, SESSION_SUMMARY_RETENTION_DAYS, ExpiryAction.SUMMARIZE
)
_BOUND_TO_CONTAINER = RetentionEnvelope(None, None, ExpiryAction.DELETE)
_OPERATOR = RetentionEnvelope(OPERATOR_COPILOT_RETENTION_DAYS, None, ExpiryAction.REVIEW)

# Seed 001's table; the three scopes it leaves out follow the scope they map onto
# (cross_domain → profile, domain → notebook, admin_review → operator copilot).
RETENTION_ENVELOPES: Mapping[str, RetentionEnvelope] = MappingProxyType(
    {
        AdapterScope.ASSISTANT_PROFILE: _DURABLE,
        AdapterScope.SESSION: _SESSION,
        AdapterScope.CONVERSATION: _SESSION,
        AdapterScope.SCENE: RetentionEnvelope(
            SCENE_RAW_RETENTION_DAYS, SCENE_SUMMARY_RETENTION_DAYS, ExpiryAction.SUMMARIZE
        ),
        AdapterScope.POSE: RetentionEnvelope(
            POSE_RAW_RETENTION_DAYS, POSE_SUMMARY_RETENTION_DAYS, ExpiryAction.SUMMARIZE
        ),
        AdapterScope.NOTEBOOK: _BOUND_TO_CONTAINER,
        AdapterScope.OPERATOR_COPILOT: _OPERATOR,
        AdapterScope.TENANT: RetentionEnvelope(
            TENANT_MEMORY_RETENTION_DAYS, None, ExpiryAction.REVIEW
        ),
        AdapterScope.CROSS_DOMAIN: _DURABLE,
        AdapterScope.DOMAIN: _BOUND_TO_CONTAINER,
        AdapterScope.ADMIN_REVIEW: _OPERATOR,
    }
)
CRISIS_RETENTION_ENVELOPE = RetentionEnvelope(CRISIS_RETENTION_DAYS, None, ExpiryAction.REVIEW)


def retention_envelope(adapter_scope: str) -> RetentionEnvelope:
    try:
        return RETENTION_ENVELOPES[adapter_scope]
    except KeyError:
        raise ValueError(f"unknown adapter scope {adapter_scope!r}") from None


def retention_envelope_for_kind(kind: str) -> RetentionEnvelope:
    """What the sweep applies to a stored entry: its kind's primary adapter scope."""
    if kind == ScopeKind.CRISIS:
        return CRISIS_RETENTION_ENVELOPE
    if kind not in KIND_BLUEPRINTS:
        raise ValueError(f"unknown scope kind {kind!r}")
    return RETENTION_ENVELOPES[KIND_PRIMARY_SCOPE[kind]]
