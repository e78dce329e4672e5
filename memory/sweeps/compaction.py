"""Compaction: raw session, scene and pose memory past its raw retention folded into a
`summarized-from-session` entry whose provenance names every piece it covers, then the raw
memory retired (expired turns purged, expired raw entries tombstoned through the erasure
service). The default summarizer is extractive: no model, no text that was not said.
"""

import hashlib
import re
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from pydantic import ValidationError

from iris_site.appendonly import purge_bypass
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import audit_event_append
from iris_site.errors import (
    DomainError,
)
from iris_site.models import User
from iris_site.services import member_lock
from memory.contracts import MAX_BODY_LENGTH, MemoryWriteRequest
from memory.enums import (
    Lifecycle,
    MemoryCategory,
    Origin,
    ProvenanceKind,
    ScopeKind,
)
from memory.forgetting.fingerprints import forgotten_texts_flag
from memory.forgetting.services import entry_forget
from memory.models import ConversationTurn, MemoryEntry
from memory.policy.retention import retention_envelope_for_kind
from memory.recall.rankers import analyze
from memory.selectors import memory_off_the_record, scope_of
from memory.services import memory_remember
from memory.sweeps.base import POLICY_ID, RETENTION_ACTOR

SUMMARY_SENTENCES = 8

# A summary folded from entries names each source entry with the provenance kind that
# says what the source was: a session fact, a scene event, a pose sample.
ENTRY_LINK_KIND = {
    ScopeKind.SESSION: ProvenanceKind.SESSION_SUMMARY,
    ScopeKind.SCENE: ProvenanceKind.SCENE_EVENT,
    ScopeKind.POSE: ProvenanceKind.POSE_SAMPLE,
}

Summarizer = Callable[[list[str]], str]


# --- The default summarizer ---------------------------------------------------------------

_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|\n+")


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip() + "…"


def extractive_summarizer(
    texts: list[str], *, max_sentences: int = SUMMARY_SENTENCES, max_chars: int = MAX_BODY_LENGTH
) -> str:
    """Deterministic extractive summary: the sentences whose terms recur most, in their
    original order, at most `max_sentences` and `max_chars`.

    A sentence scores the mean frequency (over all the texts) of its distinct stemmed
    terms; ties go to the earlier sentence. A repeated sentence is kept once (repeating
    it still raises its terms' weight). Returns "" when no sentence has a content word.
    """
    sentences: list[tuple[str, frozenset[str]]] = []
    frequency: Counter[str] = Counter()
    seen: set[str] = set()
    for text in texts:
        for piece in _SENTENCE_END_RE.split(text):
            sentence = " ".join(piece.split())
            stems = analyze(sentence)
            frequency.update(stems)
            if not stems or sentence.casefold() in seen:
                continue
            seen.add(sentence.casefold())
            sentences.append((sentence, frozenset(stems)))
    if not sentences:
        return ""
    ranked = sorted(
        range(len(sentences)),
        key=lambda i: (
            -sum(frequency[s] for s in sentences[i][1]) / len(sentences[i][1]),
            i,
        ),
    )
    chosen: list[int] = []
    length = 0
    for index in ranked[:max_sentences]:
        added = len(sentences[index][0]) + (1 if chosen else 0)
        if length + added <= max_chars:
            chosen.append(index)
            length += added
    if not chosen:  # the best sentence alone is too long: keep its beginning
        return _clip(sentences[ranked[0]][0], max_chars)
    return " ".join(sentences[i][0] for i in sorted(chosen))


