"""The pure rules of entities and relationships: the lifecycle table, what a
relationship note says about its type, when an entry decays, what was valid when.

No Django model import: tested without a database (`memory.entities.services` applies them).

Lifecycle: an entity is `active` (new writes link to it, recall uses it), `archived`
(nothing live is about it any more; kept and shown to the member, not recalled) or
`retired` (the member had Iris forget everything about it: its entries, relationships and
label are erased, only its keyed digest stays so a later mention does not bring it back).
Only the member brings a retired entity back, by introducing it again themselves.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from types import MappingProxyType

from memory.entities.when import Stated
from memory.enums import EntityState, ExpiryAction

# (from, to) → whether only the member may make the move. Anything absent is refused.
ENTITY_TRANSITIONS: Mapping[tuple[str, str], bool] = MappingProxyType(
    {
        (EntityState.ACTIVE, EntityState.ARCHIVED): False,
        (EntityState.ARCHIVED, EntityState.ACTIVE): False,
        (EntityState.ACTIVE, EntityState.RETIRED): False,
        (EntityState.ARCHIVED, EntityState.RETIRED): False,
        # Re-introduction: the member names the person again themselves.
        (EntityState.RETIRED, EntityState.ACTIVE): True,
    }
)


def entity_transition_allowed(current: str, target: str, *, by_member: bool) -> bool:
    """Whether an entity may move from `current` to `target`; `by_member` is whether the
    member themself asks (a member-origin write or an explicit member action)."""
    member_only = ENTITY_TRANSITIONS.get((current, target))
    if member_only is None:
        return False
    return by_member or not member_only


# --- Relationship types -----------------------------------------------------------------------

# The relationship words a note may carry, most specific first. Model-free: the type is
# the first of these the note says as a word (plural or not), else unknown ("").
RELATIONSHIP_TYPES = (
    "grandmother",
    "grandfather",
    "grandparent",
    "stepmother",
    "stepfather",
    "mother",
    "father",
    "parent",
    "daughter",
    "son",
    "child",
    "sister",
    "brother",
    "sibling",
    "aunt",
    "uncle",
    "cousin",
    "niece",
    "nephew",
    "wife",
    "husband",
    "spouse",
    "partner",
    "fiancee",
    "fiance",
    "girlfriend",
    "boyfriend",
    "ex",
    "roommate",
    "neighbour",
    "neighbor",
    "colleague",
    "coworker",
    "boss",
    "manager",
    "mentor",
    "teacher",
    "student",
    "doctor",
    "therapist",
    "friend",
)
ABOUT = "about"  # person ↔ subject: the person is what the subject is about
_WORD_RE = re.compile(r"[a-z]+")


def relationship_type(note: str) -> str:
    tokens = _WORD_RE.findall((note or "").casefold())
    words = {*tokens, *(t.removesuffix("s") for t in tokens)}
    return next((t for t in RELATIONSHIP_TYPES if t in words), "")


# --- Validity in time -------------------------------------------------------------------------


def valid_at(*, valid_from: datetime | None, valid_to: datetime | None, at: datetime) -> bool:
    """A relationship held at `at`: it had started and not yet stopped (half-open). A start
    the member never told (None) is not guessed: such a period held only before its end,
    from a time no one knows, so no time is answered by it."""
    return valid_from is not None and valid_from <= at and (valid_to is None or at < valid_to)


@dataclass(frozen=True, slots=True)
class Period:
    """When a relationship was true (`valid_from`/`valid_to`, with the precision the member
    said each to; "" when they said none) and when Iris learned it and its end."""

    valid_from: datetime | None
    valid_from_precision: str
    valid_to: datetime | None
    valid_to_precision: str
    learned_at: datetime
    end_learned_at: datetime | None


def _tidy(period: Period) -> Period:
    """An end at or before the start: the start the member did not say gives way (it is
    unknown, not guessed); a start they said keeps and the end stays open."""
    start, end = period.valid_from, period.valid_to
    if start is None or end is None or start < end:
        return period
    if not period.valid_from_precision:
        return replace(period, valid_from=None)
    return replace(period, valid_to=None, valid_to_precision="", end_learned_at=None)


def period_told(stated: Stated, *, now: datetime) -> Period:
    """A relationship Iris hears of first at `now`: true from the start the member said,
    else from `now` (it held at least since Iris heard it); ended when they said it did."""
    start, end = stated.start, stated.end
    return _tidy(
        Period(
            valid_from=start.at if start else now,
            valid_from_precision=start.precision if start else "",
            valid_to=end.at if end else None,
            valid_to_precision=end.precision if end else "",
            learned_at=now,
            end_learned_at=now if end else None,
        )
    )


def period_joins(period: Period, *, now: datetime) -> bool:
    """Whether a statement at `now` restates this period rather than opening another:
    it still holds, or its end is only that its statement was superseded by this very
    write (so the new statement carries it on)."""
    return period.valid_to is None or (
        not period.valid_to_precision and period.end_learned_at == now
    )


def period_restated(period: Period, stated: Stated, *, now: datetime) -> Period:
    """The period a restatement at `now` extends: the start the member now says (a said
    start replaces one they did not say, and a later word corrects an earlier one), else
    the period's; the end they now say, else none (it holds again). Learned first stays."""
    start, end = stated.start, stated.end
    return _tidy(
        replace(
            period,
            valid_from=start.at if start else period.valid_from,
            valid_from_precision=start.precision if start else period.valid_from_precision,
            valid_to=end.at if end else None,
            valid_to_precision=end.precision if end else "",
            end_learned_at=now if end else None,
        )
    )


