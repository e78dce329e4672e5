"""The one erasure service: every forgetting path ends here.

Forget one, forget a category, forget every mention of a person, the consent-withdrawal
cascade, the notebook delete, the retention sweep, the full clear's purge and the data-
rights soft and hard delete all call `memory_erase`. In one transaction, under the
member lock, it:

1. collects the entries' text as it ever was (entry and every revision) into a
   `ResidueMatcher`;
2. for a forget, records the keyed fingerprints of the facts (`memory.forgetting.fingerprints`) so
   nothing re-creates them by itself;
3. blanks and tombstones the entries that still hold text;
4. runs every registered content store's `erase` (`memory.forgetting.stores`, in store order): the
   term index, recall records, conversation turns, notices, short-term memory,
   continuation tokens, export files, revisions, the entries themselves and the bundle
   cache's generation;
5. starts each forgotten entry's revision chain afresh with one tombstone revision of
   the erased entry (revisions are append-only: the sanctioned purge path may delete
   them, never rewrite them), and appends one audit event with ids and counts.

What stays of a forgotten memory: the entry row (ids, timestamps, category, scope ids,
origin, lifecycle, consent records, provenance ids, revision count) with the keyed
digest `erased_digest` (HMAC-SHA256 under `IRIS_HASH_SECRET`, as every keyed digest in
Iris: `iris_site.crypto.keyed_digest`), and its tombstone revision — no text: body
"(forgotten)", subject, relationship note and suppression notes empty. The row stays so
the member's history, the export and the API can say truthfully that the memory existed
and when it was forgotten. A purge (full clear, data-rights delete) removes the rows too.
"""

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from iris_site.appendonly import purge_bypass
from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.crypto import keyed_digest
from iris_site.services import member_lock
from memory.changes import ErasureNotice
from memory.enums import EntryAuditAction, Lifecycle, ScopeKind
from memory.forgetting.dsar import (
    memory_dsar_linked_turn_ids,
    memory_dsar_texts,
    memory_recall_records_scrub,
    memory_superseded_wordings,
    memory_turn_texts,
    memory_turns_purge,
)
from memory.forgetting.fingerprints import fingerprints_record
from memory.forgetting.shredding import member_keys_after_purge
from memory.forgetting.stores import (
    FORGOTTEN_PLACEHOLDER,
    ContentStore,
    Erasure,
    ExtentKind,
    Hold,
    ResidueMatcher,
    content_store_register,
    erased_text_meaningful,
    registered_stores,
)
from memory.models import (
    ConversationTurn,
    ConversationTurnHold,
    MemoryContextAnchor,
    MemoryEntry,
    MemoryEntryTerm,
    MemoryNotice,
    MemoryRevision,
    RecallRecord,
)
from memory.policy import conflicts
from memory.policy.names import MentionMatcher
from memory.recall.context import neighbour_context_refresh
from memory.recall.store import corpus_stats_apply, entry_terms_drop
from memory.revisions import revision_append

POLICY_ID = "iris.memory.erasure.v1"
# What a forgotten entry's body reads: a fixed word, never the member's (and so never
# collected as erased text: `memory.forgetting.stores.erased_text_meaningful`).
FORGOTTEN_BODY = FORGOTTEN_PLACEHOLDER
BATCH = 500


@dataclass(frozen=True, slots=True)
class ErasureReport:
    """What one erasure did."""

    # Every entry erased (tombstoned now or before), sorted.
    entry_ids: tuple[str, ...]
    # The entries this run tombstoned (the rest were forgotten already).
    tombstoned_ids: tuple[uuid.UUID, ...]
    # Rows erased per content store.
    counts: dict[str, int] = field(default_factory=dict)


# --- What a forgotten entry keeps ---------------------------------------------------------


def erased_content(content: dict) -> dict:
    """A revision's content snapshot with its text erased (ids, labels, times kept)."""
    erased = dict(content or {})
    erased["body"] = FORGOTTEN_BODY
    erased["subject"] = ""
    for part, text_field in (("multi_actor", "relationship_note"), ("suppression", "notes")):
        if isinstance(erased.get(part), dict):
            erased[part] = {**erased[part], text_field: ""}
    return erased


def _holds_text(content: dict) -> bool:
    return erased_content(content) != dict(content or {})


