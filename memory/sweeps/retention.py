"""The retention sweep and compaction: each scope kind's envelope applied to stored memory.

What the sweep does for each expiry action of `memory.policy.retention_envelope_for_kind`:

- summarize (session, scene, pose): raw memory past the raw retention is folded into a
  `summarized-from-session` entry whose provenance names every piece it covers, then the
  raw memory is retired: expired conversation turns are purged (only the summary and its
  provenance ids live on), expired raw entries are tombstoned. Summaries past the summary
  retention are tombstoned. Only active entries are summarized: a paused entry stays out
  of recall, a draft was never confirmed and a superseded one is outdated, so their text
  is retired without being copied anywhere.
- delete (notebook): bound to the notebook's lifetime. Iris has no notebook model, so the
  sweep does nothing here; whoever deletes a notebook calls `memory_forget_notebook`.
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

Every step runs in its own short transaction and re-reads under a lock, so the sweep is
idempotent and safe to run twice, or concurrently with itself.
"""

import hashlib
import re
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from pydantic import ValidationError

from consent.enums import BaseConsentType, category_consent_type
from consent.selectors import consent_active
from iris_site.appendonly import purge_bypass
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.enums import OperatorRole
from iris_site.errors import (
    Conflict,
    DomainError,
    InvalidInput,
    NotFound,
    NotPermitted,
    PolicyRefusal,
)
from iris_site.models import User
from iris_site.selectors import operator_tenant_id
from iris_site.services import member_lock
from memory.contracts import MAX_BODY_LENGTH, MemoryWriteRequest
from memory.enums import (
    SENSITIVE_CATEGORIES,
    ExpiryAction,
    Lifecycle,
    MemoryCategory,
    Origin,
    ProvenanceKind,
    ScopeKind,
)
from memory.forgetting.erasure import memory_erase
from memory.forgetting.fingerprints import forgotten_texts_flag
from memory.models import ConversationTurn, MemoryEntry, MemoryRelationship, RetentionReview
from memory.policy import retention_envelope_for_kind
from memory.recall.rankers import analyze
from memory.selectors import memory_off_the_record, scope_of, tenant_operator_reach
from memory.services import (
    _tombstone,
    _tombstone_all,
    _tombstone_derived_summaries,
    memory_consent_cascade,
    memory_remember,
)

POLICY_ID = "iris-memory-retention-v1"
MULTI_ACTOR_SENSITIVE = BaseConsentType.MULTI_ACTOR_SENSITIVE.value
RETENTION_ACTOR = Actor.system("retention")
REVIEW_DUE_ACTION = "memory.retention.review_due"
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

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    @property
    def changed(self) -> bool:
        return any(self.as_dict().values())


# --- Compaction -------------------------------------------------------------------------------


def _digest(ids: Iterable) -> str:
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


