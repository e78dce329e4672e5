"""Which origins each kind of writer may assert, as data beside the capability table.
Pure: no ORM import.

An entry's origin is what the conflict ladder and the sensitive-storage gate believe, so
it is bound to who writes, never to what the body says:

- `user-confirmed` is reached only through the member's own confirmation action
  (`memory_confirm`, answering a notice); no write asserts it.
- `user-stated` is the member's own word: a member writing for themselves, or a surface
  quoting the member, and then only with the turn it came from (a `session-turn`
  provenance link naming a stored turn the member spoke).
- `operator-copilot` is written only by an operator, into the operator-copilot scope,
  through the operator path (a copilot note on a granted inspection).
- everything else a surface or a job writes is an inference (`model-inferred`), a
  summary or an import, which rank as inferences everywhere.

A claim outside the writer's row is refused with a stable code, never silently relabelled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from iris_site.audit.enums import ActorType
from memory.enums import Origin, ScopeKind

ORIGIN_NOT_ALLOWED = "origin-not-allowed"  # 403: this kind of writer never asserts it
ORIGIN_NEEDS_MEMBER_TURN = "user-stated-needs-member-turn"  # 422: no turn proves it
ORIGIN_NOT_IN_TURN = "user-stated-not-in-turn"  # 422: the quoted turns do not say it
# A surface's `user-stated` body must be what the member said: at least this share of its
# distinct terms (stems, stop words dropped) appear in the member turns it quotes. A
# rewording keeps most of them; a claim pinned to an unrelated "hi" keeps none.
QUOTE_MIN_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class OriginGrant:
    origins: frozenset[str]
    reason: str


ORIGINS_BY_WRITER: Mapping[str, OriginGrant] = MappingProxyType(
    {
        ActorType.MEMBER: OriginGrant(
            frozenset({Origin.USER_STATED}),
            "What members write for themselves is their own word; confirming an "
            "inference is its own action.",
        ),
        ActorType.SERVICE: OriginGrant(
            frozenset(
                {
                    Origin.USER_STATED,
                    Origin.MODEL_INFERRED,
                    Origin.SUMMARIZED_FROM_SESSION,
                    Origin.IMPORTED,
                }
            ),
            "A surface infers, summarises and imports; it quotes the member "
            "(`user-stated`) only with the member's turn as provenance.",
        ),
        ActorType.OPERATOR: OriginGrant(
            frozenset({Origin.OPERATOR_COPILOT}),
            "Operators write copilot notes about a member, never the member's word.",
        ),
        ActorType.SYSTEM: OriginGrant(
            frozenset({Origin.MODEL_INFERRED, Origin.SUMMARIZED_FROM_SESSION, Origin.IMPORTED}),
            "Jobs and commands summarise and import; they never speak for the member "
            "or for an operator.",
        ),
    }
)

# Origins a writer may assert only with the member's own turn as evidence.
NEEDS_MEMBER_TURN: frozenset[tuple[str, str]] = frozenset({(ActorType.SERVICE, Origin.USER_STATED)})


@dataclass(frozen=True, slots=True)
class OriginDecision:
    allowed: bool
    code: str = ""
    status: int = 0
    message: str = ""


ORIGIN_ALLOWED = OriginDecision(allowed=True)


def quoted_share(body_terms: Iterable[str], turn_terms: Iterable[str]) -> float:
    """The share of the body's distinct terms that the quoted turns contain."""
    wanted = set(body_terms)
    if not wanted:
        return 0.0
    return len(wanted & set(turn_terms)) / len(wanted)


def evaluate_origin(
    *, writer: str, origin: str, scope_kind: str, member_turns: int, quoted: float = 1.0
) -> OriginDecision:
    """May this kind of writer assert `origin` for a write into `scope_kind`, given how
    many of the write's `session-turn` links name turns the member spoke, and how much of
    the body those turns say (`quoted_share`)?"""
    grant = ORIGINS_BY_WRITER.get(writer)
    if grant is None or origin not in grant.origins:
        how = (
            " It is reached only through the member's own confirmation."
            if origin == Origin.USER_CONFIRMED
            else ""
        )
        return OriginDecision(
            False,
            ORIGIN_NOT_ALLOWED,
            403,
            f"A {writer} writer may not assert origin `{origin}`.{how}",
        )
    if origin == Origin.OPERATOR_COPILOT and scope_kind != ScopeKind.OPERATOR_COPILOT:
        # Who may write into that scope at all is the blueprints' allow-list.
        return OriginDecision(
            False,
            ORIGIN_NOT_ALLOWED,
            403,
            "Operator copilot notes live only in the operator-copilot scope.",
        )
    if (writer, origin) in NEEDS_MEMBER_TURN and member_turns < 1:
        return OriginDecision(
            False,
            ORIGIN_NEEDS_MEMBER_TURN,
            422,
            "A surface may record the member's own words only with the turn they came "
            "from: add a `session-turn` provenance link naming a turn the member spoke.",
        )
    if (writer, origin) in NEEDS_MEMBER_TURN and quoted < QUOTE_MIN_SHARE:
        return OriginDecision(
            False,
            ORIGIN_NOT_IN_TURN,
            422,
            "The member's turns this write quotes do not say what it records; record it "
            "as an inference (`model-inferred`) instead.",
        )
    return ORIGIN_ALLOWED


def origin_table_markdown() -> str:
    """The table as Markdown (docs/design.md "Origins"; a test holds them together)."""
    lines = ["| writer | may assert | why |", "|---|---|---|"]
    for writer, grant in ORIGINS_BY_WRITER.items():
        origins = ", ".join(
            f"`{o}`" + (" (with the member's turn)" if (writer, o) in NEEDS_MEMBER_TURN else "")
            for o in sorted(grant.origins)
        )
        lines.append(f"| {writer} | {origins} | {grant.reason} |")
    return "\n".join(lines)
