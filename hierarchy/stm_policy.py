"""Pure rules of the short-term tier: age-triggered policy, default consolidation
targets, content normalization. No Django import."""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from types import MappingProxyType

from hierarchy.enums import StmScopeKind

# The hourly age-triggered scan looks at rows expiring within this window.
AGE_TRIGGER_WINDOW = timedelta(minutes=15)
AGE_DROP = "drop"
# v1: every kind drops; an agent that wants durability consolidates explicitly.
AGE_POLICY: Mapping[str, str] = MappingProxyType({kind: AGE_DROP for kind in StmScopeKind.values})
MAX_RELATED_ENTRY_IDS = 50


@dataclass(frozen=True, slots=True)
class AgeDecision:
    policy: str  # drop (the only v1 policy)
    action_detail: str  # age_triggered_drop | age_triggered_unknown_kind
    reason: str  # the metric's reason: age_triggered_drop | unknown_kind


def age_decision(scope_kind: str) -> AgeDecision:
    """What the age-triggered scan does with a row about to expire. A kind the policy
    table does not know (a future scope kind) still drops, flagged as unknown."""
    policy = AGE_POLICY.get(scope_kind)
    if policy is None:
        return AgeDecision(AGE_DROP, "age_triggered_unknown_kind", "unknown_kind")
    return AgeDecision(policy, f"age_triggered_{policy}", f"age_triggered_{policy}")


def default_target_scope(scope_kind: str, scope_id: str) -> dict:
    """Where a consolidated row lands when the caller names no scope: a user session's
    row becomes that session's memory; other working memory goes to the profile, which
    the session → profile promotion rule then guards."""
    if scope_kind == StmScopeKind.USER_SESSION:
        return {"kind": "session", "session_id": scope_id}
    return {"kind": "profile"}


_SPACE_RE = re.compile(r"\s+")


def normalize_content(content: str) -> str:
    """Case- and whitespace-insensitive form: "the same fact" for recurrence counts."""
    return _SPACE_RE.sub(" ", content).strip().casefold()
