"""Session -> profile promotion and the write-time conflict ladder: the conflict key of a
fact, which source outranks which, and what a new write does to the fact it meets.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType

from memory.enums import (
    ConflictOutcome,
    ConflictRule,
    Origin,
    PromotionReason,
    ScopeKind,
    SourceKind,
)

# --- Session → profile promotion --------------------------------------------------------

SESSION_PROFILE_PROMOTION_THRESHOLD = 3


@dataclass(frozen=True, slots=True)
class PromotionDecision:
    allowed: bool
    reason: str  # a PromotionReason value
    occurrences: int
    threshold: int = SESSION_PROFILE_PROMOTION_THRESHOLD


def evaluate_session_profile_promotion(
    *, explicit: bool, occurrences: int, requested: bool = True
) -> PromotionDecision:
    """May a session fact become profile memory?

    - `not-requested`: nothing asked for a promotion (the session did not mark the fact a
      candidate), whatever the counts say; session memory never drifts into the profile.
    - `explicit-promotion`: the member asked for it.
    - `repeated-occurrence-threshold-met`: seen at least 3 times.
    - `implicit-promotion-blocked`: an implicit promotion of a fact seen at most once;
      there is no recurrence at all, only a one-off inference.
    - `repeated-occurrence-threshold-not-met`: it recurred, but fewer than 3 times.
    """
    if occurrences < 0:
        raise ValueError("occurrences cannot be negative")

    def decide(allowed: bool, reason: str) -> PromotionDecision:
        return PromotionDecision(allowed=allowed, reason=reason, occurrences=occurrences)

    if not requested:
        return decide(False, PromotionReason.NOT_REQUESTED)
    if explicit:
        return decide(True, PromotionReason.EXPLICIT_PROMOTION)
    if occurrences >= SESSION_PROFILE_PROMOTION_THRESHOLD:
        return decide(True, PromotionReason.REPEATED_OCCURRENCE_THRESHOLD_MET)
    if occurrences <= 1:
        return decide(False, PromotionReason.IMPLICIT_PROMOTION_BLOCKED)
    return decide(False, PromotionReason.REPEATED_OCCURRENCE_THRESHOLD_NOT_MET)


# --- Write-time conflicts ---------------------------------------------------------------

# Summaries and imports rank as inferences: the ladder only gives authority to what the
# member stated or confirmed to Iris, and neither a machine summary nor an imported record
# has been confirmed here.
ORIGIN_SOURCE_KIND: Mapping[str, str] = MappingProxyType(
    {
        Origin.USER_STATED: SourceKind.EXPLICIT_USER,
        Origin.USER_CONFIRMED: SourceKind.USER_CONFIRMED,
        Origin.MODEL_INFERRED: SourceKind.MODEL_INFERRED,
        Origin.OPERATOR_COPILOT: SourceKind.ADMIN_COPILOT_INFERRED,
        Origin.SUMMARIZED_FROM_SESSION: SourceKind.MODEL_INFERRED,
        Origin.IMPORTED: SourceKind.MODEL_INFERRED,
    }
)
MEMBER_SOURCES: frozenset[str] = frozenset({SourceKind.EXPLICIT_USER, SourceKind.USER_CONFIRMED})
INFERRED_SOURCES: frozenset[str] = frozenset(
    {SourceKind.MODEL_INFERRED, SourceKind.ADMIN_COPILOT_INFERRED}
)


def source_kind_for(origin: str) -> str:
    try:
        return ORIGIN_SOURCE_KIND[origin]
    except KeyError:
        raise ValueError(f"unknown origin {origin!r}") from None


def outranks(*, new_origin: str, existing_origin: str) -> bool:
    """Does a restatement of a fact in these words carry more authority than the stored
    one: the member's own word (stated or confirmed) over an inference? Then it replaces
    the inference; otherwise the stored memory already says it."""
    return (
        source_kind_for(new_origin) in MEMBER_SOURCES
        and source_kind_for(existing_origin) not in MEMBER_SOURCES
    )


def origins_met_by(new_origin: str) -> frozenset[str]:
    """The stored origins a new write meets in the conflict ladder.

    An operator-copilot note and a memory the member neither stated nor confirmed never
    meet: an operator's note never rewrites what the member's assistants know, and an
    assistant's inference never rewrites an operator's note (they live on either side of
    the operator boundary, and no recall reaches both). Across it only the member's own
    word counts: a note never trumps it, and it replaces a note like any inference."""
    new = source_kind_for(new_origin)

    def meets(existing_origin: str) -> bool:
        kinds = {new, source_kind_for(existing_origin)}
        return (
            SourceKind.ADMIN_COPILOT_INFERRED not in kinds
            or len(kinds) == 1
            or bool(kinds & MEMBER_SOURCES)
        )

    return frozenset(origin for origin in Origin.values if meets(origin))


def _normalise_key_part(value: str | None) -> str:
    return " ".join((value or "").casefold().split())


def conflict_key(*, category: str, actor_handle: str | None, subject: str | None) -> str:
    """`category::actor_handle::subject`, empty for missing parts.

    The subject is casefolded with whitespace collapsed, so "Coffee " and "coffee"
    collide as the member would expect.
    """
    return f"{category}::{actor_handle or ''}::{_normalise_key_part(subject)}"


@dataclass(frozen=True, slots=True)
class ConflictResolution:
    rule: str  # a ConflictRule value
    outcome: str  # a ConflictOutcome value
    existing_source: str
    new_source: str
    # The member stated or confirmed the existing fact and something they did not say
    # contradicts it: ask "you mentioned X earlier — should I update?" instead of deciding.
    ask_member: bool


def resolve_write_conflict(
    *,
    existing_origin: str,
    existing_updated_at: datetime,
    new_origin: str,
    new_updated_at: datetime,
) -> ConflictResolution:
    """The seed's ladder, checked in order; the first rule that applies decides.

    A timestamp tie goes to the new write: it is the later arrival.
    """
    existing = source_kind_for(existing_origin)
    new = source_kind_for(new_origin)

    def decide(rule: str, outcome: str) -> ConflictResolution:
        return ConflictResolution(
            rule=rule,
            outcome=outcome,
            existing_source=existing,
            new_source=new,
            ask_member=existing in MEMBER_SOURCES and new not in MEMBER_SOURCES,
        )

    keep, replace = ConflictOutcome.KEEP_EXISTING, ConflictOutcome.REPLACE_EXISTING
    if new == SourceKind.ADMIN_COPILOT_INFERRED and existing in MEMBER_SOURCES:
        return decide(ConflictRule.ADMIN_COPILOT_NEVER_TRUMPS_CONSUMER_STATED, keep)
    for authority, rule in (
        (SourceKind.EXPLICIT_USER, ConflictRule.EXPLICIT_USER_TRUMPS_INFERRED),
        (SourceKind.USER_CONFIRMED, ConflictRule.USER_CONFIRMED_TRUMPS_INFERRED),
    ):
        if new == authority and existing in INFERRED_SOURCES:
            return decide(rule, replace)
        if existing == authority and new in INFERRED_SOURCES:
            return decide(rule, keep)
    outcome = replace if new_updated_at >= existing_updated_at else keep
    return decide(ConflictRule.MOST_RECENT_WINS, outcome)


# --- Accepting a correction -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AcceptedCorrection:
    """What accepting "you mentioned X earlier — should I update?" stores."""

    # The corrected fact's scope kind: the new wording replaces the old one where it was.
    scope_kind: str
    # The member's own word, confirmed: it now outranks any inference in the ladder.
    origin: str
    # The scope kind the proposal was held in, when it was not the corrected fact's (an
    # assistant's profile inference the promotion rule kept in its conversation).
    moved_from: str | None


def accept_correction(*, corrected_scope_kind: str, proposed_scope_kind: str) -> AcceptedCorrection:
    """Accepting a correction writes into the corrected fact's scope.

    The proposal was held wherever its writer's rules put it; the member accepting it
    corrects *their* fact, so it takes that fact's place and lives as long as that fact
    would have. Kept in a conversation instead, it would be swept with the conversation
    while the fact it replaced stays superseded: nothing left at all."""
    for kind in (corrected_scope_kind, proposed_scope_kind):
        if kind not in ScopeKind.values:
            raise ValueError(f"unknown scope kind {kind!r}")
    return AcceptedCorrection(
        scope_kind=corrected_scope_kind,
        origin=Origin.USER_CONFIRMED,
        moved_from=proposed_scope_kind if proposed_scope_kind != corrected_scope_kind else None,
    )
