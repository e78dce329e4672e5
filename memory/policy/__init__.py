"""The memory app's pure rules: confidence, the privacy storage gate, per-scope governance,
scope changes, retention envelopes, session → profile promotion, the write-time conflict
ladder, actor handles, forgotten-fact fingerprints and PII redaction.

No ORM and no settings: everything here is a function of its arguments (secrets and
clocks are passed in), so it is tested without a database. The vocabularies come from
`memory.enums`, `consent.enums` and `iris_site.enums`, which only hold `TextChoices`.

PII redaction is hand-written. Candidates considered: `presidio-analyzer` (NER on a spaCy
model that has to be fetched separately: far too heavy for four patterns), `scrubadub`
(last release 2023, pulls in an ML stack), `pyap` / `usaddress` (addresses only; `pyap`
unmaintained since 2020, `usaddress` parses an already isolated US address rather than
finding one in free text), `commonregex` (unmaintained since 2014) and `phonenumbers`
(well kept; its `PhoneNumberMatcher` is the natural upgrade for phone detection, not
adopted now because it is not a project dependency and needs a default region to find
national-format numbers). The patterns below are small, deterministic and tested; the
phone check is one function to swap.
"""

import hashlib
import hmac
import re
import unicodedata
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType

from consent.enums import BaseConsentType, OptOutCategory, category_consent_type
from iris_site.enums import Consumer
from memory.enums import (
    AdapterScope,
    ConflictOutcome,
    ConflictRule,
    ExpiryAction,
    MemoryTier,
    Origin,
    PiiKind,
    PromotionReason,
    ScopeChangeReason,
    ScopeKind,
    ScopeMode,
    SourceKind,
    StorageGateReason,
    is_sensitive_category,
)

# --- Confidence -------------------------------------------------------------------------

# The seed derives confidence from origin and ranks origins in recall with the weights
# 1 / 0.9 / 0.75 / 0.7 / 0.5 / 0.4. One table serves both, so a fact's stored confidence
# and its recall weight can never disagree about which origin is more trustworthy.
ORIGIN_CONFIDENCE: Mapping[str, float] = MappingProxyType(
    {
        Origin.USER_STATED: 1.0,
        Origin.USER_CONFIRMED: 0.9,
        Origin.SUMMARIZED_FROM_SESSION: 0.75,
        Origin.IMPORTED: 0.7,
        Origin.MODEL_INFERRED: 0.5,
        Origin.OPERATOR_COPILOT: 0.4,
    }
)


def confidence_for_origin(origin: str) -> float:
    """The confidence a new entry gets when the writer does not state one."""
    try:
        return ORIGIN_CONFIDENCE[origin]
    except KeyError:
        raise ValueError(f"unknown origin {origin!r}") from None


# --- Privacy storage gate ---------------------------------------------------------------

# The only origins a sensitive write may be persisted with: the member's own word, or an
# inference the member confirmed. A summary quotes only some of the member's turns and an
# import was never confirmed here, so whatever a write is labelled, anything else is an
# inference that waits for the member (`memory.access.origins` binds the labels to the writer).
MEMBER_WORD_ORIGINS: frozenset[str] = frozenset({Origin.USER_STATED, Origin.USER_CONFIRMED})


@dataclass(frozen=True, slots=True)
class StorageGateResult:
    allowed: bool
    reason: str | None = None  # a StorageGateReason value when refused
    required_consent: str | None = None  # the consent type that would unblock the write
    message: str = ""


STORAGE_ALLOWED = StorageGateResult(allowed=True)


def evaluate_privacy_storage_gate(
    *,
    category: str,
    origin: str,
    multi_actor_sensitive: bool,
    active_consent_types: frozenset[str],
) -> StorageGateResult:
    """May this write be persisted at all? Checked before scope policy and conflicts.

    Consent comes first: without it no confirmation could make the write legal, so
    that is the more useful thing to tell the member. A sensitive multi-actor
    interaction is sensitive whatever its category, so it is also never auto-persisted
    from an inference.
    """
    category_sensitive = is_sensitive_category(category)
    if category_sensitive:
        needed = category_consent_type(category)
        if needed not in active_consent_types:
            return StorageGateResult(
                allowed=False,
                reason=StorageGateReason.SENSITIVE_CATEGORY_WITHOUT_CONSENT,
                required_consent=needed,
                message=f"Storing {_words(category)} memory requires `{needed}` consent.",
            )
    if multi_actor_sensitive:
        needed = BaseConsentType.MULTI_ACTOR_SENSITIVE.value
        if needed not in active_consent_types:
            return StorageGateResult(
                allowed=False,
                reason=StorageGateReason.MULTI_ACTOR_SENSITIVE_WITHOUT_CONSENT,
                required_consent=needed,
                message=f"Storing a sensitive interaction with someone requires `{needed}` "
                "consent.",
            )
    if (category_sensitive or multi_actor_sensitive) and origin not in MEMBER_WORD_ORIGINS:
        return StorageGateResult(
            allowed=False,
            reason=StorageGateReason.SENSITIVE_INFERENCE_REQUIRES_CONFIRMATION,
            message="A sensitive inference is never stored until the member confirms it.",
        )
    return STORAGE_ALLOWED


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


