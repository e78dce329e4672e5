"""Reads of the consent ledger. Other apps ask here, never the model."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from consent.enums import CATEGORY_PREFIX
from consent.models import ConsentEvent
from consent.policy import (
    ConsentState,
    LedgerBreak,
    LedgerRow,
    first_invalid,
    fold_latest,
    is_in_force,
)
from consent.terms import TERMS_HASHES


def consent_event_list(*, member_id) -> QuerySet[ConsentEvent]:
    return ConsentEvent.objects.filter(member_id=member_id)


def consent_latest_event(*, member_id, consent_type: str) -> ConsentEvent | None:
    return (
        ConsentEvent.objects.filter(member_id=member_id, consent_type=consent_type)
        .select_related("member")
        .order_by("-sequence")
        .first()
    )


def consent_states(*, member_id) -> dict[str, ConsentState]:
    """Latest event per consent type: the member's current consent picture."""
    rows = (
        ConsentEvent.objects.filter(member_id=member_id)
        .order_by("sequence")
        .values_list("consent_type", "status", "id", "valid_until")
    )
    return fold_latest(ConsentState(t, s, str(i), v) for t, s, i, v in rows)


@dataclass(frozen=True, slots=True)
class ActiveConsents:
    """What a member consents to right now; cheap enough to ask on every recall."""

    types: frozenset[str]

    @property
    def categories(self) -> frozenset[str]:
        return frozenset(
            t.removeprefix(CATEGORY_PREFIX) for t in self.types if t.startswith(CATEGORY_PREFIX)
        )

    def allows(self, consent_type: str) -> bool:
        return consent_type in self.types


def consent_active(*, member_id, now: datetime | None = None) -> ActiveConsents:
    now = now or timezone.now()
    states = consent_states(member_id=member_id)
    return ActiveConsents(frozenset(t for t, state in states.items() if is_in_force(state, now)))


def consent_ledger_verify(*, member_id) -> LedgerBreak | None:
    """Recompute every fingerprint and chain link of the member's ledger, in order."""
    rows = (
        LedgerRow(str(e.id), e.body(), e.fingerprint, e.previous_hash, e.hash)
        for e in ConsentEvent.objects.filter(member_id=member_id).order_by("sequence").iterator()
    )
    return first_invalid(rows, terms_hashes=TERMS_HASHES)
