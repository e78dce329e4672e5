"""What the data-rights app needs from memory, owned here so memory's tables are read
and written only by memory: the soft-delete holds, the reads an export or an access
report makes, and the reads and writes memory's content stores make for the erasure
service (`memory.forgetting.erasure`: conversation turns, recall records, the text to erase).

Every write here appends its audit event (ids and counts only).
"""

import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from iris_site.appendonly import purge_bypass
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from memory.enums import EntryAuditAction, Lifecycle, Origin, ProvenanceKind
from memory.models import (
    ConversationTurn,
    MemoryDeletionHold,
    MemoryEntry,
    MemoryNotice,
    MemoryRevision,
    OffTheRecordSession,
    RecallRecord,
    conflict_token_read,
)
from memory.policy import conflicts

POLICY_ID = "iris.memory.dsar.v1"
BATCH = 500


def _ids(values: Iterable) -> list[str]:
    return sorted({str(v) for v in values})


# --- Targets ---------------------------------------------------------------------------


def memory_dsar_target_ids(
    *, member_id, scope_kinds: Sequence[str], categories: Sequence[str]
) -> list[str]:
    """Every entry a delete covers, whatever its lifecycle (a tombstone still holds its
    body until the purge), plus the summaries derived from them. Scopes and categories
    both named: entries in those scopes *and* of those categories."""
    entries = MemoryEntry.objects.filter(member_id=member_id)
    if scope_kinds:
        entries = entries.filter(scope_kind__in=list(scope_kinds))
    if categories:
        entries = entries.filter(category__in=list(categories))
    targets = {str(i) for i in entries.values_list("pk", flat=True)}
    # Summaries quote what they summarize: they go with their sources (to a fixpoint).
    summaries = {
        str(pk): {str(link.get("ref")) for link in chain or ()}
        for pk, chain in MemoryEntry.objects.filter(
            member_id=member_id, origin=Origin.SUMMARIZED_FROM_SESSION
        )
        .values_list("pk", "provenance_chain")
        .iterator(chunk_size=BATCH)
    }
    frontier = set(targets)
    while frontier:
        derived = {pk for pk, refs in summaries.items() if pk not in targets and refs & frontier}
        targets |= derived
        frontier = derived
    return sorted(targets)


def memory_dsar_texts(*, member_id, entry_ids: Sequence[str]) -> Iterator[str]:
    """The content of these entries as it ever was: bodies, subjects and relationship
    notes of the entries and of every revision (what must not survive an erasure)."""
    for start in range(0, len(entry_ids), BATCH):
        chunk = list(entry_ids[start : start + BATCH])
        for body, subject, note in MemoryEntry.objects.filter(
            member_id=member_id, pk__in=chunk
        ).values_list("body", "subject", "relationship_note"):
            yield from (body, subject, note)
        for content in MemoryRevision.objects.filter(
            member_id=member_id, entry_id__in=chunk
        ).values_list("content", flat=True):
            yield from _content_texts(content)


def _content_texts(content) -> Iterator[str]:
    if not isinstance(content, dict):
        return
    yield content.get("body") or ""
    yield content.get("subject") or ""
    multi_actor = content.get("multi_actor") or {}
    if isinstance(multi_actor, dict):
        yield multi_actor.get("relationship_note") or ""


def memory_dsar_linked_turn_ids(*, member_id, entry_ids: Sequence[str]) -> list[str]:
    """Conversation turns these entries (or any of their revisions) cite as provenance."""
    turn_ids: set[str] = set()
    for start in range(0, len(entry_ids), BATCH):
        chunk = list(entry_ids[start : start + BATCH])
        chains = list(
            MemoryEntry.objects.filter(member_id=member_id, pk__in=chunk).values_list(
                "provenance_chain", flat=True
            )
        )
        chains += [
            (content or {}).get("provenance_chain") or []
            for content in MemoryRevision.objects.filter(
                member_id=member_id, entry_id__in=chunk
            ).values_list("content", flat=True)
        ]
        for chain in chains:
            for link in chain or ():
                if link.get("kind") == ProvenanceKind.SESSION_TURN and link.get("ref"):
                    turn_ids.add(str(link["ref"]))
    known = set()
    for start in range(0, len(sorted(turn_ids)), BATCH):
        chunk = sorted(turn_ids)[start : start + BATCH]
        valid = [t for t in chunk if _is_uuid(t)]
        known |= {
            str(pk)
            for pk in ConversationTurn.objects.filter(
                member_id=member_id, pk__in=valid
            ).values_list("pk", flat=True)
        }
    return sorted(known)


def _revision_key(content) -> str:
    content = content if isinstance(content, dict) else {}
    multi_actor = content.get("multi_actor") or {}
    return conflicts.conflict_key(
        category=content.get("category") or "",
        actor_handle=multi_actor.get("actor_handle") if isinstance(multi_actor, dict) else "",
        subject=content.get("subject"),
    )


