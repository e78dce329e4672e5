"""Neighbour context, computed by the write path: what a turn's neighbours said.

An entry whose `session-turn` provenance cites stored conversation turns is indexed with
the stems of the turns within `NEIGHBOUR_WINDOW` of each cited turn in its session (the
cited turns themselves excluded): BM25 weighs them lower than the entry's own words
(`memory.recall.rankers.BM25`), and they are counts of stems only, never text; the
stems are named by the member's keyed tokens before they are stored
(`memory.recall.store.term_stats_keyed`), so the statistics hold no word either.

The context follows the turn log. `MemoryContextAnchor` records each entry's cited
turns by session and position; when a turn is appended next to an anchor (the turns
after an entry's turn usually arrive after it is written) or erased (forgetting an entry
erases the turns it cites), `neighbour_context_refresh` re-indexes the entries anchored
within the window: their statistics, the corpus counters and their postings. An edit of
an entry's body keeps its context (`with_body`): the turns did not change. The session
date (the cited turns' `captured_at`) and a leading speaker label are kept as tags.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from memory.enums import Lifecycle, ProvenanceKind
from memory.models import ConversationTurn, MemoryContextAnchor, MemoryEntry
from memory.recall.rankers import NEIGHBOUR_WINDOW, TermStats, term_stats_for, with_neighbours
from memory.recall.store import corpus_stats_apply, entry_terms_index, term_stats_keyed

Anchor = tuple[str, int]  # (session id, turn position)


def _cited_refs(provenance_chain: Iterable[Mapping]) -> list[uuid.UUID]:
    refs = []
    for link in provenance_chain or ():
        if link.get("kind") != ProvenanceKind.SESSION_TURN:
            continue
        try:
            refs.append(uuid.UUID(str(link.get("ref"))))
        except ValueError:
            continue
    return refs


def context_anchors(*, member_id, provenance_chain: Iterable[Mapping]) -> list[Anchor]:
    """The stored turns of the member an entry's provenance cites, by position."""
    refs = _cited_refs(provenance_chain)
    if not refs:
        return []
    rows = ConversationTurn.objects.filter(member_id=member_id, pk__in=refs).values_list(
        "session_id", "sequence"
    )
    return sorted(set(rows))


def _windows(anchors: Sequence[Anchor]) -> dict[str, set[int]]:
    """Per session, the positions within the window of the anchors, the anchors excluded."""
    cited = set(anchors)
    wanted: dict[str, set[int]] = {}
    for session, sequence in anchors:
        for position in range(sequence - NEIGHBOUR_WINDOW, sequence + NEIGHBOUR_WINDOW + 1):
            if position > 0 and (session, position) not in cited:
                wanted.setdefault(session, set()).add(position)
    return wanted


def _turn_texts(*, member_id, wanted: Mapping[str, set[int]]) -> dict[Anchor, str]:
    """The stored turns at these positions, by (session, position): one query a session."""
    texts: dict[Anchor, str] = {}
    for session in sorted(wanted):
        rows = ConversationTurn.objects.filter(
            member_id=member_id, session_id=session, sequence__in=sorted(wanted[session])
        ).values_list("sequence", "text")
        texts.update({(session, sequence): text for sequence, text in rows})
    return texts


def _texts_of(wanted: Mapping[str, set[int]], texts: Mapping[Anchor, str]) -> list[str]:
    return [
        texts[(session, position)]
        for session in sorted(wanted)
        for position in sorted(wanted[session])
        if (session, position) in texts
    ]


def context_texts(*, member_id, anchors: Sequence[Anchor]) -> list[str]:
    """The stored turns within the window of the anchors, the anchors excluded, in
    session and turn order."""
    wanted = _windows(anchors)
    return _texts_of(wanted, _turn_texts(member_id=member_id, wanted=wanted))


def session_date(provenance_chain: Iterable[Mapping]) -> datetime | None:
    """When the entry's cited turns were said: the earliest `session-turn` captured_at."""
    dates = []
    for link in provenance_chain or ():
        if link.get("kind") != ProvenanceKind.SESSION_TURN or not link.get("captured_at"):
            continue
        try:
            dates.append(datetime.fromisoformat(str(link["captured_at"])))
        except ValueError:
            continue
    return min(dates) if dates else None


