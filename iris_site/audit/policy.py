"""The episodic chain's pure rules: payload vetting, canonical JSON, chain hashing.

No Django import: tested without a database.
"""

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from iris_site.audit.actions import is_declared

GENESIS_HASH = "0" * 64
MAX_PAYLOAD_DEPTH = 4
MAX_LIST_LENGTH = 1000

KEY_RE = re.compile(r"^[a-z][a-z0-9_\-:]{0,63}$")
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
HEX_RE = re.compile(r"^[0-9a-f]{16,128}$")
ISO_TIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$")
# Enum values and machine identifiers: lowercase tokens joined by . _ : - / &,
# never whitespace or capitals, so prose, names and sentences cannot pass.
TOKEN_RE = re.compile(r"^[a-z0-9]+(?:[._:\-/&][a-z0-9]+)*$")
MAX_TOKEN_LENGTH = 160
# Keys that name content by intent are refused whatever their value looks like.
FORBIDDEN_KEYS = frozenset(
    {
        "body",
        "content",
        "text",
        "note",
        "notes",
        "name",
        "email",
        "message",
        "justification",
        "relationship_note",
        "query",
        "summary",
        "title",
        "description",
    }
)


class PayloadRejected(ValueError):
    """An audit payload carried something other than identifiers, enums and numbers."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"audit payload {path or '<root>'}: {reason}")


def _vet_string(path: str, value: str) -> None:
    if len(value) > MAX_TOKEN_LENGTH:
        raise PayloadRejected(path, "string too long for an identifier")
    if UUID_RE.match(value) or HEX_RE.match(value) or ISO_TIME_RE.match(value):
        return
    if not TOKEN_RE.match(value):
        raise PayloadRejected(path, "free text is not allowed; use identifiers, enums, numbers")


def vet_payload(payload: Mapping[str, Any]) -> None:
    """Raise PayloadRejected unless every leaf is an id, an enum token, a number or null."""

    def walk(path: str, value: Any, depth: int) -> None:
        if depth > MAX_PAYLOAD_DEPTH:
            raise PayloadRejected(path, "nested too deeply")
        if value is None or isinstance(value, bool | int):
            return
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise PayloadRejected(path, "numbers must be finite")
            return
        if isinstance(value, str):
            _vet_string(path, value)
            return
        if isinstance(value, Mapping):
            for key, inner in value.items():
                if not isinstance(key, str) or not KEY_RE.match(key):
                    raise PayloadRejected(
                        f"{path}.{key}".lstrip("."), "keys are lowercase identifiers"
                    )
                if key in FORBIDDEN_KEYS:
                    raise PayloadRejected(f"{path}.{key}".lstrip("."), "content keys are refused")
                walk(f"{path}.{key}".lstrip("."), inner, depth + 1)
            return
        if isinstance(value, Sequence):
            if len(value) > MAX_LIST_LENGTH:
                raise PayloadRejected(path, "list too long")
            for index, inner in enumerate(value):
                walk(f"{path}[{index}]", inner, depth + 1)
            return
        raise PayloadRejected(path, f"unsupported type {type(value).__name__}")

    if not isinstance(payload, Mapping):
        raise PayloadRejected("", "payload must be an object")
    walk("", payload, 0)


class ActionUndeclared(PayloadRejected):
    """An action the vocabulary (`iris_site.audit.actions`) does not declare."""


def vet_action(action: str) -> None:
    """Only an action the vocabulary declares (`<app>.<entity>.<verb>`) reaches the chain."""
    if not isinstance(action, str) or not is_declared(action):
        raise ActionUndeclared("action", "undeclared action: declare it in iris_site.audit.actions")


def vet_policy_id(policy_id: str) -> None:
    if len(policy_id) > 128 or not TOKEN_RE.match(policy_id):
        raise PayloadRejected("policy_id", "policy ids are lowercase tokens")


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no whitespace, UTF-8: one byte string per logical value."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


PLATFORM_CHAIN = "platform"  # the chain of events that target no member


def chain_key_of(target_member_id) -> str:
    """Each member's events form their own chain; events without a member, the platform's."""
    return str(target_member_id) if target_member_id else PLATFORM_CHAIN


@dataclass(frozen=True, slots=True)
class ChainLink:
    """What the hash covers: everything about an event except its own hash.

    `sequence` orders events platform-wide; `chain`/`chain_sequence` place the event in
    its own chain, whose links (`previous_hash`) the hash commits to.
    """

    sequence: int
    chain: str
    chain_sequence: int
    event_id: str
    action: str
    policy_id: str
    severity: str
    actor_type: str
    actor_id: str | None
    actor_role: str
    target_member_id: str | None
    target_tenant_id: str | None
    payload: Mapping[str, Any]
    occurred_at: str

    def as_dict(self) -> dict[str, Any]:
        """The event as hashed, and as a member's export carries it."""
        return {
            "sequence": self.sequence,
            "chain": self.chain,
            "chain_sequence": self.chain_sequence,
            "id": self.event_id,
            "action": self.action,
            "policy_id": self.policy_id,
            "severity": self.severity,
            "actor_type": self.actor_type,
            "actor_id": self.actor_id,
            "actor_role": self.actor_role,
            "target_member_id": self.target_member_id,
            "target_tenant_id": self.target_tenant_id,
            "payload": self.payload,
            "occurred_at": self.occurred_at,
        }

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> "ChainLink":
        fields = {k: v for k, v in value.items() if k not in ("id", "previous_hash", "hash")}
        return cls(event_id=value["id"], **fields)

    def canonical(self) -> bytes:
        return canonical_json(self.as_dict())


