"""Writes to the consent ledger. `consent_event_append` is the only mutation."""

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from consent.enums import (
    CONSENT_TYPES,
    CaptureMethod,
    ConsentEventKind,
    LegalBasis,
    OptOutCategory,
    OptOutEventKind,
)
from consent.integrity import (
    consent_ledger_broken_record,
    consent_ledger_head_advance,
    consent_ledger_trusted_events,
)
from consent.models import ConsentEvent, OptOutEvent
from consent.policy import (
    PROVENANCE_REFUSAL_CODE,
    RECORD_VERSION,
    ConsentState,
    LedgerBreak,
    compute_event_fingerprint,
    compute_event_hash,
    decide,
    provenance_refusal,
    status_after,
)
from consent.selectors import consent_latest_event, consent_ledger_verify, opt_out_latest
from consent.signals import consent_ended
from consent.terms import TERMS_HASHES
from iris_site.appendonly import purge_bypass
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.policy import GENESIS_HASH
from iris_site.errors import Conflict, InvalidInput, NotPermitted
from iris_site.models import User
from iris_site.services import member_lock

POLICY_ID = "iris.consent.ledger.v1"


@dataclass(frozen=True, slots=True)
class AppendResult:
    event: ConsentEvent
    created: bool  # False when the request repeated the current state (idempotent)


def _validate(
    *, consent_type: str, kind: str, legal_basis: str, capture_method: str, terms_version: str
) -> None:
    fields: dict[str, list[str]] = {}
    if consent_type not in CONSENT_TYPES:
        fields["consent_type"] = [f"Unknown consent type {consent_type!r}."]
    if kind not in ConsentEventKind.values:
        fields["kind"] = [f"Unknown event kind {kind!r}."]
    if legal_basis not in LegalBasis.values:
        fields["legal_basis"] = [f"Unknown legal basis {legal_basis!r}."]
    if capture_method not in CaptureMethod.values:
        fields["capture_method"] = [f"Unknown capture method {capture_method!r}."]
    if terms_version not in TERMS_HASHES:
        fields["terms_version"] = [f"Unknown terms version {terms_version!r}."]
    if fields:
        raise InvalidInput("The consent event is invalid.", code="invalid", fields=fields)


def _check_provenance(*, actor: Actor, capture_method: str, legal_basis: str) -> None:
    """Every door (API, admin, CLI, MCP, jobs) appends through here: a principal may
    claim only the capture methods and bases `consent.policy.PROVENANCE_RULES` gives it."""
    fields = provenance_refusal(actor.type, capture_method=capture_method, legal_basis=legal_basis)
    if fields:
        raise NotPermitted(
            "This capture method or legal basis cannot be recorded by you: "
            "only the operator or data-rights path that justifies it may record it.",
            code=PROVENANCE_REFUSAL_CODE,
            fields=fields,
        )


