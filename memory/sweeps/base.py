"""What every sweep shares: who acts (the retention system actor), under which policy id,
and which scope kinds an expiry action applies to.
"""

from consent.enums import BaseConsentType
from iris_site.audit.events import Actor
from memory.enums import (
    ScopeKind,
)
from memory.policy.retention import retention_envelope_for_kind

POLICY_ID = "iris.memory.retention.v1"
MULTI_ACTOR_SENSITIVE = BaseConsentType.MULTI_ACTOR_SENSITIVE.value
RETENTION_ACTOR = Actor.system("retention")


def kinds_with(action: str) -> list[str]:
    return [k for k in ScopeKind.values if retention_envelope_for_kind(k).expiry_action == action]