def _erase_entry_text(entry: MemoryEntry) -> None:
    """Blank the entry's text in place, keeping a keyed digest of it (the caller saves)."""
    entry.erased_digest = keyed_digest(
        "\x1f".join((entry.body, entry.subject, entry.relationship_note)), length=64
    )
    entry.body = FORGOTTEN_BODY
    entry.subject = ""
    entry.relationship_note = ""
    entry.suppression_notes = ""
    entry.conflict_key = conflicts.conflict_key(
        category=entry.category, actor_handle=entry.actor_handle, subject=None
    )
    entry.term_stats = {}
    # When it was true came from its words ("since 2019"): it goes with them.
    entry.valid_from = entry.valid_to = None
    entry.valid_from_precision = entry.valid_to_precision = ""


ERASED_FIELDS = (
    "erased_digest",
    "body",
    "subject",
    "relationship_note",
    "suppression_notes",
    "conflict_key",
    "term_stats",
    "valid_from",
    "valid_from_precision",
    "valid_to",
    "valid_to_precision",
)


# --- The service ----------------------------------------------------------------------------


def _chunks(ids: Sequence[str]) -> Iterable[list[str]]:
    for start in range(0, len(ids), BATCH):
        yield list(ids[start : start + BATCH])


def memory_erasure_texts(*, member_id, entry_ids: Sequence[str]) -> list[str]:
    """The text an erasure of these entries removes: theirs as it ever was (entry and
    every revision) and what the registered stores hold for them. Never what an erasure
    wrote in their place ("(forgotten)": an entry forgotten before holds no text of the
    member's) nor texts too short or common to be anyone's (`erased_text_meaningful`):
    searched for, those are found in every other tombstone and every "ok"."""
    texts = set(memory_dsar_texts(member_id=member_id, entry_ids=list(entry_ids)))
    for store in registered_stores():
        if store.texts is not None and entry_ids:
            texts.update(store.texts(member_id, entry_ids))
    return sorted(t for t in texts if erased_text_meaningful(t))


