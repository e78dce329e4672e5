"""The sole writer of the episodic chain. Every app records its audit events here."""

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from hierarchy.enums import ActorType, Severity
from hierarchy.models import AuditEvent
from hierarchy.policy import (
    GENESIS_HASH,
    ChainLink,
    PayloadRejected,
    canonical_json,
    chain_hash,
    vet_action,
    vet_payload,
    vet_policy_id,
)
from iris_site.errors import InvalidInput

# Arbitrary constant naming the chain's advisory lock on PostgreSQL.
CHAIN_LOCK_KEY = 0x1215_0001


@dataclass(frozen=True, slots=True)
class Actor:
    """Who caused an event, reduced to what the chain may keep: a type, an id, a role."""

    type: str
    id: uuid.UUID | None = None
    role: str = ""

    @classmethod
    def system(cls, role: str = "") -> "Actor":
        return cls(ActorType.SYSTEM, None, role)

    @classmethod
    def of(cls, principal) -> "Actor":
        """The actor for a signed-in user or an authenticated service client."""
        if getattr(principal, "is_service", False):
            return cls(ActorType.SERVICE, principal.id, principal.consumer)
        if getattr(principal, "is_operator", False):
            profile = getattr(principal, "operator_profile", None)
            return cls(ActorType.OPERATOR, principal.id, profile.role if profile else "")
        if getattr(principal, "is_member", False):
            return cls(ActorType.MEMBER, principal.id, "")
        return cls.system()


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _str_or_none(value) -> str | None:
    return None if value is None else str(value)


def link_of(event: AuditEvent) -> ChainLink:
    return ChainLink(
        sequence=event.sequence,
        event_id=str(event.id),
        action=event.action,
        policy_id=event.policy_id,
        severity=event.severity,
        actor_type=event.actor_type,
        actor_id=_str_or_none(event.actor_id),
        actor_role=event.actor_role,
        target_member_id=_str_or_none(event.target_member_id),
        target_tenant_id=_str_or_none(event.target_tenant_id),
        payload=event.payload,
        occurred_at=iso(event.occurred_at),
    )


def _lock_chain() -> None:
    # On SQLite the IMMEDIATE transaction mode already holds the write lock.
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CHAIN_LOCK_KEY])


@transaction.atomic
def audit_event_append(
    *,
    action: str,
    policy_id: str,
    actor: Actor,
    severity: str = Severity.INFO,
    target_member_id: uuid.UUID | None = None,
    target_tenant_id: uuid.UUID | None = None,
    payload: Mapping[str, Any] | None = None,
    occurred_at: datetime | None = None,
) -> AuditEvent:
    """Append one event to the chain, serialized so concurrent writers never fork it."""
    body = dict(payload or {})
    try:
        vet_action(action)
        vet_policy_id(policy_id)
        vet_payload(body)
    except PayloadRejected as exc:
        raise InvalidInput(
            "Audit payloads carry identifiers, enums and numbers only.",
            code="audit_payload_rejected",
            fields={exc.path or "payload": [exc.reason]},
        ) from exc
    # Round-trip through JSON so the hash covers exactly what the database gives back.
    body = json.loads(canonical_json(body))
    moment = (occurred_at or timezone.now()).astimezone(UTC)

    _lock_chain()
    last = AuditEvent.objects.order_by("-sequence").only("sequence", "hash").first()
    event = AuditEvent(
        id=uuid.uuid4(),
        sequence=(last.sequence + 1) if last else 1,
        action=action,
        policy_id=policy_id,
        severity=severity,
        actor_type=actor.type,
        actor_id=actor.id,
        actor_role=actor.role,
        target_member_id=target_member_id,
        target_tenant_id=target_tenant_id,
        payload=body,
        occurred_at=moment,
        previous_hash=last.hash if last else GENESIS_HASH,
    )
    event.hash = chain_hash(event.previous_hash, link_of(event))
    event.save(force_insert=True)
    return event
