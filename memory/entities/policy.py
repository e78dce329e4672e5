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
from collections.abc import Mapping
from datetime import datetime, timedelta
from types import MappingProxyType

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


def valid_at(*, valid_from: datetime, valid_to: datetime | None, at: datetime) -> bool:
    """A relationship held at `at`: it had started and not yet stopped (half-open)."""
    return valid_from <= at and (valid_to is None or at < valid_to)


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