# --- Retention --------------------------------------------------------------------------

SESSION_RAW_RETENTION_DAYS = 30
SESSION_SUMMARY_RETENTION_DAYS = 90
SCENE_RAW_RETENTION_DAYS = 14
SCENE_SUMMARY_RETENTION_DAYS = 90
POSE_RAW_RETENTION_DAYS = 7
POSE_SUMMARY_RETENTION_DAYS = 30
OPERATOR_COPILOT_RETENTION_DAYS = 14
TENANT_MEMORY_RETENTION_DAYS = 365
# Not in the seed: crisis memory is reviewed (never auto-summarized) a session-length
# window after the frame, so safety context neither lingers nor silently vanishes.
CRISIS_RETENTION_DAYS = 30


@dataclass(frozen=True, slots=True)
class RetentionEnvelope:
    """How long raw and summarized memory of a scope survive, and what happens at expiry.

    `raw_days=None` means no age limit: durable until the member deletes it (review), or
    bound to its container and deleted with it (delete, e.g. a notebook).
    """

    raw_days: int | None
    summary_days: int | None
    expiry_action: str  # an ExpiryAction value

    def raw_expires_at(self, since: datetime) -> datetime | None:
        return None if self.raw_days is None else since + timedelta(days=self.raw_days)

    def summary_expires_at(self, since: datetime) -> datetime | None:
        return None if self.summary_days is None else since + timedelta(days=self.summary_days)


_DURABLE = RetentionEnvelope(None, None, ExpiryAction.REVIEW)
_SESSION = RetentionEnvelope(
    SESSION_RAW_RETENTION_DAYS, SESSION_SUMMARY_RETENTION_DAYS, ExpiryAction.SUMMARIZE
)
_BOUND_TO_CONTAINER = RetentionEnvelope(None, None, ExpiryAction.DELETE)
_OPERATOR = RetentionEnvelope(OPERATOR_COPILOT_RETENTION_DAYS, None, ExpiryAction.REVIEW)

# Seed 001's table; the three scopes it leaves out follow the scope they map onto
# (cross_domain → profile, domain → notebook, admin_review → operator copilot).
RETENTION_ENVELOPES: Mapping[str, RetentionEnvelope] = MappingProxyType(
    {
        AdapterScope.ASSISTANT_PROFILE: _DURABLE,
        AdapterScope.SESSION: _SESSION,
        AdapterScope.CONVERSATION: _SESSION,
        AdapterScope.SCENE: RetentionEnvelope(
            SCENE_RAW_RETENTION_DAYS, SCENE_SUMMARY_RETENTION_DAYS, ExpiryAction.SUMMARIZE
        ),
        AdapterScope.POSE: RetentionEnvelope(
            POSE_RAW_RETENTION_DAYS, POSE_SUMMARY_RETENTION_DAYS, ExpiryAction.SUMMARIZE
        ),
        AdapterScope.NOTEBOOK: _BOUND_TO_CONTAINER,
        AdapterScope.OPERATOR_COPILOT: _OPERATOR,
        AdapterScope.TENANT: RetentionEnvelope(
            TENANT_MEMORY_RETENTION_DAYS, None, ExpiryAction.REVIEW
        ),
        AdapterScope.CROSS_DOMAIN: _DURABLE,
        AdapterScope.DOMAIN: _BOUND_TO_CONTAINER,
        AdapterScope.ADMIN_REVIEW: _OPERATOR,
    }
)
CRISIS_RETENTION_ENVELOPE = RetentionEnvelope(CRISIS_RETENTION_DAYS, None, ExpiryAction.REVIEW)


def retention_envelope(adapter_scope: str) -> RetentionEnvelope:
    try:
        return RETENTION_ENVELOPES[adapter_scope]
    except KeyError:
        raise ValueError(f"unknown adapter scope {adapter_scope!r}") from None