def entry_term_stats(*, member_id, body: str, provenance_chain: Iterable[Mapping]) -> dict:
    """An entry's term statistics: its body's stems, its speaker label and session date
    as tags, and its neighbour context, every stem named by the member's keyed token."""
    anchors = context_anchors(member_id=member_id, provenance_chain=provenance_chain)
    neighbours = context_texts(member_id=member_id, anchors=anchors) if anchors else ()
    stats = term_stats_for(body, neighbours=neighbours, when=session_date(provenance_chain))
    return term_stats_keyed(member_id, [stats])[0].to_json()


def with_body(entry: MemoryEntry, body: str) -> dict:
    """An edited body's statistics: the new body, the same turns around it."""
    return entry_term_stats(
        member_id=entry.member_id, body=body, provenance_chain=entry.provenance_chain
    )


def context_anchors_record(*, entry: MemoryEntry) -> None:
    """Record where a new entry's context is anchored (its cited stored turns)."""
    anchors = context_anchors(member_id=entry.member_id, provenance_chain=entry.provenance_chain)
    MemoryContextAnchor.objects.bulk_create(
        [
            MemoryContextAnchor(
                member_id=entry.member_id, session_id=session, sequence=sequence, entry=entry
            )
            for session, sequence in anchors
        ],
        ignore_conflicts=True,
    )


def neighbour_context_refresh(
    *, member_id, session_id: str, positions: Iterable[int], exclude: Iterable = ()
) -> int:
    """Re-index the entries whose context window covers these positions of the session
    (a turn appended or erased there), but ``exclude``d ones; returns how many changed.
    All of them at once: their anchors, the turns around them, the corpus counters and
    the postings each in one pass, however many entries the window reaches."""
    near: set[int] = set()
    for position in positions:
        near.update(range(position - NEIGHBOUR_WINDOW, position + NEIGHBOUR_WINDOW + 1))
    if not near:
        return 0
    skip = {str(i) for i in exclude}
    entry_ids = {
        str(entry_id)
        for entry_id in MemoryContextAnchor.objects.filter(
            member_id=member_id, session_id=session_id, sequence__in=sorted(near)
        ).values_list("entry_id", flat=True)
    } - skip
    if not entry_ids:
        return 0
    entries = [
        entry
        for entry in MemoryEntry.objects.filter(member_id=member_id, pk__in=sorted(entry_ids))
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .order_by("pk")
        if entry.term_stats
    ]
    anchors: dict[str, list[Anchor]] = {}
    for entry_id, session, sequence in MemoryContextAnchor.objects.filter(
        entry_id__in=[entry.pk for entry in entries]
    ).values_list("entry_id", "session_id", "sequence"):
        anchors.setdefault(str(entry_id), []).append((session, sequence))
    windows = {str(e.pk): _windows(sorted(anchors.get(str(e.pk), []))) for e in entries}
    wanted: dict[str, set[int]] = {}
    for window in windows.values():
        for session, sequences in window.items():
            wanted.setdefault(session, set()).update(sequences)
    texts = _turn_texts(member_id=member_id, wanted=wanted)
    # Every turn's stems, and any entry's stored before keyed tokens, keyed at once.
    order = sorted(texts)
    keyed = term_stats_keyed(
        member_id,
        [term_stats_for(texts[at]) for at in order]
        + [TermStats.from_json(entry.term_stats) for entry in entries],
    )
    turn_stats = dict(zip(order, keyed[: len(order)], strict=True))
    own_stats = dict(zip((e.pk for e in entries), keyed[len(order) :], strict=True))
    added, removed, changed = [], [], []
    for entry in entries:
        window = windows[str(entry.pk)]
        neighbours = [
            turn_stats[(session, position)]
            for session in sorted(window)
            for position in sorted(window[session])
            if (session, position) in turn_stats
        ]
        stats = with_neighbours(own_stats[entry.pk], neighbours).to_json()
        if stats == entry.term_stats:
            continue
        added.append((entry.pk, stats))
        removed.append((entry.pk, entry.term_stats))
        entry.term_stats = stats
        changed.append(entry)
    if not changed:
        return 0
    corpus_stats_apply(member_id=member_id, added=added, removed=removed)
    MemoryEntry.objects.bulk_update(changed, ["term_stats"])
    entry_terms_index(member_id=member_id, entries=changed)
    return len(changed)