@transaction.atomic
def memory_erase(
    *,
    member_id,
    entry_ids: Iterable,
    actor: Actor,
    reason: str,
    purge: bool = False,
    fingerprint: bool = False,
    categories: Iterable[str] = (),
    everything: bool = False,
    scope_kinds: Iterable[str] = (),
    earlier_wordings: bool = False,
    kind: ExtentKind = ExtentKind.FACT,
    sessions: Iterable[str] = (),
    notebooks: Iterable[str] = (),
    names: Iterable[str] = (),
    entity_ids: Iterable = (),
    now: datetime | None = None,
) -> ErasureReport:
    """Erase these entries of the member from every content store, in this transaction.

    `purge`: the rows go too (full clear, data-rights delete); otherwise the tombstones
    stay without their text. `fingerprint`: keep keyed fingerprints of the facts so no
    surface or job re-creates them (a member's forget; not the retention sweep, whose
    summaries carry the facts on on purpose). `scope_kinds` / `categories` /
    `everything`: the extent, content not tied to an entry that goes too when it is of
    these memory scope kinds and categories / whatever it is (a data-rights delete, a
    full clear; the turn log and short-term memory hold such content: `Erasure.covers`).
    `earlier_wordings`: the entries are facts the member forgets, each with every
    wording it had: the entries it superseded go too (`memory_superseded_wordings`).
    `sessions` / `notebooks`: a conversation's or a notebook's rows go whatever they
    hold; `names`: a forgotten person's names, whose every mention goes
    (`memory.policy.names`). `kind` names the extent for the stores and the audit;
    `entity_ids`, the forgotten person's entity, for the surfaces told of it. The
    surfaces that received an erased entry are told, in this transaction
    (`memory.changes`).
    Ids of other members are ignored.
    """
    now = now or timezone.now()
    member_lock(member_id=member_id)
    wanted = sorted({str(i) for i in entry_ids})
    if earlier_wordings:
        wanted = sorted(
            {*wanted, *memory_superseded_wordings(member_id=member_id, entry_ids=wanted)}
        )
    entries: list[MemoryEntry] = []
    for chunk in _chunks(wanted):
        # No joined revision under the lock (see `memory.services._lock`).
        entries += MemoryEntry.objects.select_for_update().filter(member_id=member_id, pk__in=chunk)
    entries.sort(key=lambda e: str(e.pk))
    ids = tuple(str(e.pk) for e in entries)
    texts = memory_erasure_texts(member_id=member_id, entry_ids=ids)
    matcher = ResidueMatcher(texts, ids=ids)

    if fingerprint:
        fingerprints_record(
            member_id=member_id, entries=[e for e in entries if not e.erased_digest]
        )

    live = [e for e in entries if e.lifecycle != Lifecycle.TOMBSTONED]
    # Who was given what, read before the stores scrub the recall records.
    notice = ErasureNotice(
        member_id=member_id,
        entry_ids=ids if purge else [e.pk for e in live],
        everything=purge and everything,
        person=kind == ExtentKind.PERSON,
    )
    corpus_stats_apply(member_id=member_id, removed=[(e.pk, e.term_stats) for e in live])
    # Entries whose text is still stored (a tombstone from before erasure was immediate
    # among them). A purge removes the rows; a forget has the stores erase the text (the
    # revisions store deletes every revision holding it: the append-only guard lets a
    # purge delete, never rewrite; the entries store blanks and tombstones the row), then
    # starts each chain afresh with one tombstone revision of the erased entry.
    holding = [] if purge else [e for e in entries if not e.erased_digest]

    erasure = Erasure(
        member_id=member_id,
        entry_ids=ids,
        matcher=matcher,
        purge=purge,
        reason=reason,
        categories=frozenset(categories),
        everything=everything,
        scope_kinds=frozenset(scope_kinds),
        kind=kind,
        sessions=frozenset(sessions),
        notebooks=frozenset(notebooks),
        mentions=MentionMatcher(names),
    )
    # What the extent covers whatever it holds is searched for everywhere else too.
    covered = {
        text
        for store in registered_stores()
        if store.covered_texts is not None
        for text in store.covered_texts(erasure)
    }
    if covered:
        erasure = replace(erasure, matcher=ResidueMatcher([*texts, *covered], ids=ids))
    counts = {store.name: store.erase(erasure) for store in registered_stores()}
    for entry in holding:
        entry.refresh_from_db()
        revision_append(entry, action=EntryAuditAction.TOMBSTONED, actor=actor, now=now)
    notified = notice.write(now=now, entity_ids=entity_ids)
    payload = {
        "entry_ids": list(ids[:1000]),
        "tombstoned_count": len(live) if not purge else 0,
        "reason": reason,
        "extent": kind.value,
        "notified_count": notified,
        "stores": counts,
    }
    if purge and not ids:  # only content tied to no entry (a data-rights delete's last step)
        action = AuditAction.MEMORY_MEMBER_CONTENT_PURGED
    elif purge:
        action, payload["purged_count"] = AuditAction.MEMORY_ENTRIES_PURGED, len(ids)
    else:
        action, payload["erased_count"] = AuditAction.MEMORY_ENTRIES_ERASED, len(ids)
    audit_event_append(
        action=action,
        policy_id=POLICY_ID,
        actor=actor,
        severity=Severity.WARNING,
        target_member_id=member_id,
        payload=payload,
    )
    if purge:
        # Everything of the member erased: their keys go once this commits (or are kept,
        # and said why, while anything of theirs is still sealed: `memory.forgetting.shredding`).
        member_keys_after_purge(member_id=member_id, reason=reason, everything=everything)
    tombstoned = () if purge else tuple(e.pk for e in live)
    return ErasureReport(entry_ids=ids, tombstoned_ids=tombstoned, counts=counts)


def memory_erasure_residue(
    *,
    member_id,
    entry_ids: Sequence[str],
    texts: Iterable[str],
    purge: bool,
    categories: Iterable[str] = (),
    everything: bool = False,
    scope_kinds: Iterable[str] = (),
    kind: ExtentKind = ExtentKind.FACT,
    sessions: Iterable[str] = (),
    notebooks: Iterable[str] = (),
    names: Iterable[str] = (),
) -> dict[str, int]:
    """What of an erasure remains in any registered store (the forget-completeness
    check): rows that belong to its entries, or hold their text. Empty when nothing does."""
    erasure = Erasure(
        member_id=member_id,
        entry_ids=tuple(sorted(str(i) for i in entry_ids)),
        matcher=ResidueMatcher(texts, ids=entry_ids),
        purge=purge,
        reason="residue-check",
        categories=frozenset(categories),
        everything=everything,
        scope_kinds=frozenset(scope_kinds),
        kind=kind,
        sessions=frozenset(sessions),
        notebooks=frozenset(notebooks),
        mentions=MentionMatcher(names),
    )
    residue = {store.name: store.residue(erasure) for store in registered_stores()}
    return {name: count for name, count in residue.items() if count}


# --- Memory's own content stores ------------------------------------------------------------