def retention_envelope_for_kind(kind: str) -> RetentionEnvelope:
    """What the sweep applies to a stored entry: its kind's primary adapter scope."""
    if kind == ScopeKind.CRISIS:
        return CRISIS_RETENTION_ENVELOPE
    if kind not in KIND_BLUEPRINTS:
        raise ValueError(f"unknown scope kind {kind!r}")
    return RETENTION_ENVELOPES[KIND_PRIMARY_SCOPE[kind]]


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


# --- Multi-actor handles ----------------------------------------------------------------

ACTOR_HANDLE_PREFIX = "actor_"
# 128 bits of the HMAC: collisions inside one member's namespace are out of reach.
ACTOR_HANDLE_HEX_LENGTH = 32
ACTOR_HANDLE_PATTERN = rf"^{ACTOR_HANDLE_PREFIX}[0-9a-f]{{{ACTOR_HANDLE_HEX_LENGTH}}}$"
MIN_ACTOR_SECRET_BYTES = 16
# Domain separation: the same server secret may key other HMACs without their outputs
# ever being comparable with actor handles.
_ACTOR_HANDLE_CONTEXT = b"iris.memory.actor-handle.v1"


def normalize_actor_name(raw_name: str) -> str:
    """NFKC, casefold, trim, collapse whitespace: "  Anna  MÜLLER" is "anna müller"."""
    name = " ".join(unicodedata.normalize("NFKC", raw_name).casefold().split())
    if not name:
        raise ValueError("an actor name needs at least one non-space character")
    return name


def actor_handle(*, secret: bytes, member_id: uuid.UUID | str, raw_name: str) -> str:
    """An opaque, stable handle for a person a member mentions; never reversible to a name.

    Bound to the member's namespace: the same name mentioned by two members gives two
    unrelated handles, so handles cannot be joined across members.
    """
    if len(secret) < MIN_ACTOR_SECRET_BYTES:
        raise ValueError(f"the actor-handle secret needs at least {MIN_ACTOR_SECRET_BYTES} bytes")
    namespace = str(uuid.UUID(str(member_id)))
    message = b"\x00".join(
        (
            _ACTOR_HANDLE_CONTEXT,
            namespace.encode("ascii"),
            normalize_actor_name(raw_name).encode("utf-8"),
        )
    )
    digest = hmac.new(secret, message, hashlib.sha256).hexdigest()
    return ACTOR_HANDLE_PREFIX + digest[:ACTOR_HANDLE_HEX_LENGTH]


# --- PII redaction ----------------------------------------------------------------------

_EMAIL_ATOM = r"[\w!#$%&'*+/=?^`{|}~-]+"
_DOMAIN_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
EMAIL_RE = re.compile(
    rf"{_EMAIL_ATOM}(?:\.{_EMAIL_ATOM})*@(?:{_DOMAIN_LABEL}\.)+[A-Za-z](?:[A-Za-z0-9-]{{0,61}}"
    r"[A-Za-z0-9])?(?![\w-])"
)

# Runs of digits separated by single spaces or hyphens; cards are found inside them.
_DIGIT_RUN_RE = re.compile(r"(?<![\w.])\d+(?:[ -]\d+)*(?![\w])")
CARD_MIN_DIGITS, CARD_MAX_DIGITS = 13, 19

_PHONE_RE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d{2,12}(?:[ .-]\d{1,12}){0,5}"
    r"(?![\w:]|[.,]\d)"
)
PHONE_MIN_DIGITS, PHONE_MAX_DIGITS = 7, 15
_DATE_RE = re.compile(r"\d{4}[./-]\d{1,2}[./-]\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{4}")
_LOCAL_PHONE_RE = re.compile(r"\d{3}[ .-]\d{4}")
_YEAR_RE = re.compile(r"(?:19|20)\d\d")

