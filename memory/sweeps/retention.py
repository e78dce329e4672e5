"""The retention sweep and compaction: each scope kind's envelope applied to stored memory.

What the sweep does for each expiry action of `memory.policy.retention.retention_envelope_for_kind`:

- summarize (session, scene, pose): raw memory past the raw retention is folded into a
  `summarized-from-session` entry whose provenance names every piece it covers, then the
  raw memory is retired: expired conversation turns are purged (only the summary and its
  provenance ids live on), expired raw entries are tombstoned. Summaries past the summary
  retention are tombstoned. Only active entries are summarized: a paused entry stays out
  of recall, a draft was never confirmed and a superseded one is outdated, so their text
  is retired without being copied anywhere.
- delete (notebook): bound to the notebook's lifetime (`memory.forgetting.notebooks`). A
  deleted notebook's memory is erased at once; a closed one's is erased here, by the
  sweep's `notebooks_erase_due` step, once `NOTEBOOK_CLOSE_GRACE` has passed since the
  close (the notebook is then deleted). An open notebook's memory has no age limit.
- review (profile, operator-copilot, tenant, crisis): a human decides, so the sweep never
  deletes. Profile memory is durable (no age limit) and is left alone. Past the window,
  each entry gets one open `RetentionReview` (and a `memory.retention.review_due` audit
  event, ids only); the console's review page lists them. Nothing else changes: the entry
  stays recallable until an operator decides (`retention_review_decide`): keep (due again
  one window after the decision), summarize (a summary through the write path, then the
  raw entry erased through `memory_erase`) or delete (`memory_erase`).

Ages: turns count from `created_at`; entries from `updated_at`, so a memory the member
restated (edited) is fresh again, while being recalled, paused or resumed does not extend
its life.

The sweep also re-applies the consent cascade to any sensitive entry whose category
consent is no longer in force, and to sensitive interactions once `multi-actor-sensitive`
is not: the `consent_ended` signal fires after commit and is not retried, so a crash
between the two must not leave the memory behind.

The change events surfaces are told (`memory.changes`) are kept only as long as
notification needs them: acknowledged ones for 30 days, any for 90 (`change_events_expire`).

Every step runs in its own short transaction and re-reads under a lock, so the sweep is
idempotent and safe to run twice, or concurrently with itself.
"""

import uuid
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from consent.enums import category_consent_type
from consent.selectors import consent_active
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import audit_event_append
from iris_site.services import member_lock
from memory.changes import change_events_expire, change_events_write
from memory.entities.derive import entry_decay_at
from memory.entities.services import entities_archive_idle, relationships_decay_due
from memory.enums import (
    SENSITIVE_CATEGORIES,
    ChangeType,
    ExpiryAction,
    Lifecycle,
    Origin,
    ScopeKind,
)
from memory.forgetting.dsar import memory_recall_records_scrub
from memory.forgetting.erasure import memory_erase
from memory.forgetting.notebooks import notebooks_erase_due
from memory.forgetting.services import (
    entry_forget,
    memory_consent_cascade,
)
from memory.models import ConversationTurn, MemoryEntry, MemoryRelationship, RecallRecord
from memory.policy.retention import retention_envelope_for_kind
from memory.sweeps.auto_forget import member_auto_forget
from memory.sweeps.base import MULTI_ACTOR_SENSITIVE, POLICY_ID, RETENTION_ACTOR, kinds_with
from memory.sweeps.compaction import (
    Summarizer,
    conversation_turns_compact,
    extractive_summarizer,
    memory_entries_compact,
    raw_entries_expired,
)
from memory.sweeps.reviews import retention_reviews_flag


@dataclass(slots=True)
class SweepReport:
    turn_sessions_compacted: int = 0
    turns_purged: int = 0
    entry_groups_compacted: int = 0
    raw_entries_tombstoned: int = 0
    summaries_created: int = 0
    summaries_tombstoned: int = 0
    reviews_flagged: int = 0
    consent_cascaded: int = 0
    notebooks_erased: int = 0  # closed notebooks past their grace, erased and deleted
    change_events_expired: int = 0  # change events notification no longer needs
    recipients_told_late: int = 0  # surfaces a recall racing an erasure left untold

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    @property
    def changed(self) -> bool:
        return any(self.as_dict().values())


# --- Sweep steps ------------------------------------------------------------------------------


