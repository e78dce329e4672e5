"""Telling exactly the surfaces that received a memory that it changed (GDPR Art. 17(2) and
19): who received what, and the change events written for them.

Who received what is the member's recall records (`RecallRecord`: every recall, context
bundle and MCP recall, per consumer, with the ids it returned, and every short-term read
that served a row copying or pointing at an entry: `entries_disclosed`). Before an erasure scrubs
them, `entry_recipients` reads which consumer was given which of the doomed entries, and
the change is written as one `ChangeEvent` per recipient, in the transaction of the change
(an outbox): `memory.forgotten` (a fact, with its revisions), `memory.corrected` (a new
head replaced what it received), `person.forgotten` (an entity, with the entries it
received), `member.erased` (everything; to every consumer that ever received the member's
memory) and `consent.withdrawn` (to those that received memory the consent covered).

Only recipients: a consumer is never told of a memory it was not given, and an event
carries ids and times only — never text, names, or a category of memory the recipient
never received. The recipient reads its events from its feed (`GET /api/v1/events/`)
or has them delivered to its webhook.
"""

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db.models import Count, Max, Min, Q

from memory.enums import ChangeType
from memory.labels import consumer_label
from memory.models import ChangeEvent, MemoryEntry, MemoryRevision, RecallRecord


def entry_recipients(*, member_id, entry_ids: Iterable) -> dict[str, set[str]]:
    """consumer → which of these entries it was given (by any recall or bundle)."""
    wanted = {str(i) for i in entry_ids}
    received: dict[str, set[str]] = {}
    if not wanted:
        return received
    rows = (
        RecallRecord.objects.filter(member_id=member_id)
        .exclude(returned_ids=[])
        .values_list("consumer", "returned_ids")
        .iterator(chunk_size=2000)
    )
    for consumer, returned in rows:
        if hit := wanted & {str(i) for i in returned}:
            received.setdefault(consumer, set()).update(hit)
    return received


def member_recipients(*, member_id) -> dict[str, set[str]]:
    """consumer → every entry of the member it was ever given (and, with none left in
    its records, every consumer already told of a change: it was given something)."""
    received: dict[str, set[str]] = {
        consumer: set()
        for consumer in ChangeEvent.objects.filter(member_id=member_id)
        .values_list("consumer", flat=True)
        .distinct()
    }
    rows = (
        RecallRecord.objects.filter(member_id=member_id)
        .exclude(returned_ids=[])
        .values_list("consumer", "returned_ids")
        .iterator(chunk_size=2000)
    )
    for consumer, returned in rows:
        received.setdefault(consumer, set()).update(str(i) for i in returned)
    return received


# What a record of a short-term read says instead of a recall context.
SHORT_TERM_READ = "short-term-read"


def entries_disclosed(*, member_id, consumer: str, entry_ids: Iterable, now: datetime) -> bool:
    """A surface was given these entries' content by another door than recall (a
    short-term row copying or pointing at them): recorded beside its recalls, so it is
    told when they change, and the member sees where their memory went."""
    ids = sorted({str(i) for i in entry_ids})
    if not ids:
        return False
    RecallRecord.objects.create(
        member_id=member_id,
        surface=consumer,
        consumer=consumer,
        scope_key="",
        context=SHORT_TERM_READ,
        returned_ids=ids,
        created_at=now,
    )
    return True


def _revisions(member_id, entry_ids: set[str]) -> dict[str, list[str]]:
    revisions: dict[str, list[str]] = {}
    for entry_id, pk in (
        MemoryRevision.objects.filter(member_id=member_id, entry_id__in=sorted(entry_ids))
        .order_by("entry_id", "number")
        .values_list("entry_id", "pk")
    ):
        revisions.setdefault(str(entry_id), []).append(str(pk))
    return revisions


def change_events_write(
    *,
    member_id,
    type: str,
    received: dict[str, set[str]],
    now: datetime,
    entity_ids: Iterable = (),
    revisions: dict[str, list[str]] | None = None,
    consent_type: str = "",
) -> int:
    """One event per recipient, naming only the entries it received (and their
    revisions: read here unless given, e.g. before an erasure deletes them)."""
    if not received:
        return 0
    if revisions is None:
        revisions = _revisions(member_id, set().union(*received.values()))
    entities = sorted(str(i) for i in entity_ids)
    ChangeEvent.objects.bulk_create(
        ChangeEvent(
            member_id=member_id,
            consumer=consumer,
            type=type,
            entry_ids=sorted(ids),
            revision_ids=sorted(r for i in sorted(ids) for r in revisions.get(i, ())),
            entity_ids=entities,
            consent_type=consent_type,
            occurred_at=now,
        )
        for consumer, ids in sorted(received.items())
    )
    return len(received)