def memory_superseded_wordings(*, member_id, entry_ids: Sequence[str]) -> list[str]:
    """The earlier wordings of these facts, to a fixpoint: every superseded entry of the
    member that one of them (or an earlier wording found) superseded, not among them.

    The supersede link: the write that states a newer wording (a conflict won, an edit,
    an accepted correction) supersedes, in the same transaction and at the same instant,
    the live entries sharing the newer one's conflict key. So X was superseded by H when,
    at the instant of X's `superseded` revision, H's latest revision was live and read
    under X's conflict key (H's key then, not now: a later edit may have moved it)."""
    superseded: dict[str, tuple[str, object, object]] = {}
    for pk, key, tenant, when in (
        MemoryEntry.objects.filter(member_id=member_id, lifecycle=Lifecycle.SUPERSEDED)
        .annotate(
            superseded_at=Max(
                "revisions__created_at",
                filter=Q(revisions__action=EntryAuditAction.SUPERSEDED),
            )
        )
        .values_list("pk", "conflict_key", "tenant_id", "superseded_at")
    ):
        if when is not None:
            superseded[str(pk)] = (key, tenant, when)
    given = {str(i) for i in entry_ids}
    found: set[str] = set()
    frontier = set(given)
    while frontier and superseded:
        tenants = dict(
            MemoryEntry.objects.filter(member_id=member_id, pk__in=sorted(frontier)).values_list(
                "pk", "tenant_id"
            )
        )
        # Each newer entry's revisions, oldest first: (instant, key, live).
        timelines: dict = {pk: [] for pk in tenants}
        for entry_id, created_at, content in (
            MemoryRevision.objects.filter(member_id=member_id, entry_id__in=list(tenants))
            .order_by("entry_id", "created_at", "number")
            .values_list("entry_id", "created_at", "content")
        ):
            lifecycle = (content or {}).get("lifecycle") if isinstance(content, dict) else None
            live = lifecycle in (Lifecycle.ACTIVE, Lifecycle.PAUSED)
            # Stored keys are the member's keyed tokens: the revision's key is compared as one.
            key = conflict_token_read(member_id, _revision_key(content))
            timelines[entry_id].append((created_at, key, live))
        added = set()
        for pk, (key, tenant, when) in superseded.items():
            if pk in found or pk in given:
                continue
            for newer, timeline in timelines.items():
                then = [state for state in timeline if state[0] <= when]
                if tenants[newer] == tenant and then and then[-1][1:] == (key, True):
                    added.add(pk)
                    break
        found |= added
        frontier = added
    return sorted(found)


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


# --- Soft-delete holds -----------------------------------------------------------------


@transaction.atomic
def memory_hold_place(
    *, member_id, entry_ids: Sequence[str], request_id, release_after: datetime, actor: Actor
) -> int:
    """Hide these entries (from recall and the member's lists) until released or purged.
    Idempotent: entries already held (by this or another request) keep their hold."""
    now = timezone.now()
    placed = 0
    for start in range(0, len(entry_ids), BATCH):
        chunk = [str(i) for i in entry_ids[start : start + BATCH]]
        held = {
            str(i)
            for i in MemoryDeletionHold.objects.filter(
                member_id=member_id, entry_id__in=chunk
            ).values_list("entry_id", flat=True)
        }
        present = MemoryEntry.objects.filter(member_id=member_id, pk__in=chunk).values_list(
            "pk", flat=True
        )
        new = [pk for pk in present if str(pk) not in held]
        MemoryDeletionHold.objects.bulk_create(
            [
                MemoryDeletionHold(
                    entry_id=pk,
                    member_id=member_id,
                    request_id=request_id,
                    placed_at=now,
                    release_after=release_after,
                )
                for pk in new
            ]
        )
        placed += len(new)
    audit_event_append(
        action=AuditAction.MEMORY_ENTRIES_HELD,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member_id,
        payload={"dsar_request_id": str(request_id), "held_count": placed},
    )
    return placed


@transaction.atomic
def memory_hold_release(*, member_id, request_id, actor: Actor) -> int:
    """Lift a request's holds: its entries are back exactly as they were."""
    released, _ = MemoryDeletionHold.objects.filter(
        member_id=member_id, request_id=request_id
    ).delete()
    audit_event_append(
        action=AuditAction.MEMORY_ENTRIES_RELEASED,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member_id,
        payload={"dsar_request_id": str(request_id), "released_count": released},
    )
    return released


def memory_held_entry_ids(*, member_id, request_id) -> list[str]:
    return _ids(
        MemoryDeletionHold.objects.filter(member_id=member_id, request_id=request_id).values_list(
            "entry_id", flat=True
        )
    )