def memory_consent_reconcile(*, now: datetime) -> int:
    """Re-run the consent cascade for sensitive memory whose category consent lapsed, and
    for sensitive interactions with someone once `multi-actor-sensitive` has."""
    held: dict[uuid.UUID, set[str]] = defaultdict(set)
    for member_id, category in (
        MemoryEntry.objects.filter(category__in=SENSITIVE_CATEGORIES)
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .values_list("member_id", "category")
        .distinct()
    ):
        held[member_id].add(category)
    held_interactions = set(
        MemoryEntry.objects.filter(sensitive_interaction=True)
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .values_list("member_id", flat=True)
        .distinct()
    )
    cascaded = 0
    for member_id in sorted(held.keys() | held_interactions, key=str):
        active = consent_active(member_id=member_id, now=now).types
        lapsed = [
            category_consent_type(category)
            for category in sorted(held[member_id])
            if category_consent_type(category) not in active
        ]
        if member_id in held_interactions and MULTI_ACTOR_SENSITIVE not in active:
            lapsed.append(MULTI_ACTOR_SENSITIVE)
        for consent_type in lapsed:
            cascaded += len(memory_consent_cascade(member_id=member_id, consent_type=consent_type))
    return cascaded


def _expire_summaries(now: datetime) -> int:
    tombstoned = 0
    for kind in kinds_with(ExpiryAction.SUMMARIZE):
        cutoff = now - timedelta(days=retention_envelope_for_kind(kind).summary_days)
        due = MemoryEntry.objects.filter(
            scope_kind=kind, origin=Origin.SUMMARIZED_FROM_SESSION, updated_at__lt=cutoff
        ).exclude(lifecycle=Lifecycle.TOMBSTONED)
        for entry_id, member_id in due.order_by("updated_at", "id").values_list("pk", "member"):
            with transaction.atomic():
                member_lock(member_id=member_id)  # before the row lock, as every writer
                # No joined revision under the lock: a waiter would keep the stale one.
                entry = due.select_for_update().filter(pk=entry_id).first()
                if entry is not None:  # gone or changed since the listing
                    entry_forget(entry, actor=RETENTION_ACTOR, now=now)
                    tombstoned += 1
    return tombstoned


DECAY_REASON = "decay"


def memory_decay_due(*, now: datetime) -> dict[str, int]:
    """Deletion paths D3 and D4 at `decay_at` (set on every revision from the envelope or
    the member's auto-forget choice, `memory.entities.policy.decay_days`): an entry whose
    time has come is anonymised in place through `memory_erase` (its text gone from every
    store, a tombstone of ids and times kept), unless held for a pending data-rights
    deletion; a relationship whose time has come is archived (kept, its interval closed
    at `decay_at`, no longer recalled). Entities nothing live is about any more are
    archived (`memory.entities.services.entities_archive_idle`). Runs after compaction, so a
    summarize envelope has folded what it keeps first. Audited once, with counts."""
    erased = 0
    due = (
        MemoryEntry.objects.filter(decay_at__lte=now, deletion_hold__isnull=True)
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .order_by("member_id", "pk")
        .only("pk", "member_id", "scope_kind", "origin", "updated_at", "decay_at")
    )
    by_member: dict = defaultdict(list)
    for entry in due:
        # The member may have lengthened their choice since the entry was written: its
        # time is what their choice says now.
        current = entry_decay_at(entry)
        if current is not None and current <= now:
            by_member[entry.member_id].append(entry.pk)
        else:
            MemoryEntry.objects.filter(pk=entry.pk).update(decay_at=current)
            MemoryRelationship.objects.filter(source_entry_id=entry.pk).update(decay_at=current)
    for member_id, ids in by_member.items():
        with transaction.atomic():
            report = memory_erase(
                member_id=member_id,
                entry_ids=ids,
                actor=RETENTION_ACTOR,
                reason=DECAY_REASON,
                now=now,
            )
            erased += len(report.tombstoned_ids)
    counts = {
        "entries_anonymized": erased,
        "relationships_archived": relationships_decay_due(now=now),
        "entities_archived": entities_archive_idle(now=now, actor=RETENTION_ACTOR),
    }
    if any(counts.values()):
        audit_event_append(
            action=AuditAction.MEMORY_RETENTION_DECAYED,
            policy_id=POLICY_ID,
            actor=RETENTION_ACTOR,
            payload={**counts, "member_count": len(by_member)},
            occurred_at=now,
        )
    return counts