def _term_index_erase(erasure: Erasure) -> int:
    erased = 0
    for chunk in _chunks(erasure.entry_ids):
        erased += entry_terms_drop(member_id=erasure.member_id, entry_ids=chunk)
        MemoryContextAnchor.objects.filter(member_id=erasure.member_id, entry_id__in=chunk).delete()
    return erased


def _term_index_residue(erasure: Erasure) -> int:
    return sum(
        MemoryEntryTerm.objects.filter(
            entry__member_id=erasure.member_id, entry_id__in=chunk
        ).count()
        + MemoryContextAnchor.objects.filter(
            member_id=erasure.member_id, entry_id__in=chunk
        ).count()
        for chunk in _chunks(erasure.entry_ids)
    )


def _notices(erasure: Erasure):
    return MemoryNotice.objects.filter(
        Q(entry_id__in=erasure.entry_ids) | Q(proposed_entry_id__in=erasure.entry_ids),
        member_id=erasure.member_id,
    )


def _notices_erase(erasure: Erasure) -> int:
    """A question about a forgotten memory (or proposing one) has nothing left to ask."""
    count, _ = _notices(erasure).delete()
    return count


def _erases_every_record(erasure: Erasure) -> bool:
    """A purge of everything takes the records themselves: who was given what is kept
    for the member's history and for telling the surfaces (`memory.changes`, which read
    them before this store runs), never beyond the member."""
    return erasure.purge and erasure.everything


def _recall_records_erase(erasure: Erasure) -> int:
    if _erases_every_record(erasure):
        count, _ = RecallRecord.objects.filter(member_id=erasure.member_id).delete()
        return count
    return memory_recall_records_scrub(
        member_id=erasure.member_id, entry_ids=erasure.entry_ids, reason=erasure.reason
    )


def _recall_records_residue(erasure: Erasure) -> int:
    """Records still naming an erased entry, or keeping the rationale it surfaced with
    (the erasure scrubs exactly those; another entry's rationale is that entry's); after
    a purge of everything, any record."""
    if _erases_every_record(erasure):
        return RecallRecord.objects.filter(member_id=erasure.member_id).count()
    doomed = set(erasure.entry_ids)
    return sum(
        1
        for returned, rationales in RecallRecord.objects.filter(member_id=erasure.member_id)
        .values_list("returned_ids", "rationales")
        .iterator(chunk_size=2000)
        if doomed & {str(i) for i in returned} or doomed & {str(k) for k in rationales}
    )


def _turns(erasure: Erasure) -> list[str]:
    """Turns the entries cite as their provenance, that repeat their text or mention a
    forgotten person, or that the extent covers: every turn when it covers the turn log
    (the log is the member's conversations, session memory with no category: deleting
    session memory, or everything, deletes every session's log), a conversation's own
    turns. A delete of categories takes only the turns its erased entries cite or repeat."""
    if erasure.covers(ScopeKind.SESSION, None):
        turns = ConversationTurn.objects.filter(member_id=erasure.member_id)
        return sorted(str(pk) for pk in turns.values_list("pk", flat=True))
    doomed = set(
        memory_dsar_linked_turn_ids(member_id=erasure.member_id, entry_ids=erasure.entry_ids)
    )
    doomed |= {
        pk
        for pk, session_id, text in memory_turn_texts(member_id=erasure.member_id)
        if erasure.covers(ScopeKind.SESSION, None, session_id=session_id) or erasure.holds(text)
    }
    return sorted(doomed)


def _turns_covered_texts(erasure: Erasure) -> list[str]:
    """The text of the turns the extent covers whatever they say."""
    everything = erasure.covers(ScopeKind.SESSION, None)
    if not (everything or erasure.sessions):
        return []
    return [
        text
        for _, session_id, text in memory_turn_texts(member_id=erasure.member_id)
        if everything or session_id in erasure.sessions
    ]


def _turns_texts(member_id, entry_ids: Sequence[str]) -> list[str]:
    linked = set(memory_dsar_linked_turn_ids(member_id=member_id, entry_ids=entry_ids))
    return [text for pk, _, text in memory_turn_texts(member_id=member_id) if pk in linked]