# --- Erasure of derived stores ---------------------------------------------------------


def memory_turns_purge(*, member_id, turn_ids: Sequence[str], reason: str) -> int:
    """Erase conversation turns (the turn log's sanctioned purge path)."""
    ids = _ids(turn_ids)
    with transaction.atomic():
        purged = 0
        with purge_bypass(ConversationTurn):
            for start in range(0, len(ids), BATCH):
                count, _ = ConversationTurn.objects.filter(
                    member_id=member_id, pk__in=ids[start : start + BATCH]
                ).delete()
                purged += count
        audit_event_append(
            action=AuditAction.MEMORY_TURNS_PURGED,
            policy_id=POLICY_ID,
            actor=Actor.system(reason),
            severity=Severity.WARNING,
            target_member_id=member_id,
            payload={"purged_count": purged, "reason": reason},
        )
    return purged


def memory_recall_records_scrub(*, member_id, entry_ids: Sequence[str], reason: str) -> int:
    """Drop these entries from the member's recall records: their ids and the rationales
    they surfaced with (which quote matched words)."""
    doomed = set(_ids(entry_ids))
    scrubbed = 0
    with transaction.atomic():
        for record in (
            RecallRecord.objects.select_for_update().filter(member_id=member_id).order_by("pk")
        ):
            returned = [i for i in record.returned_ids if str(i) not in doomed]
            rationales = {k: v for k, v in record.rationales.items() if str(k) not in doomed}
            if returned != record.returned_ids or rationales != record.rationales:
                record.returned_ids, record.rationales = returned, rationales
                record.save(update_fields=["returned_ids", "rationales"])
                scrubbed += 1
        audit_event_append(
            action=AuditAction.MEMORY_RECALLS_SCRUBBED,
            policy_id=POLICY_ID,
            actor=Actor.system(reason),
            target_member_id=member_id,
            payload={"scrubbed_count": scrubbed, "reason": reason},
        )
    return scrubbed


# --- Reads for exports and access reports ----------------------------------------------


def memory_export_entry_page(
    *, member_id, scope_kinds: Sequence[str], after_id: str | None, limit: int
) -> list[MemoryEntry]:
    """One page of the member's entries in these scope kinds, by id (keyset pagination:
    an export of any size reads a bounded page at a time)."""
    entries = MemoryEntry.objects.filter(member_id=member_id, scope_kind__in=list(scope_kinds))
    if after_id is not None:
        entries = entries.filter(pk__gt=after_id)
    # Term statistics are derived ranking data (stems and counts), not the member's words.
    return list(entries.defer("term_stats").order_by("pk")[:limit])


def memory_export_revisions(*, member_id, entry_ids: Sequence[str]) -> QuerySet[MemoryRevision]:
    return MemoryRevision.objects.filter(
        member_id=member_id, entry_id__in=list(entry_ids)
    ).order_by("entry_id", "number")


def memory_turn_page(*, member_id, after: tuple[str, int] | None, limit: int) -> list:
    turns = ConversationTurn.objects.filter(member_id=member_id)
    if after is not None:
        session, sequence = after
        turns = turns.filter(
            Q(session_id__gt=session) | Q(session_id=session, sequence__gt=sequence)
        )
    return list(turns.order_by("session_id", "sequence")[:limit])


def memory_off_the_record_states(*, member_id) -> QuerySet[OffTheRecordSession]:
    return OffTheRecordSession.objects.filter(member_id=member_id).order_by("session_id")


def memory_entry_counts(*, member_id) -> list[dict]:
    """How much Iris holds on the member: counts by scope kind, category and lifecycle."""
    return list(
        MemoryEntry.objects.filter(member_id=member_id)
        .values("scope_kind", "category", "lifecycle")
        .annotate(count=Count("pk"))
        .order_by("scope_kind", "category", "lifecycle")
    )


def memory_store_counts(*, member_id) -> dict[str, int]:
    return {
        "entries": MemoryEntry.objects.filter(member_id=member_id).count(),
        "revisions": MemoryRevision.objects.filter(member_id=member_id).count(),
        "conversation_turns": ConversationTurn.objects.filter(member_id=member_id).count(),
        "recall_records": RecallRecord.objects.filter(member_id=member_id).count(),
        "notices": MemoryNotice.objects.filter(member_id=member_id).count(),
    }


# --- Reads for the erasure's content stores -------------------------------------------


def memory_turn_texts(*, member_id) -> Iterator[tuple[str, str, str]]:
    """The member's turns as (id, session id, text)."""
    yield from (
        (str(pk), session_id, text)
        for pk, session_id, text in ConversationTurn.objects.filter(member_id=member_id)
        .values_list("pk", "session_id", "text")
        .iterator(chunk_size=2000)
    )