# --- Results --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """What one compaction did. `outcome` is `summarized`, or why no summary was written
    (`off-the-record`, `nothing-to-summarize`, a refusal code such as `scope-suppressed`)."""

    summary: MemoryEntry | None
    covered_count: int
    retired_count: int
    outcome: str


NOTHING_EXPIRED = CompactionResult(None, 0, 0, "nothing-expired")


# --- Compaction -------------------------------------------------------------------------------


def ids_digest(ids: Iterable) -> str:
    return hashlib.sha256("\n".join(sorted(str(i) for i in ids)).encode()).hexdigest()[:10]


def _without_forgotten(member_id, texts: list[str]) -> list[str]:
    """The texts without their sentences that restate a fact the member forgot, so the
    summary is written without it. A forgotten fact spread over several sentences is
    still caught by the write path's own check, which then refuses the whole summary."""
    sentences = [[p for p in _SENTENCE_END_RE.split(text) if p.strip()] for text in texts]
    flat = [p for ps in sentences for p in ps]
    forgotten = {
        i for i, flag in enumerate(forgotten_texts_flag(member_id=member_id, texts=flat)) if flag
    }
    if not forgotten:
        return texts
    kept, i = [], 0
    for ps in sentences:
        # A newline is a sentence boundary to the summarizer, as the split ones were.
        if text := "\n".join(p for j, p in enumerate(ps, start=i) if j not in forgotten):
            kept.append(text)
        i += len(ps)
    return kept


def summary_write(
    *,
    member: User,
    scope: dict,
    category: str,
    subject: str,
    texts: list[str],
    provenance: list[dict],
    summarizer: Summarizer,
    now: datetime,
    multi_actor: dict | None = None,
) -> tuple[MemoryEntry | None, str]:
    """Remember a summary through the write path (off-the-record, scope policy and storage
    gate all apply); a refusal is an outcome, not an error: the raw memory goes anyway."""
    if memory_off_the_record(member_id=member.pk, session_id=scope.get("session_id", "")):
        return None, "off-the-record"  # never read, let alone copy, off-the-record text
    texts = _without_forgotten(member.pk, texts)
    body = _clip(summarizer(texts), MAX_BODY_LENGTH) if texts else ""
    if not body:
        return None, "nothing-to-summarize"
    try:
        write = MemoryWriteRequest(
            scope=scope,
            category=category,
            subject=subject,
            body=body,
            origin=Origin.SUMMARIZED_FROM_SESSION,
            provenance=provenance,
            multi_actor=multi_actor,
        )
        result = memory_remember(
            member=member,
            write=write,
            actor=RETENTION_ACTOR,
            session_id=scope.get("session_id", ""),
            now=now,
        )
    except ValidationError:
        return None, "invalid-summary"
    except DomainError as refusal:
        return None, refusal.code
    if not result.created:
        return None, result.conflict_rule or "conflict"
    return result.entry, "summarized"


def conversation_turns_compact(
    *,
    member_id: uuid.UUID,
    session_id: str,
    now: datetime,
    summarizer: Summarizer = extractive_summarizer,
) -> CompactionResult:
    """Fold the session's turns older than the raw retention into one summary entry and
    purge them.

    The summary (session scope, category `other`, origin `summarized-from-session`) has
    one `session-turn` provenance link per turn covered, assistant turns included; its
    body is drawn from the member's own turns only, since the assistant's words are not
    memory about the member. When no summary may be written (off the record, consent
    missing, nothing worth keeping) the turns are purged all the same: raw turns never
    outlive their retention.
    """
    cutoff = now - timedelta(days=retention_envelope_for_kind(ScopeKind.SESSION).raw_days)
    with transaction.atomic():
        # The member lock serializes with turn appends and with a concurrent sweep.
        member = User.objects.select_for_update().get(pk=member_id)
        turns = list(
            # Turns held for a pending deletion are the deletion's: neither summarized
            # nor purged here (the erasure takes them, or a cancel gives them back).
            ConversationTurn.objects.filter(
                member_id=member_id,
                session_id=session_id,
                created_at__lt=cutoff,
                deletion_hold__isnull=True,
            ).order_by("sequence")
        )
        if not turns:
            return NOTHING_EXPIRED
        summary, outcome = summary_write(
            member=member,
            scope={"kind": ScopeKind.SESSION, "user_id": str(member_id), "session_id": session_id},
            category=MemoryCategory.OTHER,
            subject=f"Summary of session {session_id} #{ids_digest(t.pk for t in turns)}",
            texts=[t.text for t in turns if t.speaker == ConversationTurn.Speaker.MEMBER],
            provenance=[
                {"kind": ProvenanceKind.SESSION_TURN, "ref": str(t.pk), "captured_at": t.created_at}
                for t in turns
            ],
            summarizer=summarizer,
            now=now,
        )
        with purge_bypass(ConversationTurn):
            purged, _ = ConversationTurn.objects.filter(
                member_id=member_id, pk__in=[t.pk for t in turns]
            ).delete()
        audit_event_append(
            action=AuditAction.MEMORY_TURNS_COMPACTED,
            policy_id=POLICY_ID,
            actor=RETENTION_ACTOR,
            target_member_id=member_id,
            payload={
                "summary_entry_id": str(summary.pk) if summary else None,
                "turn_count": len(turns),
                "purged_count": purged,
                "outcome": outcome,
            },
            occurred_at=now,
        )
    return CompactionResult(summary, len(turns), purged, outcome)