_STREET_WORD = (
    "street|avenue|road|boulevard|lane|drive|court|place|square|terrace|way|parkway|"
    "highway|close|crescent|circle|row|mews|alley|trail|gardens"
)
# Only abbreviations take a dot, so "Baker Street." leaves the full stop in the sentence.
_STREET_ABBREVIATION = "st|ave|rd|blvd|ln|dr|ct|pl|sq|pkwy|hwy|cir"
_UNIT = r"(?:,?\s+(?i:apt|apartment|suite|ste|unit|flat|floor|fl)\.?\s*#?\s*[\w-]+|,?\s*#\s*[\w-]+)"
# House number, one to four capitalised (or ordinal) name words, a street suffix, then an
# optional direction and unit: "221B Baker Street", "1600 Pennsylvania Avenue NW, Suite 5".
# Name words must be capitalised so "3 miles down the road" is not an address.
_ADDRESS_EN = (
    r"\b\d{1,6}[A-Za-z]?(?:[-/]\d{1,6}[A-Za-z]?)?,?\s+"
    r"(?:(?:[A-Z][\w'-]*|\d+(?i:st|nd|rd|th))\.?\s+){1,4}?"
    rf"(?:(?i:{_STREET_WORD})\b|(?i:{_STREET_ABBREVIATION})\b\.?)"
    rf"(?:\s+(?:N|S|E|W|NE|NW|SE|SW)\b)?{_UNIT}?"
)
# "Hauptstraße 12", "Lindenweg 3a".
_ADDRESS_DE = (
    r"\b[A-ZÄÖÜ][\w-]*(?i:straße|strasse|str\.|weg|gasse|platz|allee|damm)\s+\d{1,5}[a-z]?\b"
)
# "12 rue de Rivoli", "5 bis avenue Victor Hugo".
_ADDRESS_FR = (
    r"\b\d{1,5}(?:\s?(?i:bis|ter))?,?\s+(?i:rue|avenue|boulevard|bd|place|chemin|allée|"
    r"impasse|quai)\s+(?:(?:de la|de|du|des|la|le|les)\s+|[dl]')?[A-ZÀ-Ý][\w'-]*"
    r"(?:\s+[A-ZÀ-Ý][\w'-]*){0,3}"
)
ADDRESS_RE = re.compile(f"{_ADDRESS_EN}|{_ADDRESS_DE}|{_ADDRESS_FR}")


