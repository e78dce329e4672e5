"""Consumers and per-scope governance: the scope blueprints (which consents each adapter scope
needs, who may read and write it, in which mode), their evaluation for a member, and which
scope changes are allowed.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from consent.enums import BaseConsentType, OptOutCategory
from iris_site.enums import Consumer
from memory.enums import (
    AdapterScope,
    MemoryTier,
    ScopeChangeReason,
    ScopeKind,
    ScopeMode,
)

# --- Consumers --------------------------------------------------------------------------

ADMIN_CONSUMER = "admin"  # the governed operator surfaces (admin console, inspections)
SUPPORT_CONSUMER = "support"  # the support workbench
OPERATOR_CONSUMERS: frozenset[str] = frozenset({ADMIN_CONSUMER, SUPPORT_CONSUMER})
SURFACE_CONSUMERS: frozenset[str] = frozenset(Consumer.values)
KNOWN_CONSUMERS: frozenset[str] = SURFACE_CONSUMERS | OPERATOR_CONSUMERS
DOMAIN_CONSUMERS: frozenset[str] = frozenset(
    {
        Consumer.TARA,
        Consumer.ARETE,
        Consumer.VERITAS,
        Consumer.NYX,
        Consumer.NISABA,
        Consumer.METIS,
    }
)

# --- Scope governance -------------------------------------------------------------------

# The adapter layer's eleven scopes onto the contract's eight kinds. Decisions beyond the
# seed's own examples:
# - `domain` → `notebook`: domain memory is bound to one domain context (a Tara reading,
#   a Metis course, a Nisaba edition), which is exactly what the notebook kind addresses
#   ("a specific notebook, collection, or course context"); its `notebook_id` names it.
# - `cross_domain` → `profile`: facts shared across domains are durable facts about the
#   member, which is what profile memory is.
# - `admin_review` → `operator-copilot`: the governed admin surface writes operator-side
#   review memory tied to one member and one operator, never consumer-visible memory.
# No adapter scope maps onto `crisis`; it has its own blueprint below.
ADAPTER_TO_KIND: Mapping[str, str] = MappingProxyType(
    {
        AdapterScope.ASSISTANT_PROFILE: ScopeKind.PROFILE,
        AdapterScope.SESSION: ScopeKind.SESSION,
        AdapterScope.SCENE: ScopeKind.SCENE,
        AdapterScope.POSE: ScopeKind.POSE,
        AdapterScope.CONVERSATION: ScopeKind.SESSION,
        AdapterScope.DOMAIN: ScopeKind.NOTEBOOK,
        AdapterScope.CROSS_DOMAIN: ScopeKind.PROFILE,
        AdapterScope.NOTEBOOK: ScopeKind.NOTEBOOK,
        AdapterScope.OPERATOR_COPILOT: ScopeKind.OPERATOR_COPILOT,
        AdapterScope.TENANT: ScopeKind.TENANT,
        AdapterScope.ADMIN_REVIEW: ScopeKind.OPERATOR_COPILOT,
    }
)

CRISIS_SCOPE = "crisis"  # the crisis blueprint's name; not one of the eleven adapter scopes


@dataclass(frozen=True, slots=True)
class ScopeBlueprint:
    """One adapter scope's governance metadata (the seed's `IRIS_SCOPE_BLUEPRINTS`)."""

    scope: str
    label: str  # how notes name the scope ("Session memory requires ...")
    mode: str  # the ScopeMode when enabled: durable or ephemeral
    required_consents: tuple[str, ...]
    opt_out_categories: tuple[str, ...]
    canonical_tiers: tuple[str, ...]
    admin_reviewable: bool  # operators may inspect it through a granted inspection
    requires_governance_review: bool
    allowed_consumers: frozenset[str]

    @property
    def kind(self) -> str:
        return ScopeKind.CRISIS if self.scope == CRISIS_SCOPE else ADAPTER_TO_KIND[self.scope]


_DP, _DS = BaseConsentType.DATA_PROCESSING.value, BaseConsentType.DATA_STORAGE.value
_STORED = (_DP, _DS)  # anything Iris writes down needs both processing and storage consent
_ALL_SURFACES_AND_ADMIN = SURFACE_CONSUMERS | {ADMIN_CONSUMER}

SCOPE_BLUEPRINTS: Mapping[str, ScopeBlueprint] = MappingProxyType(
    {
        blueprint.scope: blueprint
        for blueprint in (
            ScopeBlueprint(
                scope=AdapterScope.ASSISTANT_PROFILE,
                label="Profile",
                mode=ScopeMode.DURABLE,
                required_consents=_STORED,
                opt_out_categories=(OptOutCategory.MEMORY, OptOutCategory.PERSONALIZATION),
                canonical_tiers=(MemoryTier.CORE, MemoryTier.SEMANTIC),
                admin_reviewable=True,
                requires_governance_review=False,
                # The profile is what personalises every surface.
                allowed_consumers=_ALL_SURFACES_AND_ADMIN,
            ),
            ScopeBlueprint(
                scope=AdapterScope.SESSION,
                label="Session",
                # The seed: session is the "ephemeral live context".
                mode=ScopeMode.EPHEMERAL,
                required_consents=_STORED,
                opt_out_categories=(OptOutCategory.MEMORY, OptOutCategory.CONVERSATION_HISTORY),
                canonical_tiers=(MemoryTier.WORKING, MemoryTier.EPISODIC),
                admin_reviewable=True,
                requires_governance_review=False,
                allowed_consumers=_ALL_SURFACES_AND_ADMIN,
            ),
            ScopeBlueprint(
                scope=AdapterScope.SCENE,
                label="Scene",
                mode=ScopeMode.EPHEMERAL,  # bounded to one rendered scene
                required_consents=_STORED,
                opt_out_categories=(OptOutCategory.MEMORY, OptOutCategory.EMBODIED),
                canonical_tiers=(MemoryTier.WORKING, MemoryTier.EPISODIC),
                admin_reviewable=True,
                requires_governance_review=False,
                # The embodied surfaces: pose's consumers plus the scene renderers.
                allowed_consumers=frozenset(
                    {
                        Consumer.ASSISTANT,
                        Consumer.TARA,
                        Consumer.STUDIO,
                        Consumer.LIVING_SCENE,
                        Consumer.PSYCHE,
                        ADMIN_CONSUMER,
                    }
                ),
            ),
            ScopeBlueprint(
                scope=AdapterScope.POSE,
                label="Pose",
                mode=ScopeMode.EPHEMERAL,  # aggregate alignment, 7 days raw
                required_consents=(*_STORED, BaseConsentType.SENSITIVE_DATA.value),
                opt_out_categories=(OptOutCategory.MEMORY, OptOutCategory.EMBODIED),
                canonical_tiers=(MemoryTier.WORKING, MemoryTier.EPISODIC),
                # Biometric aggregates leave only through the member's own DSAR export,
                # never through an operator's inspection.
                admin_reviewable=False,
                requires_governance_review=True,
                allowed_consumers=frozenset(
                    {Consumer.ASSISTANT, Consumer.TARA, Consumer.STUDIO, ADMIN_CONSUMER}
                ),
            ),
            ScopeBlueprint(
                scope=AdapterScope.CONVERSATION,
                label="Conversation",
                # The seed: conversation is the "persistent threaded history".
                mode=ScopeMode.DURABLE,
                required_consents=_STORED,
                opt_out_categories=(OptOutCategory.MEMORY, OptOutCategory.CONVERSATION_HISTORY),
                canonical_tiers=(MemoryTier.EPISODIC, MemoryTier.ARCHIVAL),
                admin_reviewable=True,
                requires_governance_review=False,
                allowed_consumers=_ALL_SURFACES_AND_ADMIN,
            ),
            ScopeBlueprint(
                scope=AdapterScope.DOMAIN,
                label="Domain",
                mode=ScopeMode.DURABLE,
                required_consents=_STORED,
                opt_out_categories=(OptOutCategory.MEMORY, OptOutCategory.PERSONALIZATION),
                canonical_tiers=(MemoryTier.SEMANTIC, MemoryTier.ARCHIVAL),
                admin_reviewable=True,
                requires_governance_review=False,
                # The domain products, plus the assistant shell that routes into them.
                allowed_consumers=DOMAIN_CONSUMERS
                | {Consumer.ASSISTANT, Consumer.SHELL, Consumer.STUDIO, ADMIN_CONSUMER},
            ),
            ScopeBlueprint(
                scope=AdapterScope.CROSS_DOMAIN,
                label="Cross-domain",
                mode=ScopeMode.DURABLE,
                required_consents=_STORED,
                opt_out_categories=(
                    OptOutCategory.MEMORY,
                    OptOutCategory.PERSONALIZATION,
                    OptOutCategory.CROSS_DOMAIN_SHARING,
                ),
                canonical_tiers=(MemoryTier.SEMANTIC,),
                admin_reviewable=True,
                requires_governance_review=True,
                allowed_consumers=DOMAIN_CONSUMERS
                | {Consumer.ASSISTANT, Consumer.SHELL, ADMIN_CONSUMER},
            ),
            ScopeBlueprint(
                scope=AdapterScope.NOTEBOOK,
                label="Notebook",
                mode=ScopeMode.DURABLE,  # lives as long as its notebook
                required_consents=_STORED,
                opt_out_categories=(OptOutCategory.MEMORY,),
                canonical_tiers=(MemoryTier.SEMANTIC, MemoryTier.ARCHIVAL),
                admin_reviewable=True,
                requires_governance_review=False,
                allowed_consumers=frozenset(
                    {
                        Consumer.NOTEBOOK,
                        Consumer.NISABA,
                        Consumer.METIS,
                        Consumer.ASSISTANT,
                        Consumer.SHELL,
                        ADMIN_CONSUMER,
                    }
                ),
            ),
            ScopeBlueprint(
                scope=AdapterScope.OPERATOR_COPILOT,
                label="Operator copilot",
                mode=ScopeMode.EPHEMERAL,  # 14 days, then review
                # Operator-governed: no member consent is asked for (the seed).
                required_consents=(),
                opt_out_categories=(),
                canonical_tiers=(MemoryTier.WORKING, MemoryTier.EPISODIC),
                admin_reviewable=True,
                requires_governance_review=True,
                allowed_consumers=OPERATOR_CONSUMERS,
            ),
            ScopeBlueprint(
                scope=AdapterScope.TENANT,
                label="Tenant",
                mode=ScopeMode.DURABLE,  # 365 days, then review
                # The institution holds learner state, but Iris still stores it on the
                # member's behalf, so the member's processing and storage consent apply.
                required_consents=_STORED,
                # Governed by the tenant's agreement; a member objects through data rights.
                opt_out_categories=(),
                canonical_tiers=(MemoryTier.SEMANTIC, MemoryTier.ARCHIVAL),
                admin_reviewable=True,
                requires_governance_review=True,
                # Institutional Metis learner state, reachable from notebook requests.
                allowed_consumers=frozenset({Consumer.METIS, Consumer.NOTEBOOK, ADMIN_CONSUMER}),
            ),
            ScopeBlueprint(
                scope=AdapterScope.ADMIN_REVIEW,
                label="Admin review",
                mode=ScopeMode.EPHEMERAL,  # time-boxed like operator copilot memory
                required_consents=(),
                opt_out_categories=(),
                canonical_tiers=(MemoryTier.EPISODIC, MemoryTier.ARCHIVAL),
                admin_reviewable=True,
                requires_governance_review=True,
                # Support never sees review material (it may touch sensitive memory).
                allowed_consumers=frozenset({ADMIN_CONSUMER}),
            ),
        )
    }
)

# The crisis kind has no adapter scope in the seed. It is entered under vital interests
# (GDPR Art. 6(1)(d)) during a crisis cascade, so a missing consent or an opt-out must
# not stop the safety frame; only the conversational surfaces and admin may touch it.
CRISIS_BLUEPRINT = ScopeBlueprint(
    scope=CRISIS_SCOPE,
    label="Crisis",
    mode=ScopeMode.EPHEMERAL,
    required_consents=(),
    opt_out_categories=(),
    canonical_tiers=(MemoryTier.WORKING, MemoryTier.EPISODIC),
    admin_reviewable=True,
    requires_governance_review=True,
    allowed_consumers=frozenset(
        {Consumer.ASSISTANT, Consumer.SHELL, Consumer.PSYCHE, ADMIN_CONSUMER}
    ),
)


# Each kind's primary scope: the one its retention and its policy fall back to.
KIND_PRIMARY_SCOPE: Mapping[str, str] = MappingProxyType(
    {
        ScopeKind.PROFILE: AdapterScope.ASSISTANT_PROFILE,
        ScopeKind.SESSION: AdapterScope.SESSION,
        ScopeKind.SCENE: AdapterScope.SCENE,
        ScopeKind.POSE: AdapterScope.POSE,
        ScopeKind.NOTEBOOK: AdapterScope.NOTEBOOK,
        ScopeKind.CRISIS: CRISIS_SCOPE,
        ScopeKind.OPERATOR_COPILOT: AdapterScope.OPERATOR_COPILOT,
        ScopeKind.TENANT: AdapterScope.TENANT,
    }
)


def _blueprints_by_kind() -> Mapping[str, tuple[ScopeBlueprint, ...]]:
    grouped: dict[str, list[ScopeBlueprint]] = {kind: [] for kind in ScopeKind.values}
    for blueprint in (*SCOPE_BLUEPRINTS.values(), CRISIS_BLUEPRINT):
        grouped[blueprint.kind].append(blueprint)
    return MappingProxyType(
        {
            kind: tuple(sorted(items, key=lambda b: b.scope != KIND_PRIMARY_SCOPE[kind]))
            for kind, items in grouped.items()
        }
    )


# Per kind, its blueprints: the primary scope first, the others in AdapterScope order.
KIND_BLUEPRINTS: Mapping[str, tuple[ScopeBlueprint, ...]] = _blueprints_by_kind()


@dataclass(frozen=True, slots=True)
class ScopePolicy:
    """One scope as it applies to one member (and, optionally, one consumer)."""

    scope: str
    kind: str
    enabled: bool
    mode: str  # a ScopeMode value
    notes: tuple[str, ...]
    missing_consents: tuple[str, ...] = ()
    opted_out: tuple[str, ...] = ()
    consumer_allowed: bool = True
    admin_reviewable: bool = False
    requires_governance_review: bool = False


def evaluate_blueprint(
    blueprint: ScopeBlueprint,
    *,
    active_consent_types: frozenset[str],
    opt_outs: frozenset[str],
    consumer: str | None = None,
) -> ScopePolicy:
    """Every reason a scope is off is reported, not just the first, so notes are complete."""
    missing = tuple(c for c in blueprint.required_consents if c not in active_consent_types)
    opted_out = tuple(o for o in blueprint.opt_out_categories if o in opt_outs)
    consumer_allowed = consumer is None or consumer in blueprint.allowed_consumers
    notes = [f"{blueprint.label} memory requires {_consent_words(c)} consent." for c in missing]
    notes += [
        f"{blueprint.label} memory is suppressed by the member's `{o}` opt-out." for o in opted_out
    ]
    if not consumer_allowed:
        notes.append(f"Consumer `{consumer}` is not allowed to use this scope.")
    enabled = not missing and not opted_out and consumer_allowed
    return ScopePolicy(
        scope=blueprint.scope,
        kind=blueprint.kind,
        enabled=enabled,
        mode=blueprint.mode if enabled else ScopeMode.SUPPRESSED,
        notes=tuple(notes),
        missing_consents=missing,
        opted_out=opted_out,
        consumer_allowed=consumer_allowed,
        admin_reviewable=blueprint.admin_reviewable,
        requires_governance_review=blueprint.requires_governance_review,
    )


def build_scope_policies(
    *,
    active_consent_types: frozenset[str],
    opt_outs: frozenset[str],
    consumer: str | None = None,
) -> dict[str, ScopePolicy]:
    """The eleven adapter scopes for one member; `consumer=None` is the member's own view."""
    return {
        scope: evaluate_blueprint(
            blueprint,
            active_consent_types=active_consent_types,
            opt_outs=opt_outs,
            consumer=consumer,
        )
        for scope, blueprint in SCOPE_BLUEPRINTS.items()
    }


