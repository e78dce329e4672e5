"""Fail closed: the gates act on a member's ledger only while it verifies.

`consent_ledger_trusted_events` is what every consent read of a gate goes through: the
member's events when the ledger checks out up to its last checked head, `None` when it
does not (the caller then acts as if nothing were consented). A failed check is
confirmed under the member lock (so a concurrent append or purge is never mistaken for
tampering), stored on the member's head, and raised once as a critical audit event for
the operators; from then on the member stays closed until the ledger is repaired.
"""

from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from consent.models import ConsentEvent, ConsentLedgerHead, OptOutEvent
from consent.policy import LedgerBreak, LedgerHead, LedgerRow, first_untrusted
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.policy import GENESIS_HASH
from iris_site.rawsql import RowReader, member_param
from iris_site.services import member_lock

POLICY_ID = "iris.consent.ledger.v1"
BROKEN_ACTION = AuditAction.CONSENT_LEDGER_BROKEN


def ledger_rows(events) -> list[LedgerRow]:
    return [LedgerRow(str(e.id), e.body(), e.fingerprint, e.previous_hash, e.hash) for e in events]


def _head_of(head: ConsentLedgerHead | None) -> LedgerHead | None:
    return None if head is None else LedgerHead(head.sequence, head.event_id, head.hash)


_HEADS = RowReader(ConsentLedgerHead, [f.attname for f in ConsentLedgerHead._meta.concrete_fields])
_EVENTS = RowReader(ConsentEvent, [f.attname for f in ConsentEvent._meta.concrete_fields])


def _load(
    member_id, *, opt_outs: bool = False
) -> tuple[ConsentLedgerHead | None, list[ConsentEvent], list[tuple[str, str]]]:
    """The member's checked head and events in ledger order, in one statement: one
    snapshot, so an append committing meanwhile is wholly in it (its events chained from
    the head it moved) or not at all. With ``opt_outs``, the same statement also lists
    the member's opt-out ledger, (category, kind) in ledger order, so the read gate
    learns both in one round trip. Every read gate asks this: raw, because the ORM would
    spend longer building the reads than the database spends on them."""
    quote = connection.ops.quote_name
    head_member = quote(ConsentLedgerHead._meta.get_field("member").column)
    event_member = quote(ConsentEvent._meta.get_field("member").column)
    sequence = quote(ConsentEvent._meta.get_field("sequence").column)
    columns = f"{_HEADS.select('h')}, {_EVENTS.select('e')}"
    joins = (
        f" FROM (SELECT 1 AS one) o"
        f" LEFT JOIN {quote(ConsentLedgerHead._meta.db_table)} h ON h.{head_member} = %s"
        f" LEFT JOIN {quote(ConsentEvent._meta.db_table)} e ON e.{event_member} = %s"
    )
    member = member_param(ConsentEvent, member_id)
    width = len(_HEADS.names) + len(_EVENTS.names)
    if opt_outs:
        # The opt-outs as rows of their own after the ledger's (`part` 1), padded to
        # its width: one round trip, two independent lists.
        fields = OptOutEvent._meta
        category, kind, opt_member, opt_sequence = (
            quote(fields.get_field(name).column)
            for name in ("category", "kind", "member", "sequence")
        )
        statement = (
            f"SELECT {columns}, NULL AS c, NULL AS k, 0 AS part, e.{sequence} AS position"  # noqa: S608 - fixed names, values as parameters
            f"{joins} UNION ALL SELECT {', '.join(['NULL'] * width)}, p.{category}, p.{kind},"
            f" 1, p.{opt_sequence} FROM {quote(fields.db_table)} p WHERE p.{opt_member} = %s"
            " ORDER BY part, position"
        )
        params = [member, member, member_param(OptOutEvent, member_id)]
    else:
        statement, params = f"SELECT {columns}{joins} ORDER BY e.{sequence}", [member, member]
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        rows = cursor.fetchall()
    pairs = [(row[width], row[width + 1]) for row in rows if opt_outs and row[width + 2] == 1]
    ledger_rows = [row for row in rows if not opt_outs or row[width + 2] == 0]
    head = _HEADS.instance(ledger_rows[0]) if ledger_rows[0][0] is not None else None
    start = len(_HEADS.names)
    events = [_EVENTS.instance(row, start) for row in ledger_rows if row[start] is not None]
    return head, events, pairs


def consent_ledger_trusted_events(*, member_id) -> list[ConsentEvent] | None:
    """The member's events in ledger order, or `None` when the gates must fail closed."""
    return consent_ledger_trusted_with_opt_outs(member_id=member_id, opt_outs=False)[0]


def consent_ledger_trusted_with_opt_outs(
    *, member_id, opt_outs: bool = True
) -> tuple[list[ConsentEvent] | None, list[tuple[str, str]]]:
    """`consent_ledger_trusted_events`, and the member's opt-out ledger as (category,
    kind) in ledger order, read in the same statement (empty unless ``opt_outs``)."""
    head, events, pairs = _load(member_id, opt_outs=opt_outs)
    if head is not None and head.broken_at is not None:
        return None, pairs
    if head is not None and first_untrusted(ledger_rows(events), head=_head_of(head)) is None:
        return events, pairs
    if head is None and not events:
        return events, pairs
    return _settle(member_id=member_id), pairs


@transaction.atomic
def _settle(*, member_id) -> list[ConsentEvent] | None:
    """Re-check under the member lock; first check of a ledger, or confirm a break."""
    member_lock(member_id=member_id)
    head, events, _ = _load(member_id)
    if head is not None and head.broken_at is not None:
        return None
    broken = first_untrusted(ledger_rows(events), head=_head_of(head))
    if broken is not None:
        consent_ledger_broken_record(member_id=member_id, broken=broken)
        return None
    if head is None:
        consent_ledger_head_advance(member_id=member_id, newest=events[-1] if events else None)
    return events


def consent_ledger_head_advance(
    *, member_id, newest: ConsentEvent | None, now: datetime | None = None
) -> None:
    """Move the checked head to the newest event (caller holds the member lock)."""
    ConsentLedgerHead.objects.update_or_create(
        member_id=member_id,
        defaults={
            "sequence": newest.sequence if newest else 0,
            "event_id": str(newest.id) if newest else "",
            "hash": newest.hash if newest else GENESIS_HASH,
            "checked_at": now or timezone.now(),
        },
    )


def consent_ledger_broken_record(
    *, member_id, broken: LedgerBreak, now: datetime | None = None
) -> bool:
    """Close the member's gates and alert the operators, once per detection.

    Returns True when this call made the detection (and wrote the alert)."""
    now = now or timezone.now()
    with transaction.atomic():
        head, _ = ConsentLedgerHead.objects.get_or_create(
            member_id=member_id,
            defaults={"sequence": 0, "hash": GENESIS_HASH, "checked_at": now},
        )
        changed = ConsentLedgerHead.objects.filter(pk=head.pk, broken_at__isnull=True).update(
            broken_at=now, broken_event_id=broken.event_id, broken_reason=broken.reason
        )
        if changed:
            audit_event_append(
                action=BROKEN_ACTION,
                policy_id=POLICY_ID,
                actor=Actor.system("consent-integrity"),
                severity=Severity.CRITICAL,
                target_member_id=member_id,
                payload={"event_id": broken.event_id, "reason": broken.reason},
                occurred_at=now,
            )
    return bool(changed)