# A recall races an erasure for the time between its read and its commit: seconds.
RECIPIENTS_RACE_WINDOW = timedelta(hours=2)


def recall_records_reconcile(*, now: datetime) -> int:
    """A recall that read an entry just before an erasure committed records it after the
    erasure scrubbed the records (a recall takes no member lock): its surface was given
    a forgotten entry and not told, and its record names it. The sweep tells it now
    (`memory.forgotten`) and scrubs the record. Only recent records: the race is seconds
    wide. Returns how many surfaces were told."""
    received: dict = defaultdict(lambda: defaultdict(set))
    for member_id, consumer, returned in (
        RecallRecord.objects.filter(created_at__gte=now - RECIPIENTS_RACE_WINDOW)
        .exclude(returned_ids=[])
        .values_list("member_id", "consumer", "returned_ids")
    ):
        received[member_id][consumer].update(str(i) for i in returned)
    told = 0
    for member_id, by_consumer in received.items():
        ids = set().union(*by_consumer.values())
        live = {
            str(pk)
            for pk in MemoryEntry.objects.filter(member_id=member_id, pk__in=sorted(ids))
            .exclude(lifecycle=Lifecycle.TOMBSTONED)
            .values_list("pk", flat=True)
        }
        gone = ids - live
        if not gone:
            continue
        with transaction.atomic():
            told += change_events_write(
                member_id=member_id,
                type=ChangeType.MEMORY_FORGOTTEN,
                received={c: r & gone for c, r in by_consumer.items() if r & gone},
                now=now,
                revisions={},
            )
            memory_recall_records_scrub(
                member_id=member_id, entry_ids=sorted(gone), reason="recipients-reconcile"
            )
    return told


def retention_sweep(
    *, now: datetime | None = None, summarizer: Summarizer = extractive_summarizer
) -> SweepReport:
    """Apply every scope kind's retention envelope once. Idempotent: a second run with
    the same `now` finds nothing left to do and writes nothing."""
    now = now or timezone.now()
    report = SweepReport()
    report.consent_cascaded = memory_consent_reconcile(now=now)
    # The members' own shorter retention ("Forget automatically after…") first, so
    # nothing they chose to forget is carried into a summary; audited apart.
    member_auto_forget(now=now)
    # Closed notebooks past their grace, before compaction folds anything of theirs.
    report.notebooks_erased = notebooks_erase_due(now=now)
    report.summaries_tombstoned = _expire_summaries(now)

    session_cutoff = now - timedelta(days=retention_envelope_for_kind(ScopeKind.SESSION).raw_days)
    sessions = (
        ConversationTurn.objects.filter(created_at__lt=session_cutoff)
        .values_list("member_id", "session_id")
        .distinct()
        .order_by("member_id", "session_id")
    )
    for member_id, session_id in sessions:
        result = conversation_turns_compact(
            member_id=member_id, session_id=session_id, now=now, summarizer=summarizer
        )
        if result.retired_count:
            report.turn_sessions_compacted += 1
            report.turns_purged += result.retired_count
            report.summaries_created += result.summary is not None

    for kind in kinds_with(ExpiryAction.SUMMARIZE):
        cutoff = now - timedelta(days=retention_envelope_for_kind(kind).raw_days)
        groups = (
            raw_entries_expired(kind, cutoff)
            .values_list("member_id", "scope_key", "category", "actor_handle")
            .distinct()
            .order_by("member_id", "scope_key", "category", "actor_handle")
        )
        for member_id, scope_key, category, actor_handle in groups:
            result = memory_entries_compact(
                member_id=member_id,
                scope_key=scope_key,
                category=category,
                actor_handle=actor_handle,
                now=now,
                summarizer=summarizer,
            )
            if result.retired_count:
                report.entry_groups_compacted += 1
                report.raw_entries_tombstoned += result.retired_count
                report.summaries_created += result.summary is not None

    # D3/D4 at `decay_at`, audited apart (`memory.retention.decayed`).
    memory_decay_due(now=now)
    report.reviews_flagged = retention_reviews_flag(now)
    report.change_events_expired = change_events_expire(now=now)
    report.recipients_told_late = recall_records_reconcile(now=now)
    if report.changed:
        audit_event_append(
            action=AuditAction.MEMORY_RETENTION_SWEPT,
            policy_id=POLICY_ID,
            actor=RETENTION_ACTOR,
            severity=Severity.INFO,
            payload=report.as_dict(),
            occurred_at=now,
        )
    return report
