"""The consent ledger's pure rules: fingerprints, the hash chain, and state transitions.

No ORM: the ledger's behaviour is tested without a database.
"""

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from consent.enums import (
    STATUS_FOR_KIND,
    CaptureMethod,
    ConsentEventKind,
    ConsentStatus,
    LegalBasis,
)
from iris_site.audit.policy import GENESIS_HASH, canonical_json

RECORD_VERSION = 1

FNV64_OFFSET_BASIS = 0xCBF29CE484222325
FNV64_PRIME = 0x100000001B3
FNV64_MASK = 0xFFFFFFFFFFFFFFFF


# FNV-1a of inputs already hashed, by the SHA-256 digest of the input: every read gate
# re-verifies the same few events of a member's ledger, and the byte-by-byte loop in
# Python costs more than the read. Keyed by digest so that the process keeps no event's
# bytes (member id, witness) past a purge; emptied when full.
_FNV_MEMO: dict[bytes, int] = {}
_FNV_MEMO_SIZE = 4096


def fnv1a_64(data: bytes) -> int:
    """FNV-1a, 64-bit: fast and stable, for drift detection (not tamper proof)."""
    key = hashlib.sha256(data).digest()
    value = _FNV_MEMO.get(key)
    if value is None:
        value = FNV64_OFFSET_BASIS
        for byte in data:
            value = ((value ^ byte) * FNV64_PRIME) & FNV64_MASK
        if len(_FNV_MEMO) >= _FNV_MEMO_SIZE:
            _FNV_MEMO.clear()
        _FNV_MEMO[key] = value
    return value


def compute_terms_hash(terms_text: str) -> str:
    """SHA-256 of the consent terms as shown, with line endings normalised."""
    normalised = terms_text.replace("\r\n", "\n").replace("\r", "\n").strip()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


def compute_event_fingerprint(body: Mapping[str, Any]) -> str:
    """The seed's fingerprint: FNV-1a 64 over the canonical JSON of the event body."""
    return f"{fnv1a_64(canonical_json(body)):016x}"


def compute_event_hash(previous_hash: str, body: Mapping[str, Any], fingerprint: str) -> str:
    """The member's chain link: SHA-256(previous hash + canonical JSON of body+fingerprint)."""
    sealed = canonical_json({"body": body, "fingerprint": fingerprint})
    return hashlib.sha256(previous_hash.encode("ascii") + sealed).hexdigest()


@dataclass(frozen=True, slots=True)
class Decision:
    """What appending an event of `kind` means given the type's current status."""

    action: str  # append | noop | refuse
    code: str = ""
    message: str = ""


APPEND = Decision("append")


def decide(state: "ConsentState | None", kind: ConsentEventKind, now: datetime) -> Decision:
    """Refuse events that contradict the state; make repeated grants/denials no-ops.

    A grant past its end date is no longer in force even before the expiry job has
    recorded it: the member may grant again, and only the job may expire it.
    """
    if kind == ConsentEventKind.EXPIRY:
        if (
            state is not None
            and state.status == ConsentStatus.GRANTED
            and not is_in_force(state, now)
        ):
            return APPEND
        return Decision("refuse", "consent-not-expirable", "Only a lapsed grant can expire.")
    granted = state is not None and is_in_force(state, now)
    if kind == ConsentEventKind.GRANT:
        if granted:
            return Decision("noop", "already-granted", "This consent is already granted.")
        return APPEND
    if kind == ConsentEventKind.WITHDRAWAL:
        if granted:
            return APPEND
        return Decision("refuse", "consent-not-granted", "There is no active grant to withdraw.")
    # A denial answers a request for consent; a granted consent is withdrawn instead.
    if granted:
        return Decision(
            "refuse", "consent-currently-granted", "Withdraw the grant instead of denying it."
        )
    if state is not None and state.status == ConsentStatus.DENIED:
        return Decision("noop", "already-denied", "This consent is already denied.")
    return APPEND