def raw_entries_expired(kind: str, cutoff: datetime):
    return (
        MemoryEntry.objects.filter(scope_kind=kind, updated_at__lt=cutoff)
        .exclude(origin=Origin.SUMMARIZED_FROM_SESSION)
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
    )


@transaction.atomic
def memory_entries_compact(
    *,
    member_id: uuid.UUID,
    scope_key: str,
    category: str,
    actor_handle: str,
    now: datetime,
    summarizer: Summarizer = extractive_summarizer,
) -> CompactionResult:
    """Fold one scope's raw entries of one category (and one mentioned person) that are past
    the raw retention into a summary of the same scope, category and person, then tombstone
    them.

    Keeping the category lets a consent cascade find the summary of sensitive entries;
    keeping the actor handle lets "forget all mentions of" reach it. The provenance names
    each summarized entry and carries over the links those entries had (turn ids, scene
    events), so the summary expands back to its sources.
    """
    # The member lock before any row lock, in the order every writer and the erasure take
    # them (two orders would let a compaction and a forget deadlock).
    member_lock(member_id=member_id)
    entries = list(
        # No joined revision under the lock: a waiter would keep the stale one.
        MemoryEntry.objects.select_for_update()
        .filter(member_id=member_id, scope_key=scope_key, category=category)
        .filter(actor_handle=actor_handle)
        .exclude(origin=Origin.SUMMARIZED_FROM_SESSION)
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .order_by("updated_at", "id")
    )
    if not entries:
        return NOTHING_EXPIRED
    kind = entries[0].scope_kind
    cutoff = now - timedelta(days=retention_envelope_for_kind(kind).raw_days)
    entries = [e for e in entries if e.updated_at < cutoff]
    if not entries:
        return NOTHING_EXPIRED
    active = [e for e in entries if e.lifecycle == Lifecycle.ACTIVE]
    provenance: dict[tuple[str, str], dict] = {}
    for entry in active:
        link = {"kind": ENTRY_LINK_KIND[kind], "ref": str(entry.pk)}
        provenance[(link["kind"], link["ref"])] = {**link, "captured_at": entry.created_at}
        for carried in entry.provenance_chain:
            provenance.setdefault((carried["kind"], carried["ref"]), carried)
    multi_actor = None
    if actor_handle and active:
        multi_actor = {
            "actor_handle": actor_handle,
            "relationship_note": active[-1].relationship_note,
            "sensitive_interaction": any(e.sensitive_interaction for e in active),
        }
    summary, outcome = summary_write(
        member=User.objects.get(pk=member_id),
        scope=scope_of(entries[0]),
        category=category,
        subject=f"Summary of {kind} memory #{ids_digest(e.pk for e in active)}",
        texts=[e.body for e in active],
        provenance=list(provenance.values()),
        summarizer=summarizer,
        now=now,
        multi_actor=multi_actor,
    )
    for entry in entries:
        entry_forget(entry, actor=RETENTION_ACTOR, now=now)
    audit_event_append(
        action=AuditAction.MEMORY_RETENTION_COMPACTED,
        policy_id=POLICY_ID,
        actor=RETENTION_ACTOR,
        target_member_id=member_id,
        payload={
            "summary_entry_id": str(summary.pk) if summary else None,
            "scope_kind": kind,
            "category": category,
            "summarized_count": len(active),
            "tombstoned_count": len(entries),
            "outcome": outcome,
        },
        occurred_at=now,
    )
    return CompactionResult(summary, len(active), len(entries), outcome)
