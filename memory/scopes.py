"""Which memory scopes are on for one member, and why: the blueprints
(`memory.policy.scopes.build_scope_policies`) evaluated with the member's consents in force and
their opt-outs (`consent.selectors.opt_outs_active`), the same two inputs the write path
(`memory.services._check_scope`) and the read gate (`memory.selectors.member_read_state`)
use. Also the member-facing words the memory page shows them in."""

from dataclasses import dataclass
from datetime import datetime

from consent.enums import OptOutCategory
from consent.selectors import consent_gate_state, opt_out_latest
from memory.enums import AdapterScope, ScopeMode
from memory.labels import consent_label, lower_first
from memory.policy.scopes import SCOPE_BLUEPRINTS, ScopePolicy, build_scope_policies


def member_scope_policies(
    *, member_id, consumer: str | None = None, now: datetime | None = None
) -> dict[str, ScopePolicy]:
    """The eleven adapter scopes for the member (`consumer=None`: the member's own view;
    a consumer: as that surface may use them)."""
    active, opt_outs = consent_gate_state(member_id=member_id, now=now)
    return build_scope_policies(
        active_consent_types=active.types,
        opt_outs=opt_outs,
        consumer=consumer,
    )


# --- The member page's words --------------------------------------------------------------

# Each scope as the member reads it: a name and what it holds.
SCOPE_WORDS: dict[str, tuple[str, str]] = {
    AdapterScope.ASSISTANT_PROFILE: (
        "Things about you",
        "Lasting facts and preferences every assistant may use to personalise its answers.",
    ),
    AdapterScope.SESSION: (
        "The conversation you are in",
        "What is said during a live conversation, kept only for that conversation.",
    ),
    AdapterScope.SCENE: (
        "Scenes",
        "What happens in a rendered scene, kept only for that scene.",
    ),
    AdapterScope.POSE: (
        "Posture and movement",
        "Summaries of how your pose lined up in embodied sessions, kept for a few days.",
    ),
    AdapterScope.CONVERSATION: (
        "Past conversations",
        "The history of your conversations, so an assistant can pick up a thread.",
    ),
    AdapterScope.DOMAIN: (
        "Inside one product",
        "Facts kept inside one product, such as a reading or a course.",
    ),
    AdapterScope.CROSS_DOMAIN: (
        "Shared between products",
        "Facts one product learned that another product may use.",
    ),
    AdapterScope.NOTEBOOK: (
        "Notebooks",
        "What belongs to one of your notebooks, collections or courses.",
    ),
    AdapterScope.OPERATOR_COPILOT: (
        "Support notes",
        "Notes the support team keeps while helping you. Run by the team, not by a setting here.",
    ),
    AdapterScope.TENANT: (
        "Your organisation",
        "What an organisation you belong to keeps, under its agreement with you.",
    ),
    AdapterScope.ADMIN_REVIEW: (
        "Administrator reviews",
        "Time-limited review material, when an administrator checks something for you.",
    ),
}

MODE_WORDS: dict[str, str] = {
    ScopeMode.DURABLE: "On: kept over time",
    ScopeMode.EPHEMERAL: "On: kept only for the moment",
    ScopeMode.SUPPRESSED: "Off",
}

# What turning each category off does, in the member's words.
OPT_OUT_WORDS: dict[str, str] = {
    OptOutCategory.MEMORY: "Everything Iris remembers about you. Turning this off stops "
    "every kind of memory you control, below.",
    OptOutCategory.PERSONALIZATION: "Lasting facts about you and your preferences, in one "
    "product or shared between them.",
    OptOutCategory.CONVERSATION_HISTORY: "The context of the conversation you are in and the "
    "history of past ones.",
    OptOutCategory.EMBODIED: "What happens in rendered scenes, and your posture and movement.",
    OptOutCategory.CROSS_DOMAIN_SHARING: "Facts one product learned being used by another.",
}


def consent_words(consent_type: str) -> str:
    """A consent type as the consents page names it."""
    return lower_first(consent_label(consent_type))


def why_off(policy: ScopePolicy) -> list[str]:
    """Every reason a scope is off, in plain words (the opt-outs first: the member's own)."""
    reasons = [f"because you turned off “{OptOutCategory(o).label}”" for o in policy.opted_out]
    reasons += [f"because you have not allowed {consent_words(c)}" for c in policy.missing_consents]
    if not policy.consumer_allowed:
        reasons.append("because this assistant may not use it")
    return reasons


@dataclass(frozen=True, slots=True)
class ScopeRow:
    scope: str
    title: str
    description: str
    enabled: bool
    mode: str
    state: str  # MODE_WORDS
    reasons: tuple[str, ...]
    opt_outs: tuple[str, ...]  # labels of the categories that would turn it off


def scope_rows(policies: dict[str, ScopePolicy]) -> list[ScopeRow]:
    """The page's rows, in the blueprints' order."""
    rows = []
    for scope, policy in policies.items():
        title, description = SCOPE_WORDS[scope]
        rows.append(
            ScopeRow(
                scope=scope,
                title=title,
                description=description,
                enabled=policy.enabled,
                mode=policy.mode,
                state=MODE_WORDS[policy.mode],
                reasons=tuple(why_off(policy)),
                opt_outs=tuple(
                    OptOutCategory(o).label for o in SCOPE_BLUEPRINTS[scope].opt_out_categories
                ),
            )
        )
    return rows


@dataclass(frozen=True, slots=True)
class OptOutRow:
    category: str
    label: str
    explanation: str
    opted_out: bool
    changed_at: datetime | None
    scopes: tuple[str, ...]  # titles of the scopes turning it off suppresses


def opt_out_rows(*, member_id) -> list[OptOutRow]:
    latest = opt_out_latest(member_id=member_id)
    rows = []
    for category in OptOutCategory.values:
        event = latest.get(category)
        rows.append(
            OptOutRow(
                category=category,
                label=OptOutCategory(category).label,
                explanation=OPT_OUT_WORDS[category],
                opted_out=event is not None and event.opted_out,
                changed_at=event.occurred_at if event else None,
                scopes=tuple(
                    SCOPE_WORDS[scope][0]
                    for scope, blueprint in SCOPE_BLUEPRINTS.items()
                    if category in blueprint.opt_out_categories
                ),
            )
        )
    return rows