def evaluate_kind_policy(
    kind: str,
    *,
    active_consent_types: frozenset[str],
    opt_outs: frozenset[str],
    consumer: str | None = None,
) -> ScopePolicy:
    """The policy a write or recall in a canonical kind runs under.

    A kind is usable when any adapter scope mapping onto it is enabled (a domain surface
    writes notebook-kind memory through `domain`, a notebook through `notebook`); the
    primary scope wins when several are. When none is, the refusal comes from the first
    scope the consumer is allowed on, so its notes name the consents or opt-outs that
    stand in the way rather than the allow-lists of scopes it could never use.
    """
    policies = [
        evaluate_blueprint(
            blueprint,
            active_consent_types=active_consent_types,
            opt_outs=opt_outs,
            consumer=consumer,
        )
        for blueprint in KIND_BLUEPRINTS[kind]
    ]
    return next(
        (policy for policy in policies if policy.enabled),
        next((policy for policy in policies if policy.consumer_allowed), policies[0]),
    )


def consumer_may_use_kind(consumer: str, kind: str) -> bool:
    """The API's 403 check: is `consumer` on the allow-list of any scope of this kind?"""
    return any(consumer in b.allowed_consumers for b in KIND_BLUEPRINTS.get(kind, ()))


# --- Scope changes ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScopeChangeDecision:
    allowed: bool
    reason: str  # a ScopeChangeReason value
    explanation: str