def period_replayed(statements: Sequence[tuple[Stated, datetime]], *, was: Period) -> Period:
    """The period told again from the statements that still make it (each with when it
    was said, oldest first), after one was forgotten or reworded: only their words give
    its times, so a start or an end that only a gone statement said goes with it (back to
    when Iris learned it, or open). An end Iris learned from a supersession stands."""
    (first, at), *rest = statements
    period = period_told(first, now=at)
    for stated, said_at in rest:
        period = period_restated(period, stated, now=said_at)
    if period.valid_to is None and was.valid_to is not None and not was.valid_to_precision:
        period = _tidy(
            replace(
                period,
                valid_to=was.valid_to,
                valid_to_precision="",
                end_learned_at=was.end_learned_at,
            )
        )
    return period


def period_superseded(period: Period, *, now: datetime) -> Period:
    """Its last statement was superseded at `now` and nothing restates it: it ends then,
    as Iris learned; an end the member had said stands."""
    if period.valid_to is not None:
        return period
    return _tidy(replace(period, valid_to=now, valid_to_precision="", end_learned_at=now))


@dataclass(frozen=True, slots=True)
class FactTime:
    """When a fact about the member was TRUE, as they said it in its words (`"I've lived
    in Lisbon since 2019"`): what an entry keeps beside when Iris learned it (its
    `created_at`). A time they did not say is None, its precision "" (never guessed)."""

    valid_from: datetime | None = None
    valid_from_precision: str = ""
    valid_to: datetime | None = None
    valid_to_precision: str = ""


def fact_told(stated: Stated) -> FactTime:
    """The times a fact's words said (`memory.entities.when.stated_times`), as kept."""
    start, end = stated.start, stated.end
    return FactTime(
        valid_from=start.at if start else None,
        valid_from_precision=start.precision if start else "",
        valid_to=end.at if end else None,
        valid_to_precision=end.precision if end else "",
    )


def fact_held_at(
    *, time: FactTime, learned_at: datetime, superseded_at: datetime | None, at: datetime
) -> bool:
    """Whether a fact held at `at`, by the relationship rule (`period_told`,
    `period_superseded`, `valid_at`): true from the start the member said, else from when
    Iris learned it; until the end they said, else until Iris learned it was superseded.
    Told late counts when they said the start; an end they said excludes it after,
    whenever Iris heard it; an end without a start they said leaves the start unknown,
    so it answers no time. A time without its precision was not said and is ignored."""
    said_start = time.valid_from if time.valid_from_precision else None
    said_end = time.valid_to if time.valid_to_precision else None
    period = _tidy(
        Period(
            valid_from=said_start or learned_at,
            valid_from_precision=time.valid_from_precision if said_start else "",
            valid_to=said_end,
            valid_to_precision=time.valid_to_precision if said_end else "",
            learned_at=learned_at,
            end_learned_at=learned_at if said_end else None,
        )
    )
    if superseded_at is not None:
        period = period_superseded(period, now=superseded_at)
    return valid_at(valid_from=period.valid_from, valid_to=period.valid_to, at=at)


# --- Decay ------------------------------------------------------------------------------------


def decay_days(
    *,
    expiry_action: str,
    raw_days: int | None,
    summary_days: int | None = None,
    summary: bool = False,
    auto_forget_days: int | None,
) -> int | None:
    """Days from its last assertion to an entry's `decay_at`: the member's auto-forget
    choice for its scope kind, or the envelope's retention when the envelope ends in
    erasure (summarize: raw memory is retired after `raw_days`, once compaction had its
    turn, and a `summary` after `summary_days`), whichever comes first. Review kinds (a
    human decides) and notebooks (bound to the notebook's lifetime) decay only by the
    member's choice."""
    envelope = None
    if expiry_action == ExpiryAction.SUMMARIZE:
        envelope = summary_days if summary else raw_days
    found = [d for d in (envelope, auto_forget_days) if d is not None]
    return min(found) if found else None


def decay_at(*, asserted_at: datetime, days: int | None) -> datetime | None:
    return None if days is None else asserted_at + timedelta(days=days)