def _turns_erase(erasure: Erasure) -> int:
    doomed = _turns(erasure)
    if not doomed:
        return 0
    positions: dict[str, list[int]] = {}
    for session, sequence in ConversationTurn.objects.filter(
        member_id=erasure.member_id, pk__in=doomed
    ).values_list("session_id", "sequence"):
        positions.setdefault(session, []).append(sequence)
    purged = memory_turns_purge(member_id=erasure.member_id, turn_ids=doomed, reason=erasure.reason)
    # The entries whose neighbour context held these turns lose their stems.
    for session, sequences in sorted(positions.items()):
        neighbour_context_refresh(
            member_id=erasure.member_id,
            session_id=session,
            positions=sequences,
            exclude=erasure.entry_ids,
        )
    return purged


def _turns_residue(erasure: Erasure) -> int:
    return len(_turns(erasure))


def _turns_hold(hold: Hold) -> int:
    """A soft delete whose extent covers the conversation log (session memory, or
    everything) hides every turn of the member at once, text untouched; turns held
    already keep their hold. The audit event carries counts only."""
    if not hold.covers(ScopeKind.SESSION, None):
        return 0
    now = timezone.now()
    ids = list(
        ConversationTurn.objects.filter(
            member_id=hold.member_id, deletion_hold__isnull=True
        ).values_list("pk", flat=True)
    )
    ConversationTurnHold.objects.bulk_create(
        ConversationTurnHold(
            turn_id=pk,
            member_id=hold.member_id,
            request_id=hold.request_id,
            placed_at=now,
            release_after=hold.release_after,
        )
        for pk in ids
    )
    audit_event_append(
        action=AuditAction.MEMORY_TURNS_HELD,
        policy_id=POLICY_ID,
        actor=Actor.system("datarights"),
        target_member_id=hold.member_id,
        payload={"dsar_request_id": str(hold.request_id), "held_count": len(ids)},
    )
    return len(ids)


def _turns_release(member_id, request_id) -> int:
    """A cancelled soft delete: its turns are read again exactly as they were."""
    released, _ = ConversationTurnHold.objects.filter(
        member_id=member_id, request_id=request_id
    ).delete()
    if released:
        audit_event_append(
            action=AuditAction.MEMORY_TURNS_RELEASED,
            policy_id=POLICY_ID,
            actor=Actor.system("datarights"),
            target_member_id=member_id,
            payload={"dsar_request_id": str(request_id), "released_count": released},
        )
    return released


def _revisions(erasure: Erasure):
    return MemoryRevision.objects.filter(
        member_id=erasure.member_id, entry_id__in=erasure.entry_ids
    )


def _revisions_erase(erasure: Erasure) -> int:
    """Revisions are append-only: the sanctioned purge path removes every revision that
    holds text (a forget: the entry's chain restarts with its tombstone revision), or
    all of them (a purge)."""
    revisions = _revisions(erasure)
    if not erasure.purge:
        revisions = revisions.filter(
            pk__in=[
                pk for pk, content in revisions.values_list("pk", "content") if _holds_text(content)
            ]
        )
    with purge_bypass(MemoryRevision):
        MemoryEntry.objects.filter(
            member_id=erasure.member_id, pk__in=erasure.entry_ids, revision__in=revisions
        ).update(revision=None)
        count, _ = revisions.delete()
    return count


def _revisions_residue(erasure: Erasure) -> int:
    revisions = _revisions(erasure)
    if erasure.purge:
        return revisions.count()
    return sum(1 for content in revisions.values_list("content", flat=True) if _holds_text(content))


def _entries(erasure: Erasure):
    return MemoryEntry.objects.filter(member_id=erasure.member_id, pk__in=erasure.entry_ids)


def _entries_erase(erasure: Erasure) -> int:
    if erasure.purge:
        count, _ = _entries(erasure).delete()  # deletion holds go with them (cascade)
        return count
    erased = 0
    for entry in _entries(erasure).filter(erased_digest=""):
        _erase_entry_text(entry)
        entry.lifecycle = Lifecycle.TOMBSTONED
        entry.save(update_fields=[*ERASED_FIELDS, "lifecycle"])
        erased += 1
    return erased


def _entries_residue(erasure: Erasure) -> int:
    """The erased entries still there (a purge) or still holding text (a forget). Only
    they: the member's other entries are outside the extent — a tombstone forgotten
    before reads the same placeholder, a memory in a scope not deleted may share a word
    or a whole sentence, and the erasure rightly leaves both (the extent names what goes:
    a fact's every wording, a summary with its sources)."""
    entries = _entries(erasure)
    if erasure.purge:
        return entries.count()
    return entries.filter(Q(erased_digest="") | ~Q(lifecycle=Lifecycle.TOMBSTONED)).count()