# Member-initiated moves the seed's scope-change flow allows; every other pair is refused.
# A member moving session memory to the profile is itself an explicit promotion, so the
# promotion threshold does not apply to it.
ALLOWED_SCOPE_CHANGES: Mapping[tuple[str, str], ScopeChangeDecision] = MappingProxyType(
    {
        (ScopeKind.SESSION, ScopeKind.PROFILE): ScopeChangeDecision(
            True,
            ScopeChangeReason.SESSION_PROMOTION,
            "Session memory can be kept in your profile when you ask for it.",
        ),
        (ScopeKind.SESSION, ScopeKind.NOTEBOOK): ScopeChangeDecision(
            True,
            ScopeChangeReason.SESSION_TO_NOTEBOOK,
            "Session memory can be filed in one of your notebooks.",
        ),
        (ScopeKind.PROFILE, ScopeKind.NOTEBOOK): ScopeChangeDecision(
            True,
            ScopeChangeReason.PROFILE_DEMOTION,
            "Profile memory can be narrowed to one notebook.",
        ),
    }
)

# Kinds only operators or the safety frame write; a member can neither move memory out
# of them nor into them.
MEMBER_LOCKED_KINDS: frozenset[str] = frozenset({ScopeKind.CRISIS, ScopeKind.OPERATOR_COPILOT})