class ErasureNotice:
    """What an erasure must tell, read before its stores run (they scrub the recall
    records and delete the revisions) and written after them, in its transaction."""

    def __init__(self, *, member_id, entry_ids: Iterable, everything: bool, person: bool):
        self.member_id = member_id
        self.type = (
            ChangeType.MEMBER_ERASED
            if everything
            else ChangeType.PERSON_FORGOTTEN
            if person
            else ChangeType.MEMORY_FORGOTTEN
        )
        self.received = (
            member_recipients(member_id=member_id)
            if everything
            else entry_recipients(member_id=member_id, entry_ids=entry_ids)
        )
        self.revisions = (
            _revisions(member_id, set().union(*self.received.values())) if self.received else {}
        )

    def write(self, *, now: datetime, entity_ids: Iterable = ()) -> int:
        return change_events_write(
            member_id=self.member_id,
            type=self.type,
            received=self.received,
            now=now,
            entity_ids=entity_ids,
            revisions=self.revisions,
        )


def entry_corrected(entry: MemoryEntry, *, replaced_revision_id, now: datetime) -> int:
    """A new head replaced what the recipients of this entry were given: they refresh."""
    received = entry_recipients(member_id=entry.member_id, entry_ids=[entry.pk])
    return change_events_write(
        member_id=entry.member_id,
        type=ChangeType.MEMORY_CORRECTED,
        received=received,
        now=now,
        revisions={str(entry.pk): [str(replaced_revision_id)]},
    )


def consent_withdrawn(*, member_id, consent_type: str, now: datetime) -> int:
    """A consent ended: a category's consent is told (by name) to the consumers that
    received memory of that category; any other consent to every consumer that received
    the member's memory. Read before the cascade erases what the consent covered."""
    received = member_recipients(member_id=member_id)
    category = consent_type.removeprefix("category:")
    if category != consent_type:
        of_category = {
            str(pk)
            for pk in MemoryEntry.objects.filter(
                member_id=member_id,
                category=category,
                pk__in=sorted(set().union(*received.values())) if received else [],
            ).values_list("pk", flat=True)
        }
        received = {c: ids & of_category for c, ids in received.items() if ids & of_category}
    return change_events_write(
        member_id=member_id,
        type=ChangeType.CONSENT_WITHDRAWN,
        received=received,
        now=now,
        revisions={},
        consent_type=consent_type,
    )


# --- The member's proof: who was told, when, and whether it acknowledged ------------------

# What a data-rights delete tells (`memory_erase` with a purge): the events its proof lists.
ERASURE_TYPES = (ChangeType.MEMORY_FORGOTTEN, ChangeType.MEMBER_ERASED)


def change_events_last_id() -> int:
    """The newest event's id (0 for none): a marker, so a later read can take only the
    events written after it (a data-rights delete's own)."""
    return ChangeEvent.objects.order_by("-id").values_list("id", flat=True).first() or 0


def member_notifications(
    *, member_id, after: int = 0, upto: int | None = None, types: Iterable[str] = ()
) -> list[dict]:
    """Which surfaces were told of the member's changes, of what kind, when, and whether
    they acknowledged: one row per surface and type, the surface by its name in words
    (never an endpoint), times and counts only. `after` / `upto`: only the events in that
    id range (a delete's own); `types`: only those."""
    events = ChangeEvent.objects.filter(member_id=member_id, id__gt=after)
    if upto is not None:
        events = events.filter(id__lte=upto)
    if types := [str(t) for t in types]:
        events = events.filter(type__in=types)
    rows = (
        events.values("consumer", "type")
        .annotate(
            event_count=Count("id"),
            first_at=Min("occurred_at"),
            last_at=Max("occurred_at"),
            acknowledged_count=Count("acknowledged_at"),
            acknowledged_at=Max("acknowledged_at"),
        )
        .order_by("consumer", "type")
    )
    return [
        {
            "consumer": row["consumer"],
            "name": str(consumer_label(row["consumer"])),
            "type": row["type"],
            "event_count": row["event_count"],
            "first_notified_at": row["first_at"],
            "last_notified_at": row["last_at"],
            "acknowledged": row["acknowledged_count"] == row["event_count"],
            "acknowledged_count": row["acknowledged_count"],
            # When the last of them was acknowledged (None until all are).
            "acknowledged_at": row["acknowledged_at"]
            if row["acknowledged_count"] == row["event_count"]
            else None,
        }
        for row in rows
    ]


# --- Retention: events are kept only as long as notification needs them -----------------

# An acknowledged event has done its work; it stays a while for the member's proof.
ACKNOWLEDGED_KEPT = timedelta(days=30)
# Any event, acknowledged or not: a surface that has not read it by then never will.
UNACKNOWLEDGED_KEPT = timedelta(days=90)


def change_events_expire(*, now: datetime) -> int:
    """Delete the events notification no longer needs (the retention sweep's step):
    acknowledged ones older than `ACKNOWLEDGED_KEPT`, any older than
    `UNACKNOWLEDGED_KEPT`. Returns how many went."""
    deleted, _ = ChangeEvent.objects.filter(
        Q(occurred_at__lt=now - UNACKNOWLEDGED_KEPT)
        | Q(occurred_at__lt=now - ACKNOWLEDGED_KEPT, acknowledged_at__isnull=False)
    ).delete()
    return deleted