def _write_summary(
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
            ConversationTurn.objects.filter(
                member_id=member_id, session_id=session_id, created_at__lt=cutoff
            ).order_by("sequence")
        )
        if not turns:
            return NOTHING_EXPIRED
        summary, outcome = _write_summary(
            member=member,
            scope={"kind": ScopeKind.SESSION, "user_id": str(member_id), "session_id": session_id},
            category=MemoryCategory.OTHER,
            subject=f"Summary of session {session_id} #{_digest(t.pk for t in turns)}",
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
            action="memory.turns.compacted",
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


def _raw_entries(kind: str, cutoff: datetime):
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
    summary, outcome = _write_summary(
        member=User.objects.get(pk=member_id),
        scope=scope_of(entries[0]),
        category=category,
        subject=f"Summary of {kind} memory #{_digest(e.pk for e in active)}",
        texts=[e.body for e in active],
        provenance=list(provenance.values()),
        summarizer=summarizer,
        now=now,
        multi_actor=multi_actor,
    )
    for entry in entries:
        _tombstone(entry, actor=RETENTION_ACTOR, now=now)
    audit_event_append(
        action="memory.retention.compacted",
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


# --- The notebook hook ------------------------------------------------------------------------


@transaction.atomic
def memory_forget_notebook(*, member: User, notebook_id: str, actor: Actor) -> list[uuid.UUID]:
    """A notebook was deleted: its memory (and summaries derived from it) goes with it.

    The notebook envelope's `delete` action; the caller is whatever owns notebooks.
    """
    entries = MemoryEntry.objects.filter(
        member=member, scope_kind=ScopeKind.NOTEBOOK, notebook_id=notebook_id
    )
    # No fingerprints: deleting a notebook is not asking Iris to forget its facts.
    ids = _tombstone_all(entries, actor=actor, reason="notebook-delete")
    ids += _tombstone_derived_summaries(member_id=member.pk, source_ids=ids, actor=actor)
    audit_event_append(
        action="memory.notebook.forgotten",
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=member.pk,
        payload={"tombstoned_count": len(ids), "entry_ids": sorted(str(i) for i in ids)[:1000]},
    )
    return ids


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


def _kinds_with(action: str) -> list[str]:
    return [k for k in ScopeKind.values if retention_envelope_for_kind(k).expiry_action == action]


def _expire_summaries(now: datetime) -> int:
    tombstoned = 0
    for kind in _kinds_with(ExpiryAction.SUMMARIZE):
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
                    _tombstone(entry, actor=RETENTION_ACTOR, now=now)
                    tombstoned += 1
    return tombstoned


def _flag_reviews(now: datetime) -> int:
    """One open `RetentionReview` per entry past its window (idempotent: an entry with an
    open review, or kept within the last window, is skipped)."""
    flagged = 0
    for kind in _kinds_with(ExpiryAction.REVIEW):
        envelope = retention_envelope_for_kind(kind)
        if envelope.raw_days is None:
            continue  # durable (profile): kept until the member or the account goes
        window = timedelta(days=envelope.raw_days)
        due = (
            MemoryEntry.objects.filter(
                scope_kind=kind,
                updated_at__lt=now - window,
                lifecycle__in=[Lifecycle.ACTIVE, Lifecycle.PAUSED],
            )
            .order_by("member_id", "updated_at", "id")
            .values_list("member_id", "pk", "category", "revision_id", "updated_at")
        )
        by_member: dict[uuid.UUID, list[tuple]] = defaultdict(list)
        for member_id, *rest in due:
            by_member[member_id].append(tuple(rest))
        for member_id, rows in by_member.items():
            with transaction.atomic():
                member_lock(member_id=member_id)
                reviews = RetentionReview.objects.filter(
                    member_id=member_id, entry_id__in=[row[0] for row in rows]
                )
                skip = set(
                    reviews.filter(state=RetentionReview.State.OPEN).values_list(
                        "entry_id", flat=True
                    )
                ) | set(
                    reviews.filter(
                        state=RetentionReview.State.KEPT, decided_at__gte=now - window
                    ).values_list("entry_id", flat=True)
                )
                for entry_id, category, revision_id, updated_at in rows:
                    if entry_id in skip:
                        continue
                    RetentionReview.objects.create(
                        member_id=member_id,
                        entry_id=entry_id,
                        due_at=updated_at + window,
                        flagged_at=now,
                    )
                    audit_event_append(
                        action=REVIEW_DUE_ACTION,
                        policy_id=POLICY_ID,
                        actor=RETENTION_ACTOR,
                        target_member_id=member_id,
                        payload={
                            "entry_id": str(entry_id),
                            "revision_id": str(revision_id),
                            "scope_kind": kind,
                            "category": category,
                            "retention_days": envelope.raw_days,
                        },
                        occurred_at=now,
                    )
                    flagged += 1
    return flagged


# --- Retention reviews: an operator decides -----------------------------------------------

# Who decides a review-due memory: admin (platform governance) and trust & safety (crisis
# memory is theirs to weigh). Support handles routine inspections, legal data-rights
# requests; neither decides what Iris keeps. Decisions are made on metadata (scope kind,
# category, dates): operators never read member memory outside a granted inspection.
REVIEWER_ROLES = frozenset({OperatorRole.ADMIN, OperatorRole.TRUST_AND_SAFETY})
REVIEW_REASON = "retention-review"


class ReviewDecision:
    KEEP = "keep"
    SUMMARIZE = "summarize"
    DELETE = "delete"
    CHOICES = (KEEP, SUMMARIZE, DELETE)


def retention_reviews_visible(*, operator: User):
    """The reviews an operator may see: all of them for a platform operator; for one bound
    to a tenant, those of its own tenant's memory (`tenant_operator_reach`): a member's
    consumer memory is not the tenant's to keep, summarise or delete."""
    reviews = RetentionReview.objects.select_related("entry", "member")
    tenant_id = operator_tenant_id(operator)
    if tenant_id is None:
        return reviews
    return reviews.filter(tenant_operator_reach(tenant_id, through="entry__"))


def retention_reviews_open(*, operator: User):
    return retention_reviews_visible(operator=operator).filter(state=RetentionReview.State.OPEN)


def _summarize_one(entry: MemoryEntry, *, now: datetime, summarizer: Summarizer):
    provenance = [
        {
            "kind": ProvenanceKind.SESSION_SUMMARY,
            "ref": str(entry.pk),
            "captured_at": entry.created_at,
        },
        *entry.provenance_chain,
    ]
    multi_actor = None
    if entry.actor_handle:
        multi_actor = {
            "actor_handle": entry.actor_handle,
            "relationship_note": entry.relationship_note,
            "sensitive_interaction": entry.sensitive_interaction,
        }
    return _write_summary(
        member=User.objects.get(pk=entry.member_id),
        scope=scope_of(entry),
        category=entry.category,
        subject=f"Summary of {entry.scope_kind} memory #{_digest([entry.pk])}",
        texts=[entry.body],
        provenance=provenance,
        summarizer=summarizer,
        now=now,
        multi_actor=multi_actor,
    )


@transaction.atomic
def retention_review_decide(
    *,
    review_id,
    decision: str,
    operator: User,
    now: datetime | None = None,
    summarizer: Summarizer = extractive_summarizer,
) -> RetentionReview:
    """An operator decides one open review: keep, summarize or delete.

    Refused unless the operator holds a reviewer role (403 `not-a-reviewer`); a review the
    operator may not see (another tenant's) is 404 to them (the caller looks it up through
    `retention_reviews_visible`, and this re-checks). A decided review is 409
    `review-decided`; a summary the write path refuses is 422 with its code (the entry is
    left as it is: keep or delete it instead). Audited with ids and labels only."""
    if decision not in ReviewDecision.CHOICES:
        raise InvalidInput(fields={"decision": [f"One of: {', '.join(ReviewDecision.CHOICES)}."]})
    profile = getattr(operator, "operator_profile", None)
    if profile is None or profile.role not in REVIEWER_ROLES:
        raise NotPermitted(
            "Only admin and trust & safety operators decide retention reviews.",
            code="not-a-reviewer",
        )
    found = retention_reviews_visible(operator=operator).filter(pk=review_id).first()
    if found is None:
        raise NotFound()
    now = now or timezone.now()
    member_lock(member_id=found.member_id)
    review = RetentionReview.objects.select_for_update().get(pk=found.pk)
    if review.state != RetentionReview.State.OPEN:
        raise Conflict("This review was already decided.", code="review-decided")
    entry = MemoryEntry.objects.select_for_update().get(pk=review.entry_id)
    actor = Actor.of(operator)
    if decision != ReviewDecision.DELETE and entry.lifecycle == Lifecycle.TOMBSTONED:
        raise Conflict("This memory was forgotten already.", code="tombstoned")
    summary = None
    if decision == ReviewDecision.KEEP:
        review.state = RetentionReview.State.KEPT
    elif decision == ReviewDecision.SUMMARIZE:
        summary, outcome = _summarize_one(entry, now=now, summarizer=summarizer)
        if summary is None:
            raise PolicyRefusal(
                f"No summary could be written ({outcome}); keep or delete the memory instead.",
                code=outcome,
            )
        memory_erase(
            member_id=entry.member_id,
            entry_ids=[entry.pk],
            actor=actor,
            reason=REVIEW_REASON,
            now=now,
        )
        review.state = RetentionReview.State.SUMMARIZED
        review.summary_entry_id = summary.pk
    else:
        memory_erase(
            member_id=entry.member_id,
            entry_ids=[entry.pk],
            actor=actor,
            reason=REVIEW_REASON,
            now=now,
        )
        review.state = RetentionReview.State.DELETED
    review.decided_by = operator.pk
    review.decided_at = now
    review.save(update_fields=["state", "decided_by", "decided_at", "summary_entry_id"])
    audit_event_append(
        action="memory.retention.review_decided",
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=review.member_id,
        target_tenant_id=entry.tenant_id,
        payload={
            "review_id": str(review.pk),
            "entry_id": str(entry.pk),
            "decision": decision,
            "state": review.state,
            "scope_kind": entry.scope_kind,
            "category": entry.category,
            "summary_entry_id": str(summary.pk) if summary else None,
        },
        occurred_at=now,
    )
    return review


def member_auto_forget(*, now: datetime) -> dict[str, int]:
    """The members' "Forget automatically after…" choices, as an override that can only
    shorten retention: each member's entries of a scope kind they chose, last changed
    before their cutoff, are erased through `memory_erase` (the one erasure path: text
    gone from every store, a tombstone of ids and times). Entries held for a pending
    data-rights deletion are that request's. Audited per member with counts by scope
    kind; returns the erased counts by scope kind (all members)."""
    # Imported here: member settings are read by the layers above recall, and the sweep
    # is the only writer that needs them.
    from memory.controls import member_auto_forget_settings

    totals: Counter[str] = Counter()
    for member_id, chosen in member_auto_forget_settings():
        with transaction.atomic():
            member_lock(member_id=member_id)
            totals.update(member_auto_forget_apply(member_id=member_id, chosen=chosen, now=now))
    return dict(totals)


def member_auto_forget_apply(*, member_id, chosen, now: datetime) -> dict[str, int]:
    """One member's auto-forget choices (`chosen`, their `MemorySettings`) applied now,
    under the member lock the caller holds: by the sweep, and when the member makes a
    choice, so what is already older than it is never recalled again."""
    from memory.controls import AUTO_FORGET_KINDS, AUTO_FORGET_REASON

    erased: dict[str, int] = {}
    for kind in AUTO_FORGET_KINDS:
        cutoff = chosen.auto_forget_cutoff(kind, now)
        if cutoff is None:
            continue
        due = (
            MemoryEntry.objects.filter(
                member_id=member_id,
                scope_kind=kind,
                updated_at__lt=cutoff,
                deletion_hold__isnull=True,
            )
            .filter(~Q(lifecycle=Lifecycle.TOMBSTONED) | Q(erased_digest=""))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        ids = list(due)
        if not ids:
            continue
        report = memory_erase(
            member_id=member_id,
            entry_ids=ids,
            actor=RETENTION_ACTOR,
            reason=AUTO_FORGET_REASON,
            now=now,
        )
        erased[kind] = len(report.entry_ids)
    if erased:
        audit_event_append(
            action="memory.retention.member_auto_forget",
            policy_id=POLICY_ID,
            actor=RETENTION_ACTOR,
            target_member_id=member_id,
            payload={
                "erased": [
                    {
                        "scope_kind": kind,
                        "months": chosen.auto_forget_months[kind],
                        "erased_count": n,
                    }
                    for kind, n in erased.items()
                ],
                "erased_count": sum(erased.values()),
            },
            occurred_at=now,
        )
    return erased


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
    from memory.entities.services import (
        entities_archive_idle,
        entry_decay_at,
        relationships_decay_due,
    )

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
            action="memory.retention.decayed",
            policy_id=POLICY_ID,
            actor=RETENTION_ACTOR,
            payload={**counts, "member_count": len(by_member)},
            occurred_at=now,
        )
    return counts


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

    for kind in _kinds_with(ExpiryAction.SUMMARIZE):
        cutoff = now - timedelta(days=retention_envelope_for_kind(kind).raw_days)
        groups = (
            _raw_entries(kind, cutoff)
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
    report.reviews_flagged = _flag_reviews(now)
    if report.changed:
        audit_event_append(
            action="memory.retention.swept",
            policy_id=POLICY_ID,
            actor=RETENTION_ACTOR,
            severity=Severity.INFO,
            payload=report.as_dict(),
            occurred_at=now,
        )
    return report
