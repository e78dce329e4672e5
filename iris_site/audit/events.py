"""The sole writer of the episodic chain. Every app records its audit events here."""

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import Max
from django.db.models.signals import post_save
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
from iris_site.audit.sealing import holds_sensitive, payload_seal
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


def member_chain_lock(member_id) -> None:
    """Take the member's chain lock now, for the rest of the transaction (PostgreSQL; a
    no-op on SQLite, whose IMMEDIATE transaction already holds the only write lock).

    Every member-locked writer takes it (`iris_site.services.member_lock`): it will lock
    the member's rows and then append to their chain, and taking the chain first keeps
    one order with a recall, whose single statement takes the chain and then counts the
    entries it returned, so the two wait for each other instead of deadlocking."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s, %s)",
                [CHAIN_LOCK_CLASS, chain_lock_key(chain_key_of(member_id))],
            )


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


@dataclass(slots=True)
class AuditAppend:
    """One event, vetted and ready to be appended to its chain: everything about it but
    the four fields its chain decides (`sequence`, `chain_sequence`, `previous_hash`,
    `hash`). `run` appends it; a caller that writes in the same statement (a recall's
    record) composes `statement` into its own and hands the row to `finished`."""

    event: AuditEvent

    @property
    def in_one_statement(self) -> bool:
        """On PostgreSQL one statement appends it (`iris_audit_append`, iris_site
        migration 0007). A payload with values to seal takes the Python path: the
        member's sealing key is made under the chain's lock, once."""
        return connection.vendor == "postgresql" and not holds_sensitive(self.event.payload)

    def statement(self) -> tuple[str, list]:
        """``SELECT …`` appending the event and returning its four chain fields.

        The hash is `chain_hash` of the event: its canonical JSON is cut around the two
        numbers only the database knows (the chain's next position, the platform-wide
        sequence), and the function joins the pieces to the head's hash it read under
        the chain's lock."""
        event = self.event
        marks = {"chain_sequence": uuid.uuid4().hex, "sequence": uuid.uuid4().hex}
        marked = AuditEvent(**{f.attname: getattr(event, f.attname) for f in _FIELDS})
        marked.chain_sequence, marked.sequence = marks["chain_sequence"], marks["sequence"]
        text = link_of(marked).canonical().decode("utf-8")
        before_chain_sequence, rest = text.split(f'"{marks["chain_sequence"]}"')
        before_sequence, after_sequence = rest.split(f'"{marks["sequence"]}"')
        params = [
            CHAIN_LOCK_CLASS,
            chain_lock_key(event.chain_key),
            event.chain_key,
            event.id,
            event.action,
            event.policy_id,
            event.severity,
            event.actor_type,
            event.actor_id,
            event.actor_role,
            event.target_member_id,
            event.target_tenant_id,
            canonical_json(event.payload).decode("utf-8"),
            event.occurred_at,
            before_chain_sequence,
            before_sequence,
            after_sequence,
            GENESIS_HASH,
        ]
        return APPEND_STATEMENT, params

    def finished(self, row) -> AuditEvent:
        """The event as appended, from the row `statement` returned; the receivers of a
        saved event are told, as a `save` would tell them."""
        event = self.event
        event.sequence, event.chain_sequence, event.previous_hash, event.hash = row
        event._state.adding, event._state.db = False, connection.alias
        post_save.send(
            sender=AuditEvent,
            instance=event,
            created=True,
            update_fields=None,
            raw=False,
            using=connection.alias,
        )
        return event

    def run(self) -> AuditEvent:
        """Append the event to its chain, under that chain's lock, so concurrent writers
        never fork it and other members never wait: one round trip on PostgreSQL."""
        if self.in_one_statement:
            sql, params = self.statement()
            with connection.cursor() as cursor:
                cursor.execute(sql, params)
                return self.finished(cursor.fetchone())
        return self._append_in_python()

    @transaction.atomic
    def _append_in_python(self) -> AuditEvent:
        event = self.event
        event.sequence = _lock_chain(event.chain_key)
        member_id = event.target_member_id
        # Under the chain's lock, so a member's key is made once: special-category values
        # are kept as keyed digests, never in the clear (`iris_site.audit.sealing`).
        event.payload = payload_seal(event.payload, member_id=member_id)
        head = (
            AuditEvent.objects.filter(chain_key=event.chain_key)
            .order_by("-chain_sequence")
            .values_list("chain_sequence", "hash")
            .first()
        )
        event.chain_sequence = head[0] + 1 if head else 1
        event.previous_hash = head[1] if head else GENESIS_HASH
        event.hash = chain_hash(event.previous_hash, link_of(event))
        event.save(force_insert=True)
        return event


_FIELDS = list(AuditEvent._meta.concrete_fields)
APPEND_STATEMENT = (
    "SELECT * FROM iris_audit_append(%s, %s, %s, %s, %s, %s, %s, %s, %s,"
    " %s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s)"
)


def _number_as_stored(text: str) -> int | float:
    """A JSON number as PostgreSQL's `jsonb` gives it back: exact decimals, so a float
    Python writes with a positive exponent (1e+16, every one at or above 1e16, always
    integral) comes back as its integer, and there is no negative zero. SQLite keeps the
    text; both then hash alike."""
    if "e+" in text.lower():
        return int(Decimal(text))
    return float(text) or 0.0


def audit_event_prepare(
    *,
    action: str,
    policy_id: str,
    actor: Actor,
    severity: str = Severity.INFO,
    target_member_id: uuid.UUID | None = None,
    target_tenant_id: uuid.UUID | None = None,
    payload: Mapping[str, Any] | None = None,
    occurred_at: datetime | None = None,
) -> AuditAppend:
    """The event, vetted (a declared action, a policy id, a payload of identifiers, enums
    and numbers: else 400), for `AuditAppend.run` or a caller's own statement."""
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
    body = json.loads(canonical_json(body), parse_float=_number_as_stored)
    return AuditAppend(
        AuditEvent(
            id=uuid.uuid4(),
            chain_key=chain_key_of(target_member_id),
            action=str(action),
            policy_id=policy_id,
            severity=severity,
            actor_type=actor.type,
            actor_id=actor.id,
            actor_role=actor.role,
            target_member_id=target_member_id,
            target_tenant_id=target_tenant_id,
            payload=body,
            occurred_at=(occurred_at or timezone.now()).astimezone(UTC),
        )
    )


def audit_event_append(**event: Any) -> AuditEvent:
    """Append one event to its chain (the target member's, else the platform's): the
    arguments of `audit_event_prepare`."""
    return audit_event_prepare(**event).run()
