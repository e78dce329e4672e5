"""The sole writer of the episodic chain. Every app records its audit events here."""

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from iris_site.audit.enums import ActorType, Severity
from iris_site.audit.policy import (
    GENESIS_HASH,
    ActionUndeclared,
    ChainLink,
    PayloadRejected,
    canonical_json,
    chain_hash,
    chain_key_of,
    vet_action,
    vet_payload,
    vet_policy_id,
)
from iris_site.audit.sealing import payload_seal
from iris_site.errors import InvalidInput
from iris_site.models import AuditEvent

# Arbitrary constant: the first key of every chain's advisory lock on PostgreSQL (the
# second is derived from the chain). Two-int advisory keys never meet one-bigint keys.
CHAIN_LOCK_CLASS = 0x1215_0001
# The database sequence numbering events platform-wide (hierarchy migration 0005).
SEQUENCE_NAME = "hierarchy_auditevent_sequence_seq"


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


def actor_token(actor: Actor) -> str:
    """Who made a row, as the apps' own histories keep it (a memory revision's and a
    data-rights trail row's `actor`): `operator:<id>`, `consumer:<consumer>` for a surface
    (its consumer, not its client id), else the actor's type (`member`, `system`)."""
    if actor.type == ActorType.SERVICE:
        return f"consumer:{actor.role}"
    if actor.type == ActorType.OPERATOR:
        return f"operator:{actor.id}"
    return str(actor.type)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _str_or_none(value) -> str | None:
    return None if value is None else str(value)


def link_of(event: AuditEvent) -> ChainLink:
    return ChainLink(
        sequence=event.sequence,
        chain=event.chain_key,
        chain_sequence=event.chain_sequence,
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


def chain_lock_key(chain: str) -> int:
    """The chain's half of its advisory lock key: 32 bits of SHA-256 of the chain key.
    Two chains sharing it only wait for each other, never fork."""
    return int.from_bytes(hashlib.sha256(chain.encode()).digest()[:4], "big", signed=True)


def _lock_chain(chain: str) -> int:
    """Take this chain's lock for the rest of the transaction; return the event's
    platform-wide sequence number.

    PostgreSQL: the chain's own advisory lock (re-entrant within a transaction) and
    `nextval`, in one round trip: no lock or head shared by all members. Writers under
    `member_lock` already run one at a time per member, so the lock only ever waits for
    an append of that member made without it. SQLite: the IMMEDIATE transaction already
    holds the database's only write lock, so the next number is read from the table.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT pg_advisory_xact_lock(%s, %s), nextval('{SEQUENCE_NAME}')",
                [CHAIN_LOCK_CLASS, chain_lock_key(chain)],
            )
            return cursor.fetchone()[1]
    return (AuditEvent.objects.aggregate(top=Max("sequence"))["top"] or 0) + 1


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
    """Append one event to its chain (the target member's, else the platform's), under
    that chain's lock, so concurrent writers never fork it and other members never wait."""
    body = dict(payload or {})
    try:
        vet_action(action)
    except ActionUndeclared as exc:
        raise InvalidInput(
            "Audit actions are declared in iris_site.audit.actions.",
            code="audit_action_undeclared",
            fields={"action": [exc.reason]},
        ) from exc
    try:
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

    chain = chain_key_of(target_member_id)
    sequence = _lock_chain(chain)
    # Under the chain's lock, so a member's key is made once: special-category values
    # are kept as keyed digests, never in the clear (`iris_site.audit.sealing`).
    body = payload_seal(body, member_id=target_member_id)
    head = (
        AuditEvent.objects.filter(chain_key=chain)
        .order_by("-chain_sequence")
        .values_list("chain_sequence", "hash")
        .first()
    )
    event = AuditEvent(
        id=uuid.uuid4(),
        sequence=sequence,
        chain_key=chain,
        chain_sequence=head[0] + 1 if head else 1,
        action=str(action),
        policy_id=policy_id,
        severity=severity,
        actor_type=actor.type,
        actor_id=actor.id,
        actor_role=actor.role,
        target_member_id=target_member_id,
        target_tenant_id=target_tenant_id,
        payload=body,
        occurred_at=moment,
        previous_hash=head[1] if head else GENESIS_HASH,
    )
    event.hash = chain_hash(event.previous_hash, link_of(event))
    event.save(force_insert=True)
    return event