MEMORY_STORES = (
    ContentStore(
        name="term-index",
        erase=_term_index_erase,
        residue=_term_index_residue,
        order=10,
        tables=(MemoryEntryTerm._meta.db_table,),
        extents={
            ExtentKind.FACT: "drops the erased entries' postings and context anchors",
            ExtentKind.PERSON: "drops the postings of every entry the person extent erases",
            ExtentKind.CONVERSATION: "drops the postings of the conversation's erased entries",
            ExtentKind.SCOPE: "drops the postings of the scope's erased entries",
            ExtentKind.CATEGORY: "drops the postings of the category's erased entries",
            ExtentKind.EVERYTHING: "drops every posting of the member's entries",
        },
    ),
    ContentStore(
        name="notices",
        erase=_notices_erase,
        residue=lambda erasure: _notices(erasure).count(),
        order=10,
        tables=(MemoryNotice._meta.db_table,),
        extents={
            ExtentKind.FACT: "deletes questions about (or proposing) an erased entry",
            ExtentKind.PERSON: "deletes questions about the person's erased entries",
            ExtentKind.CONVERSATION: "deletes questions about the conversation's erased entries",
            ExtentKind.SCOPE: "deletes questions about the scope's erased entries",
            ExtentKind.CATEGORY: "deletes questions about the category's erased entries",
            ExtentKind.EVERYTHING: "deletes questions about every erased entry",
        },
    ),
    ContentStore(
        name="recall-records",
        erase=_recall_records_erase,
        residue=_recall_records_residue,
        order=10,
        tables=(RecallRecord._meta.db_table,),
        extents={
            ExtentKind.FACT: "removes the erased ids and their rationales from recall records",
            ExtentKind.PERSON: "removes the person's erased entry ids and rationales",
            ExtentKind.CONVERSATION: "removes the conversation's erased entry ids and rationales",
            ExtentKind.SCOPE: "removes the scope's erased entry ids and rationales",
            ExtentKind.CATEGORY: "removes the category's erased entry ids and rationales",
            ExtentKind.EVERYTHING: "a purge deletes every record (read first, to tell the "
            "surfaces given an entry)",
        },
    ),
    ContentStore(
        name="conversation-turns",
        erase=_turns_erase,
        residue=_turns_residue,
        texts=_turns_texts,
        covered_texts=_turns_covered_texts,
        order=10,
        tables=(ConversationTurn._meta.db_table, ConversationTurnHold._meta.db_table),
        hold=_turns_hold,
        release=_turns_release,
        extents={
            ExtentKind.FACT: "deletes turns the fact cites as provenance or that repeat a wording",
            ExtentKind.PERSON: "deletes turns that mention one of the person's names",
            ExtentKind.CONVERSATION: "deletes every turn of the conversation",
            ExtentKind.SCOPE: "session scope: deletes the whole log; else as a fact, per entry",
            ExtentKind.CATEGORY: "deletes turns the category's entries cite or repeat",
            ExtentKind.EVERYTHING: "deletes the whole conversation log",
        },
    ),
    ContentStore(
        name="revisions",
        erase=_revisions_erase,
        residue=_revisions_residue,
        order=80,
        tables=(MemoryRevision._meta.db_table,),
        extents={
            ExtentKind.FACT: "deletes every revision holding text (the chain restarts erased)",
            ExtentKind.PERSON: "as a fact, for every entry the person extent erases",
            ExtentKind.CONVERSATION: "as a fact, for every entry the conversation erases",
            ExtentKind.SCOPE: "as a fact (a purge: every revision) for the scope's entries",
            ExtentKind.CATEGORY: "as a fact (a purge: every revision) for the category's entries",
            ExtentKind.EVERYTHING: "deletes every revision",
        },
    ),
    ContentStore(
        name="entries",
        erase=_entries_erase,
        residue=_entries_residue,
        order=90,
        tables=(MemoryEntry._meta.db_table,),
        extents={
            ExtentKind.FACT: "blanks and tombstones the entry and every earlier wording",
            ExtentKind.PERSON: "tombstones entries linked to, tagging or mentioning the person",
            ExtentKind.CONVERSATION: "tombstones entries whose provenance is only the conversation",
            ExtentKind.SCOPE: "tombstones (a purge: deletes) the scope's entries",
            ExtentKind.CATEGORY: "tombstones (a purge: deletes) the category's entries",
            ExtentKind.EVERYTHING: "deletes every entry",
        },
    ),
)


def memory_stores_register() -> None:
    for store in MEMORY_STORES:
        content_store_register(store)