@transaction.atomic
def consent_event_append(
    *,
    member: User,
    consent_type: str,
    kind: str,
    legal_basis: str,
    capture_method: str,
    terms_version: str,
    witness: str,
    actor: Actor,
    valid_until: datetime | None = None,
    now: datetime | None = None,
) -> AppendResult:
    """Append one event after checking its provenance (who may record which capture
    method and legal basis) and the member's current state.

    A repeated grant (or denial) returns the event already in force and writes nothing;
    an event that contradicts the state (withdrawing what is not granted) is refused.
    """
    _validate(
        consent_type=consent_type,
        kind=kind,
        legal_basis=legal_basis,
        capture_method=capture_method,
        terms_version=terms_version,
    )
    _check_provenance(actor=actor, capture_method=capture_method, legal_basis=legal_basis)
    now = now or timezone.now()
    if valid_until is not None and (kind != ConsentEventKind.GRANT or valid_until <= now):
        raise InvalidInput(
            "Only a grant carries an end date, and it must lie in the future.",
            fields={"valid_until": ["Must be a future time on a grant."]},
        )
    member_lock(member_id=member.pk)
    latest = consent_latest_event(member_id=member.pk, consent_type=consent_type)
    state = None
    if latest is not None:
        state = ConsentState(consent_type, latest.status, str(latest.id), latest.valid_until)
    decision = decide(state, ConsentEventKind(kind), now)
    if decision.action == "refuse":
        raise Conflict(decision.message, code=decision.code)
    if decision.action == "noop":
        return AppendResult(event=latest, created=False)

    head = (
        ConsentEvent.objects.filter(member=member)
        .order_by("-sequence")
        .only("sequence", "hash")
        .first()
    )
    # Incremental check: the ledger must still end at the head the last append left.
    # A break closes the member's gates; the member can still append (a withdrawal
    # must always go through), the gates stay closed.
    consent_ledger_trusted_events(member_id=member.pk)
    event = ConsentEvent(
        id=uuid.uuid4(),
        member=member,
        sequence=(head.sequence + 1) if head else 1,
        consent_type=consent_type,
        kind=kind,
        status=status_after(kind),
        legal_basis=legal_basis,
        capture_method=capture_method,
        terms_version=terms_version,
        terms_hash=TERMS_HASHES[terms_version],
        witness=witness,
        occurred_at=now,
        recorded_at=now,
        valid_until=valid_until,
        supersedes=latest
        if kind in (ConsentEventKind.WITHDRAWAL, ConsentEventKind.EXPIRY)
        else None,
        record_version=RECORD_VERSION,
        previous_hash=head.hash if head else GENESIS_HASH,
    )
    body = event.body()
    event.fingerprint = compute_event_fingerprint(body)
    event.hash = compute_event_hash(event.previous_hash, body, event.fingerprint)
    event.save(force_insert=True)
    consent_ledger_head_advance(member_id=member.pk, newest=event, now=now)

    audit_event_append(
        action=AuditAction.of("consent.event", kind),
        policy_id=POLICY_ID,
        actor=actor,
        severity=Severity.INFO,
        target_member_id=member.pk,
        payload={
            "event_id": str(event.id),
            "consent_type": consent_type,
            "kind": kind,
            "legal_basis": legal_basis,
            "capture_method": capture_method,
            "supersedes": str(event.supersedes_id) if event.supersedes_id else None,
        },
        occurred_at=now,
    )
    if kind in (ConsentEventKind.WITHDRAWAL, ConsentEventKind.EXPIRY):
        transaction.on_commit(
            lambda: consent_ended.send(
                sender=ConsentEvent,
                member_id=member.pk,
                consent_type=consent_type,
                event_id=event.id,
                kind=kind,
            )
        )
    return AppendResult(event=event, created=True)


def consent_expire_due(*, now: datetime | None = None) -> int:
    """Append an `expiry` for every grant in force whose end date has passed. Idempotent."""
    now = now or timezone.now()
    expired = 0
    candidates = (
        ConsentEvent.objects.filter(kind=ConsentEventKind.GRANT, valid_until__lte=now)
        .values_list("member_id", "consent_type")
        .distinct()
    )
    for member_id, consent_type in candidates:
        with transaction.atomic():
            member_lock(member_id=member_id)
            latest = consent_latest_event(member_id=member_id, consent_type=consent_type)
            state = ConsentState(consent_type, latest.status, str(latest.id), latest.valid_until)
            if decide(state, ConsentEventKind.EXPIRY, now).action != "append":
                continue  # already expired, withdrawn or re-granted since
            consent_event_append(
                member=latest.member,
                consent_type=consent_type,
                kind=ConsentEventKind.EXPIRY,
                legal_basis=latest.legal_basis,
                capture_method=latest.capture_method,
                terms_version=latest.terms_version,
                witness="system:consent-expiry",
                actor=Actor.system("consent-expiry"),
                now=now,
            )
            expired += 1
    return expired