def evaluate_scope_change(from_scope_kind: str, to_scope_kind: str) -> ScopeChangeDecision:
    for kind in (from_scope_kind, to_scope_kind):
        if kind not in ScopeKind.values:
            raise ValueError(f"unknown scope kind {kind!r}")
    if from_scope_kind == to_scope_kind:
        return ScopeChangeDecision(
            False, ScopeChangeReason.SAME_SCOPE, "The memory is already in that scope."
        )
    if from_scope_kind in MEMBER_LOCKED_KINDS or to_scope_kind in MEMBER_LOCKED_KINDS:
        return ScopeChangeDecision(
            False,
            ScopeChangeReason.SCOPE_NOT_MEMBER_MOVABLE,
            "Crisis and operator-copilot memory cannot be moved by members.",
        )
    if from_scope_kind == ScopeKind.TENANT:
        return ScopeChangeDecision(
            False,
            ScopeChangeReason.TENANT_MEMORY_STAYS_IN_TENANT,
            "Tenant memory belongs to its institution and never becomes consumer memory; "
            "you can keep a read-only copy instead.",
        )
    if to_scope_kind == ScopeKind.TENANT:
        return ScopeChangeDecision(
            False,
            ScopeChangeReason.CONSUMER_MEMORY_NEVER_ENTERS_TENANT,
            "Personal memory is never handed to an institution's tenant memory.",
        )
    allowed = ALLOWED_SCOPE_CHANGES.get((from_scope_kind, to_scope_kind))
    if allowed is not None:
        return allowed
    return ScopeChangeDecision(
        False,
        ScopeChangeReason.SCOPE_CHANGE_NOT_SUPPORTED,
        f"Memory cannot be moved from {from_scope_kind} to {to_scope_kind}.",
    )


# --- Helpers ----------------------------------------------------------------------------


def label_words(value: str) -> str:
    return value.replace("_", " ").replace("-", " ")


def _consent_words(consent_type: str) -> str:
    if consent_type.startswith("category:"):
        return f"{label_words(consent_type.removeprefix('category:'))} category"
    return label_words(consent_type)