def chain_hash(previous_hash: str, link: ChainLink) -> str:
    return hashlib.sha256(previous_hash.encode("ascii") + link.canonical()).hexdigest()


@dataclass(frozen=True, slots=True)
class ChainBreak:
    event_id: str
    sequence: int  # the position in its chain
    # hash-mismatch | previous-hash-mismatch | sequence-gap: the stored links do not hold;
    # sealed-head-mismatch: they hold, but the event a checkpoint sealed now hashes
    # differently (rewritten and recomputed at or before it); sealed-head-missing: the
    # chain ends before the sealed head (removed at the end, or the chain is gone).
    reason: str
    chain: str = ""


@dataclass(frozen=True, slots=True)
class SealedHead:
    """A chain's head as a signed checkpoint sealed it."""

    chain: str
    chain_sequence: int
    event_id: str
    hash: str


def first_break(
    links: Iterable[tuple[ChainLink, str, str]],
    start_hash: str = GENESIS_HASH,
    sealed: SealedHead | None = None,
) -> ChainBreak | None:
    """Walk one chain's `(link, stored_previous_hash, stored_hash)` in chain order.

    With `sealed`, the event at the sealed position must hash to the sealed head, so a
    rewrite that recomputed every later hash is caught; events after it chain on from it.
    """
    expected_previous = start_hash
    expected_sequence = 1
    for link, stored_previous, stored_hash in links:
        if link.chain_sequence != expected_sequence:
            return ChainBreak(link.event_id, link.chain_sequence, "sequence-gap", link.chain)
        if stored_previous != expected_previous:
            return ChainBreak(
                link.event_id, link.chain_sequence, "previous-hash-mismatch", link.chain
            )
        if chain_hash(stored_previous, link) != stored_hash:
            return ChainBreak(link.event_id, link.chain_sequence, "hash-mismatch", link.chain)
        at_seal = sealed is not None and link.chain_sequence == sealed.chain_sequence
        if at_seal and (stored_hash, link.event_id) != (sealed.hash, sealed.event_id):
            return ChainBreak(
                link.event_id, link.chain_sequence, "sealed-head-mismatch", link.chain
            )
        expected_previous = stored_hash
        expected_sequence += 1
    if sealed is not None and expected_sequence <= sealed.chain_sequence:
        return ChainBreak(
            sealed.event_id, sealed.chain_sequence, "sealed-head-missing", sealed.chain
        )
    return None