def status_after(kind: ConsentEventKind) -> ConsentStatus:
    return ConsentStatus(STATUS_FOR_KIND[ConsentEventKind(kind)])


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One stored event as verification sees it."""

    event_id: str
    body: Mapping[str, Any]
    fingerprint: str
    previous_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class LedgerBreak:
    event_id: str
    # fingerprint-mismatch | previous-hash-mismatch | hash-mismatch | terms-drift
    # | head-mismatch | head-missing (the last checked head changed or is gone)
    reason: str


def first_invalid(
    rows: Iterable[LedgerRow], *, terms_hashes: Mapping[str, str] | None = None
) -> LedgerBreak | None:
    """Recompute fingerprint and chain for a member's events in order; name the first bad one.

    With `terms_hashes` (terms version → hash of the terms text as published now), an
    event whose recorded terms hash no longer matches its version's text is reported as
    terms drift: the member consented to different words than we now show.
    """
    expected_previous = GENESIS_HASH
    for row in rows:
        if compute_event_fingerprint(row.body) != row.fingerprint:
            return LedgerBreak(row.event_id, "fingerprint-mismatch")
        if row.previous_hash != expected_previous:
            return LedgerBreak(row.event_id, "previous-hash-mismatch")
        if compute_event_hash(row.previous_hash, row.body, row.fingerprint) != row.hash:
            return LedgerBreak(row.event_id, "hash-mismatch")
        if terms_hashes is not None:
            published = terms_hashes.get(row.body["terms_version"])
            if published is not None and published != row.body["terms_hash"]:
                return LedgerBreak(row.event_id, "terms-drift")
        expected_previous = row.hash
    return None


@dataclass(frozen=True, slots=True)
class LedgerHead:
    """The newest event the ledger was last checked up to (stored per member)."""

    sequence: int  # 0: an empty ledger
    event_id: str
    hash: str


def first_untrusted(rows: Iterable[LedgerRow], *, head: LedgerHead | None) -> LedgerBreak | None:
    """The check a gate runs before it acts on a ledger; names the first bad event.

    Cheap enough for every decision: every link is compared (a removed or inserted event
    breaks one), the last checked head must still be there unchanged (a removed newest
    event), and the events a decision reads, the latest of each consent type, have
    their fingerprint and hash recomputed. An older event's content decides nothing;
    `first_invalid` (the member's full verification) recomputes those too. Without a
    head (never checked) the whole ledger is verified once.
    """
    rows = list(rows)
    if head is None:
        return first_invalid(rows)
    expected_previous = GENESIS_HASH
    head_seen = head.sequence == 0
    latest: dict[str, LedgerRow] = {}
    for row in rows:
        if row.previous_hash != expected_previous:
            return LedgerBreak(row.event_id, "previous-hash-mismatch")
        if row.body["sequence"] == head.sequence:
            if (row.event_id, row.hash) != (head.event_id, head.hash):
                return LedgerBreak(row.event_id, "head-mismatch")
            head_seen = True
        latest[row.body["consent_type"]] = row
        expected_previous = row.hash
    if not head_seen:
        return LedgerBreak(head.event_id, "head-missing")
    for row in sorted(latest.values(), key=lambda r: r.body["sequence"]):
        if compute_event_fingerprint(row.body) != row.fingerprint:
            return LedgerBreak(row.event_id, "fingerprint-mismatch")
        if compute_event_hash(row.previous_hash, row.body, row.fingerprint) != row.hash:
            return LedgerBreak(row.event_id, "hash-mismatch")
    return None


@dataclass(frozen=True, slots=True)
class ConsentState:
    consent_type: str
    status: ConsentStatus
    event_id: str
    valid_until: datetime | None


def fold_latest(events: Iterable[ConsentState]) -> dict[str, ConsentState]:
    """Latest event per consent type, for events given in ledger order."""
    latest: dict[str, ConsentState] = {}
    for event in events:
        latest[event.consent_type] = event
    return latest


def is_in_force(state: ConsentState, now: datetime) -> bool:
    """Granted and not past its end date (even before the expiry job has run)."""
    return state.status == ConsentStatus.GRANTED and (
        state.valid_until is None or state.valid_until > now
    )


# --- provenance: who may record which capture method and legal basis ---------------------


class PrincipalKind:
    """Who appends an event (the audit actor's type): the values of `ActorType`."""

    MEMBER = "member"
    OPERATOR = "operator"
    SERVICE = "service"
    SYSTEM = "system"


@dataclass(frozen=True, slots=True)
class ProvenanceRule:
    """The capture methods and legal bases one kind of principal may record."""

    capture_methods: frozenset[str]
    legal_bases: frozenset[str]


# A member records their own choice, as they make it: in a prompt, a settings toggle or
# through the API, on the basis of their consent. What the member did not do themselves
# cannot be claimed by them: an operator records `operator-recorded` events (on whichever
# Art. 6 basis justifies them), and `dsar-import` and the expiry job's restatement of a
# grant's provenance are Iris's own (system) writes. A service client records nothing:
# it asks the member, who answers through their own door.
PROVENANCE_RULES: Mapping[str, ProvenanceRule] = {
    PrincipalKind.MEMBER: ProvenanceRule(
        capture_methods=frozenset(
            {CaptureMethod.INLINE_PROMPT, CaptureMethod.SETTINGS_TOGGLE, CaptureMethod.API}
        ),
        legal_bases=frozenset({LegalBasis.CONSENT}),
    ),
    PrincipalKind.OPERATOR: ProvenanceRule(
        capture_methods=frozenset({CaptureMethod.OPERATOR_RECORDED}),
        legal_bases=frozenset(LegalBasis.values),
    ),
    PrincipalKind.SYSTEM: ProvenanceRule(
        capture_methods=frozenset(CaptureMethod.values),
        legal_bases=frozenset(LegalBasis.values),
    ),
    PrincipalKind.SERVICE: ProvenanceRule(capture_methods=frozenset(), legal_bases=frozenset()),
}
NO_RULE = ProvenanceRule(capture_methods=frozenset(), legal_bases=frozenset())
PROVENANCE_REFUSAL_CODE = "consent-provenance-not-permitted"


def provenance_refusal(
    principal_kind: str, *, capture_method: str, legal_basis: str
) -> dict[str, list[str]]:
    """The field errors refusing this provenance to this kind of principal; empty when
    it may record it. An unknown kind of principal may record nothing (fail closed)."""
    rule = PROVENANCE_RULES.get(str(principal_kind), NO_RULE)
    fields: dict[str, list[str]] = {}
    if capture_method not in rule.capture_methods:
        allowed = ", ".join(sorted(rule.capture_methods)) or "none"
        fields["capture_method"] = [
            f"A {principal_kind} may not record {capture_method!r}; allowed: {allowed}."
        ]
    if legal_basis not in rule.legal_bases:
        allowed = ", ".join(sorted(rule.legal_bases)) or "none"
        fields["legal_basis"] = [
            f"A {principal_kind} may not record the basis {legal_basis!r}; allowed: {allowed}."
        ]
    return fields