def luhn_valid(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


@dataclass(frozen=True, slots=True)
class RedactionResult:
    """Redacted text and what each token stood for (a kind, never the value)."""

    text: str
    tokens: Mapping[str, str] = field(default_factory=dict)  # "[EMAIL_1]" -> "email"

    @property
    def redacted(self) -> bool:
        return bool(self.tokens)


class _Tokens:
    """Hands out `[KIND_n]` tokens; the same value gets the same token within one text."""

    def __init__(self) -> None:
        self.by_value: dict[tuple[str, str], str] = {}
        self.counts: dict[str, int] = {}
        self.kinds: dict[str, str] = {}

    def token(self, kind: str, key: str) -> str:
        existing = self.by_value.get((kind, key))
        if existing is not None:
            return existing
        self.counts[kind] = self.counts.get(kind, 0) + 1
        token = f"[{kind.upper()}_{self.counts[kind]}]"
        self.by_value[(kind, key)] = token
        self.kinds[token] = str(kind)
        return token


def _only_digits(value: str) -> str:
    return "".join(char for char in value if char.isdigit())


def _replace_cards(text: str, tokens: _Tokens) -> str:
    """Within each digit run, the longest Luhn-valid window of whole groups is a card.

    Windows instead of whole runs, so "4111 1111 1111 1111 123" (card then CVV) is
    still caught.
    """

    def in_run(match: re.Match[str]) -> str:
        run = match.group(0)
        groups = list(re.finditer(r"\d+", run))
        for start in range(len(groups)):
            for end in range(len(groups), start, -1):
                span = run[groups[start].start() : groups[end - 1].end()]
                digits = _only_digits(span)
                if CARD_MIN_DIGITS <= len(digits) <= CARD_MAX_DIGITS and luhn_valid(digits):
                    head = run[: groups[start].start()]
                    tail = run[groups[end - 1].end() :]
                    return head + tokens.token(PiiKind.CARD, digits) + tail
        return run

    return _DIGIT_RUN_RE.sub(in_run, text)


def _looks_like_phone(candidate: str) -> bool:
    digits = _only_digits(candidate)
    if not PHONE_MIN_DIGITS <= len(digits) <= PHONE_MAX_DIGITS:
        return False
    if _DATE_RE.search(candidate):
        return False
    groups = re.findall(r"\d+", candidate)
    if len(groups) > 1 and all(len(g) == 4 and _YEAR_RE.fullmatch(g) for g in groups):
        return False  # "1999 2004 2011" is a list of years
    # Without an international prefix or an area code in brackets, only the shapes
    # phone numbers take are accepted: 10+ digits, or a local "555-0143".
    return (
        candidate.startswith("+")
        or "(" in candidate
        or len(digits) >= 10
        or bool(_LOCAL_PHONE_RE.fullmatch(candidate))
    )


def redact_pii_from_text(text: str) -> RedactionResult:
    """Replace emails, card numbers, phone numbers and street addresses with tokens.

    Order matters: emails first (they may hold digits), then cards (a card would
    otherwise read as a long phone number), then phones, then addresses.
    """
    tokens = _Tokens()
    text = EMAIL_RE.sub(lambda m: tokens.token(PiiKind.EMAIL, m.group(0).casefold()), text)
    text = _replace_cards(text, tokens)
    text = _PHONE_RE.sub(
        lambda m: (
            tokens.token(PiiKind.PHONE, _only_digits(m.group(0)))
            if _looks_like_phone(m.group(0))
            else m.group(0)
        ),
        text,
    )
    text = ADDRESS_RE.sub(
        lambda m: tokens.token(PiiKind.ADDRESS, " ".join(m.group(0).casefold().split())), text
    )
    return RedactionResult(text=text, tokens=MappingProxyType(dict(tokens.kinds)))


# --- Forgotten-fact fingerprints -------------------------------------------------------

# Domain separation from actor handles and every other HMAC under the same secret.
_FORGOTTEN_FACT_CONTEXT = b"iris.memory.forgotten-fact.v1"
# A forgotten text shorter than this is caught only when a write is exactly that text:
# "yes" or "the dentist" must not block every later sentence that contains them.
FORGOTTEN_FACT_MIN_CONTAINED_TOKENS = 3
_FACT_TOKEN_RE = re.compile(r"[^\W_]+")


def fact_tokens(text: str) -> tuple[str, ...]:
    """The words of a text as a fact is compared: NFKC, casefolded, split on anything
    that is not a letter or digit, so case, spacing and punctuation never tell two
    statements of one fact apart ("Allergic to  PENICILLIN!" is "allergic to penicillin")."""
    return tuple(_FACT_TOKEN_RE.findall(unicodedata.normalize("NFKC", text).casefold()))


def _fact_mac(*, secret: bytes, member_id: uuid.UUID | str, kind: bytes, value: str) -> str:
    if len(secret) < MIN_ACTOR_SECRET_BYTES:
        raise ValueError(f"the fingerprint secret needs at least {MIN_ACTOR_SECRET_BYTES} bytes")
    namespace = str(uuid.UUID(str(member_id))).encode("ascii")
    message = b"\x00".join((_FORGOTTEN_FACT_CONTEXT, kind, namespace, value.encode("utf-8")))
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def fact_text_digest(*, secret: bytes, member_id: uuid.UUID | str, tokens: tuple[str, ...]) -> str:
    """The keyed digest of a normalised text, bound to one member's namespace."""
    return _fact_mac(secret=secret, member_id=member_id, kind=b"text", value=" ".join(tokens))


def fact_key_digest(*, secret: bytes, member_id: uuid.UUID | str, conflict_key: str) -> str | None:
    """The keyed digest of a conflict key that names a subject; None for a key without
    one (`financial::::` is every subject-less financial fact, not one fact)."""
    if not conflict_key.rsplit("::", 1)[-1]:
        return None
    return _fact_mac(secret=secret, member_id=member_id, kind=b"key", value=conflict_key)


def fact_candidate_digests(
    *,
    secret: bytes,
    member_id: uuid.UUID | str,
    text: str,
    lengths: Iterable[int],
) -> set[str]:
    """The digests a text would match: the whole text, and every run of `n` consecutive
    words for each forgotten length `n` long enough to be looked for inside a longer text
    — so a summary that restates a forgotten fact among other sentences is caught."""
    tokens = fact_tokens(text)
    if not tokens:
        return set()
    digests = {fact_text_digest(secret=secret, member_id=member_id, tokens=tokens)}
    for n in set(lengths):
        if FORGOTTEN_FACT_MIN_CONTAINED_TOKENS <= n < len(tokens):
            digests.update(
                fact_text_digest(secret=secret, member_id=member_id, tokens=tokens[i : i + n])
                for i in range(len(tokens) - n + 1)
            )
    return digests


# --- Helpers ----------------------------------------------------------------------------


def _words(value: str) -> str:
    return value.replace("_", " ").replace("-", " ")


def _consent_words(consent_type: str) -> str:
    if consent_type.startswith("category:"):
        return f"{_words(consent_type.removeprefix('category:'))} category"
    return _words(consent_type)
