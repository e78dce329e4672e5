"""Reads of the consent ledger. Other apps ask here, never the model."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from consent.enums import CATEGORY_PREFIX, OptOutEventKind
from consent.integrity import (
    consent_ledger_trusted_events,
    consent_ledger_trusted_with_opt_outs,
)
from consent.models import ConsentEvent, ConsentLedgerHead, OptOutEvent
from consent.policy import (
    ConsentState,
    LedgerBreak,
    LedgerRow,
    first_invalid,
    fold_latest,
    is_in_force,
)
from consent.terms import TERMS_HASHES
from iris_site.rawsql import member_param


def consent_event_list(*, member_id) -> QuerySet[ConsentEvent]:
    return ConsentEvent.objects.filter(member_id=member_id)


def consent_latest_event(*, member_id, consent_type: str) -> ConsentEvent | None:
    return (
        ConsentEvent.objects.filter(member_id=member_id, consent_type=consent_type)
        .select_related("member")
        .order_by("-sequence")
        .first()
    )


def _states_of(events) -> dict[str, ConsentState]:
    return fold_latest(
        ConsentState(e.consent_type, e.status, str(e.id), e.valid_until) for e in events or []
    )


def consent_states(*, member_id) -> dict[str, ConsentState]:
    """Latest event per consent type: the member's current consent picture.

    Empty when the ledger fails its check (`consent.integrity`): every gate built on
    this, `consent_active` first, then refuses what needs consent.
    """
    return _states_of(consent_ledger_trusted_events(member_id=member_id))


@dataclass(frozen=True, slots=True)
class ActiveConsents:
    """What a member consents to right now; cheap enough to ask on every recall."""

    types: frozenset[str]
    # consent type in force → the id of the ledger event that granted it
    grants: Mapping[str, str] = field(default_factory=dict)

    @property
    def categories(self) -> frozenset[str]:
        return frozenset(
            t.removeprefix(CATEGORY_PREFIX) for t in self.types if t.startswith(CATEGORY_PREFIX)
        )

    def allows(self, consent_type: str) -> bool:
        return consent_type in self.types


def _in_force(states: dict[str, ConsentState], now: datetime | None) -> ActiveConsents:
    now = now or timezone.now()
    grants = {t: state.event_id for t, state in states.items() if is_in_force(state, now)}
    return ActiveConsents(frozenset(grants), grants)


def consent_active(*, member_id, now: datetime | None = None) -> ActiveConsents:
    return _in_force(consent_states(member_id=member_id), now)


def consent_gate_state(
    *, member_id, now: datetime | None = None
) -> tuple[ActiveConsents, frozenset[str]]:
    """What a gate weighs of the member's two ledgers: `consent_active` and
    `opt_outs_active`, read in one statement."""
    events, pairs = consent_ledger_trusted_with_opt_outs(member_id=member_id)
    return _in_force(_states_of(events), now), _opt_outs_of(pairs)


def consent_ledger_verify(*, member_id) -> LedgerBreak | None:
    """Recompute every fingerprint and chain link of the member's ledger, in order."""
    rows = (
        LedgerRow(str(e.id), e.body(), e.fingerprint, e.previous_hash, e.hash)
        for e in ConsentEvent.objects.filter(member_id=member_id).order_by("sequence").iterator()
    )
    return first_invalid(rows, terms_hashes=TERMS_HASHES)


def consent_ledger_broken_count(*, tenant_id=None) -> int:
    """Members whose gates are closed by a ledger that failed verification (of one
    tenant's members, for a tenant-bound operator)."""
    heads = ConsentLedgerHead.objects.filter(broken_at__isnull=False)
    if tenant_id is not None:
        heads = heads.filter(member__tenant_memberships__tenant_id=tenant_id)
    return heads.count()


# --- The opt-out ledger -------------------------------------------------------------------


def opt_out_event_list(*, member_id) -> QuerySet[OptOutEvent]:
    """The member's opt-out ledger (the model's order: oldest first)."""
    return OptOutEvent.objects.filter(member_id=member_id)


def _opt_out_heads(*, member_id) -> QuerySet[OptOutEvent]:
    newer = OptOutEvent.objects.filter(
        member_id=OuterRef("member_id"),
        category=OuterRef("category"),
        sequence__gt=OuterRef("sequence"),
    )
    return OptOutEvent.objects.filter(member_id=member_id).exclude(Exists(newer))


def opt_out_latest(*, member_id) -> dict[str, OptOutEvent]:
    """The latest event per category: the member's opt-out picture (a category never
    touched has no entry, and is on)."""
    return {event.category: event for event in _opt_out_heads(member_id=member_id)}


def _opt_outs_of(pairs) -> frozenset[str]:
    """The categories off after (category, kind) events in ledger order."""
    latest = dict(pairs)  # the last event of each category wins
    return frozenset(c for c, k in latest.items() if k == OptOutEventKind.OPT_OUT)


def opt_outs_active(*, member_id) -> frozenset[str]:
    """The categories the member has turned off right now: what memory's scope
    blueprints are evaluated with on every write and read. One plain query of the
    member's few (category, kind) pairs folded here, in ledger order, which costs a third
    of asking PostgreSQL for the latest per category (`opt_out_latest`); raw, because the
    ORM would spend longer building it than the database spends on it. A gate that also
    needs the consents asks `consent_gate_state` (one statement for both)."""
    fields = OptOutEvent._meta
    quote = connection.ops.quote_name
    category, kind, member, sequence = (
        quote(fields.get_field(name).column) for name in ("category", "kind", "member", "sequence")
    )
    statement = (
        f"SELECT {category}, {kind} FROM {quote(fields.db_table)}"  # noqa: S608 - fixed names, values as parameters
        f" WHERE {member} = %s ORDER BY {sequence}"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [member_param(OptOutEvent, member_id)])
        return _opt_outs_of(cursor.fetchall())