@transaction.atomic
def consent_ledger_purge(
    *, member: User, consent_types: list[str], dsar_request_id: uuid.UUID
) -> int:
    """Erase a member's events of these types: the data-rights hard delete's path only.

    The remaining events are re-chained so the ledger verifies again, and the episodic
    chain records the purge (ids and counts only), so the rewrite is itself evidenced.
    """
    unknown = sorted(set(consent_types) - set(CONSENT_TYPES))
    if unknown or not consent_types:
        raise InvalidInput(fields={"consent_types": [f"Unknown or empty: {unknown}"]})
    member_lock(member_id=member.pk)
    # The re-chain below recomputes every hash: verify first, so a forgery is recorded
    # (and the gates stay closed) rather than laundered into a ledger that verifies.
    consent_ledger_check(member_id=member.pk)
    with purge_bypass(ConsentEvent):
        # `supersedes` links stay within one consent type, so nothing outside is orphaned.
        purged, _ = ConsentEvent.objects.filter(
            member=member, consent_type__in=consent_types
        ).delete()
        previous = GENESIS_HASH
        for event in ConsentEvent.objects.filter(member=member).order_by("sequence"):
            digest = compute_event_hash(previous, event.body(), event.fingerprint)
            ConsentEvent.objects.filter(pk=event.pk).update(previous_hash=previous, hash=digest)
            previous = digest
    newest = ConsentEvent.objects.filter(member=member).order_by("-sequence").first()
    consent_ledger_head_advance(member_id=member.pk, newest=newest)
    audit_event_append(
        action=AuditAction.CONSENT_LEDGER_PURGED,
        policy_id=POLICY_ID,
        actor=Actor.system("datarights"),
        severity=Severity.WARNING,
        target_member_id=member.pk,
        payload={
            "dsar_request_id": str(dsar_request_id),
            "purged_count": purged,
            "consent_types": sorted(consent_types),
            "head_hash": previous,
        },
    )
    return purged


def consent_ledger_check(*, member_id) -> LedgerBreak | None:
    """The member's full verification; a tampered ledger also closes their gates.

    Terms drift is reported but closes nothing: the ledger is intact, the published
    words changed."""
    broken = consent_ledger_verify(member_id=member_id)
    if broken is not None and broken.reason != "terms-drift":
        consent_ledger_broken_record(member_id=member_id, broken=broken)
    return broken


# --- The opt-out ledger -------------------------------------------------------------------

OPT_OUT_POLICY_ID = "iris.consent.opt_outs.v1"
OPT_OUT_ACTION = AuditAction.CONSENT_OPT_OUT_RECORDED


@dataclass(frozen=True, slots=True)
class OptOutResult:
    category: str
    opted_out: bool  # the category's state after the call
    event: OptOutEvent | None  # the event in force (None: never opted out)
    created: bool  # False when the request repeated the current state (idempotent)


@transaction.atomic
def opt_out_record(
    *,
    member: User,
    category: str,
    opted_out: bool,
    witness: str,
    actor: Actor,
    now: datetime | None = None,
) -> OptOutResult:
    """Turn a category of memory scope off (`opted_out=True`) or back on.

    Appends one event when the state changes; repeating the current state writes
    nothing. Taken under the member lock the write path reads opt-outs under, so an
    opt-out committed first refuses every later write in the scopes it suppresses.
    """
    if category not in OptOutCategory.values:
        raise InvalidInput(
            "The opt-out is invalid.",
            code="invalid",
            fields={"category": [f"Unknown opt-out category {category!r}."]},
        )
    now = now or timezone.now()
    member_lock(member_id=member.pk)
    latest = opt_out_latest(member_id=member.pk).get(category)
    if (latest is not None and latest.opted_out) == opted_out:
        return OptOutResult(category=category, opted_out=opted_out, event=latest, created=False)
    head = OptOutEvent.objects.filter(member=member).order_by("-sequence").only("sequence").first()
    event = OptOutEvent(
        id=uuid.uuid4(),
        member=member,
        sequence=(head.sequence + 1) if head else 1,
        category=category,
        kind=OptOutEventKind.OPT_OUT if opted_out else OptOutEventKind.OPT_IN,
        actor_id=actor.id,
        witness=witness,
        occurred_at=now,
    )
    event.save(force_insert=True)
    audit_event_append(
        action=OPT_OUT_ACTION,
        policy_id=OPT_OUT_POLICY_ID,
        actor=actor,
        severity=Severity.INFO,
        target_member_id=member.pk,
        payload={
            "event_id": str(event.id),
            "sequence": event.sequence,
            "category": category,
            "kind": event.kind,
        },
        occurred_at=now,
    )
    return OptOutResult(category=category, opted_out=opted_out, event=event, created=True)
