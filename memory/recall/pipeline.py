"""Recall resolution: "what may the assistant say back now?", as a pure function.

``resolve(candidates, request, now)`` runs seed 001's nine stages in order:

1. tenant boundary            ``tenant-mismatch``
2. scope reachability         ``user-mismatch`` (another member's row), ``scope-mismatch``
3. crisis gate                ``crisis-frame``
4. suppression + lifecycle    the suppression's ``reason``, ``lifecycle-<state>``
5. sensitive-category gate    ``sensitive-category-without-consent``,
                              ``sensitive-category-outside-relevant-context``
6. relevance ranking          a named blend of recency, semantic, references, origin
7. conflict / freshness dedupe  ``category::actor_handle::subject``, most recent wins
8. per-surface budget         unknown surfaces get the shell's
9. surface redaction, rationale and the audit envelope

Gates 1-5 look at one candidate at a time, so the first gate it fails is the stage
that drops it and the one key it is counted under. The output depends only on the
set of candidates, never their order: ranks sort on ``(-score, entry_id,
revision_id)`` and every score is computed from the candidate, the request and the
corpus statistics alone.

No ORM import and no settings: the storage layer builds ``RecallCandidate`` rows
(including the write-time ``TermStats``) and passes the member's ``CorpusStats``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from memory.enums import (
    SENSITIVE_CATEGORIES,
    Lifecycle,
    MemoryCategory,
    Origin,
    RecallContext,
    ScopeKind,
)

from .rankers import (
    CorpusStats,
    Scorable,
    SemanticFn,
    TermStats,
    bm25,
    corpus_stats_for,
    matched_terms,
)

MAX_QUERY_CHARS = 4000

# --- suppression-count keys -------------------------------------------------------

TENANT_MISMATCH = "tenant-mismatch"
# The seed folds another member's rows into scope-mismatch (its scope keys carry the
# user id); counting them apart makes a cross-member leak attempt visible in audit.
USER_MISMATCH = "user-mismatch"
SCOPE_MISMATCH = "scope-mismatch"
CRISIS_FRAME = "crisis-frame"
SENSITIVE_WITHOUT_CONSENT = "sensitive-category-without-consent"
SENSITIVE_OUTSIDE_CONTEXT = "sensitive-category-outside-relevant-context"


def lifecycle_key(state: str) -> str:
    return f"lifecycle-{state}"


class InvalidRecallRequest(ValueError):
    """A request the pipeline refuses to run; ``code`` is stable for the API's 400."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


# --- scopes -----------------------------------------------------------------------

# Identifiers each scope kind carries, in the order the scope key string lists them
# (seed 001, "The canonical contract: eight scope kinds").
SCOPE_IDENTIFIERS: Mapping[str, tuple[str, ...]] = {
    ScopeKind.PROFILE: ("user_id",),
    ScopeKind.SESSION: ("user_id", "session_id"),
    ScopeKind.SCENE: ("user_id", "session_id", "scene_id", "room_id"),
    ScopeKind.POSE: ("user_id", "session_id", "scene_id", "pose_id", "avatar_id"),
    ScopeKind.NOTEBOOK: ("user_id", "notebook_id"),
    ScopeKind.CRISIS: ("user_id",),
    ScopeKind.OPERATOR_COPILOT: ("user_id", "operator_id"),
    ScopeKind.TENANT: ("tenant_id", "user_id"),
}


@dataclass(frozen=True)
class ScopeKey:
    """One canonical scope: a kind and exactly the identifiers that kind carries."""

    kind: str
    user_id: str
    session_id: str | None = None
    scene_id: str | None = None
    room_id: str | None = None
    pose_id: str | None = None
    avatar_id: str | None = None
    notebook_id: str | None = None
    operator_id: str | None = None
    tenant_id: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in SCOPE_IDENTIFIERS:
            raise InvalidRecallRequest("unknown-scope-kind", f"unknown scope kind {self.kind!r}")
        missing = [name for name in SCOPE_IDENTIFIERS[self.kind] if not getattr(self, name)]
        if missing:
            raise InvalidRecallRequest(
                "scope-identifiers-missing",
                f"scope {self.kind!r} needs {', '.join(missing)}",
            )

    def key_string(self) -> str:
        """``kind:<id>:<id>...``, e.g. ``session:<user_id>:<session_id>``."""
        parts = [str(getattr(self, name)) for name in SCOPE_IDENTIFIERS[self.kind]]
        return ":".join([self.kind, *parts])


def _same(entry: ScopeKey, request: ScopeKey, *names: str) -> bool:
    return all(getattr(entry, name) == getattr(request, name) for name in names)


def is_reachable(entry: ScopeKey, request: ScopeKey, *, tenant_id: str | None = None) -> bool:
    """Whether a recall in ``request`` scope may see an entry in ``entry`` scope.

    ``tenant_id`` is the recall's tenant (a notebook scope key carries none).

    Reachability walks up the containment chain and requires the shared identifiers
    to match: a session recall sees its own session and the profile, not another
    session. Both scopes belong to the same member (checked before this).

    Decisions beyond the seed's table:
    - ``operator-copilot`` reaches only its own operator's copilot scope, not the
      profile: operators never read member memory except through a granted
      inspection, and a copilot recall must not become a side door to it.
    - ``crisis`` reaches every scope of the member except ``operator-copilot`` and
      ``tenant`` (tenant rows are reachable only from notebook and tenant recalls).
    - ``notebook`` reaches tenant rows only when the recall itself names a tenant
      (the tenant boundary has already required the row's tenant to equal it).
    """
    kind, target = request.kind, entry.kind
    if target == ScopeKind.PROFILE:
        return kind in {
            ScopeKind.PROFILE,
            ScopeKind.SESSION,
            ScopeKind.SCENE,
            ScopeKind.POSE,
            ScopeKind.NOTEBOOK,
            ScopeKind.CRISIS,
        }
    if kind == ScopeKind.CRISIS:
        return target not in {ScopeKind.OPERATOR_COPILOT, ScopeKind.TENANT}
    if target == ScopeKind.SESSION:
        return kind in {ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE} and _same(
            entry, request, "session_id"
        )
    if target == ScopeKind.SCENE:
        return kind in {ScopeKind.SCENE, ScopeKind.POSE} and _same(
            entry, request, "session_id", "scene_id"
        )
    if target == ScopeKind.POSE:
        return kind == ScopeKind.POSE and _same(entry, request, "session_id", "scene_id", "pose_id")
    if target == ScopeKind.NOTEBOOK:
        return kind == ScopeKind.NOTEBOOK and _same(entry, request, "notebook_id")
    if target == ScopeKind.OPERATOR_COPILOT:
        return kind == ScopeKind.OPERATOR_COPILOT and _same(entry, request, "operator_id")
    if target == ScopeKind.TENANT:
        if kind == ScopeKind.TENANT:
            return _same(entry, request, "tenant_id")
        return kind == ScopeKind.NOTEBOOK and tenant_id is not None
    return False  # crisis rows: only a crisis recall reaches them


# --- entries, requests, results --------------------------------------------------


@dataclass(frozen=True)
class Suppression:
    reason: str
    ends_at: datetime | None = None

    def is_active(self, now: datetime) -> bool:
        return self.ends_at is None or self.ends_at > now


@dataclass(frozen=True)
class MultiActor:
    actor_handle: str
    relationship_note: str = ""
    sensitive_interaction: bool = False


@dataclass(frozen=True)
class ProvenanceLink:
    kind: str
    ref: str
    captured_at: datetime


@dataclass(frozen=True)
class RecallCandidate:
    """One entry's current revision, as the pipeline sees it."""

    entry_id: str
    revision_id: str
    user_id: str
    tenant_id: str | None
    scope: ScopeKey
    category: str
    body: str
    origin: str
    lifecycle: str
    updated_at: datetime
    term_stats: TermStats
    subject: str = ""
    suppression: Suppression | None = None
    multi_actor: MultiActor | None = None
    provenance_chain: tuple[ProvenanceLink, ...] = ()
    reference_count: int = 0
    last_referenced_at: datetime | None = None

    @property
    def effective_tenant_id(self) -> str | None:
        return self.tenant_id or self.scope.tenant_id


@dataclass(frozen=True)
class RecallRequest:
    """Who asks, from which surface and scope, about what, under which consents.

    ``consented_categories`` holds bare category names (``"medical"``), computed by
    the caller from the consent ledger; ``multi_actor_consented`` is the
    ``multi-actor-sensitive`` consent. ``budget`` can only narrow the surface's.
    """

    user_id: str
    surface: str
    scope: ScopeKey
    tenant_id: str | None = None
    query: str = ""
    context: str = RecallContext.GENERAL
    crisis_frame: bool = False
    safety_critical_context: bool = False
    consented_categories: frozenset[str] = frozenset()
    multi_actor_consented: bool = False
    dsar: bool = False
    budget: int | None = None

    def __post_init__(self) -> None:
        if self.scope.user_id != self.user_id:
            raise InvalidRecallRequest("scope-user-mismatch", "the scope names another member")
        if (
            self.scope.kind == ScopeKind.TENANT
            and self.tenant_id is not None
            and self.tenant_id != self.scope.tenant_id
        ):
            raise InvalidRecallRequest("scope-tenant-mismatch", "the scope names another tenant")
        if self.context not in RecallContext.values:
            raise InvalidRecallRequest("unknown-context", f"unknown context {self.context!r}")
        if self.budget is not None and self.budget < 0:
            raise InvalidRecallRequest("negative-budget", "budget must be zero or more")
        if len(self.query) > MAX_QUERY_CHARS:
            raise InvalidRecallRequest(
                "query-too-long", f"query is longer than {MAX_QUERY_CHARS} characters"
            )

    @property
    def effective_tenant_id(self) -> str | None:
        return self.tenant_id or self.scope.tenant_id

    @property
    def has_query(self) -> bool:
        return bool(self.query.strip())


@dataclass(frozen=True)
class Factors:
    """The four ranking factors, each in [0, 1]."""

    recency: float
    semantic: float
    reference: float
    origin: float


@dataclass(frozen=True)
class RecalledEntry:
    """A surfaced entry. ``rationale`` is None where the surface hides it;
    ``explanation`` always holds it, for the member-visible recall record only."""

    entry_id: str
    revision_id: str
    scope_key: str
    category: str
    subject: str
    body: str
    origin: str
    score: float
    factors: Factors
    rationale: str | None
    explanation: str
    provenance_chain: tuple[ProvenanceLink, ...]
    multi_actor: MultiActor | None
    reference_count: int
    last_referenced_at: datetime | None
    updated_at: datetime


@dataclass(frozen=True)
class RecallAuditEnvelope:
    """Ids and counts only, never content."""

    scope_key: str
    returned_ids: tuple[str, ...]
    suppression_counts: Mapping[str, int]
    evaluated_count: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "scope_key": self.scope_key,
            "returned_ids": list(self.returned_ids),
            "suppression_counts": dict(self.suppression_counts),
            "evaluated_count": self.evaluated_count,
        }


@dataclass(frozen=True)
class RecallResult:
    entries: tuple[RecalledEntry, ...]
    audit_envelope: RecallAuditEnvelope
    surface: str  # the budget actually applied (an unknown surface reads "shell")
    blend: str

    @property
    def anything_suppressed(self) -> bool:
        """True when the audit event must carry severity ``warning``."""
        return any(self.audit_envelope.suppression_counts.values())


# --- stage 1-5: gates ------------------------------------------------------------

# Where each sensitive category may surface (ARCHITECTURE.md, "Recall").
_HEALTH = frozenset({RecallContext.HEALTH, RecallContext.SAFETY, RecallContext.CRISIS})
_IDENTITY = frozenset({RecallContext.IDENTITY, RecallContext.SAFETY, RecallContext.CRISIS})
_SPIRITUAL = frozenset({RecallContext.SPIRITUAL})
_FINANCIAL = frozenset({RecallContext.FINANCIAL, RecallContext.SAFETY, RecallContext.CRISIS})
_LEGAL = frozenset({RecallContext.LEGAL, RecallContext.SAFETY, RecallContext.CRISIS})
_RELATIONSHIP = frozenset({RecallContext.RELATIONSHIP, RecallContext.SAFETY, RecallContext.CRISIS})
SENSITIVE_CONTEXTS: Mapping[str, frozenset[str]] = {
    MemoryCategory.POSE_ALIGNMENT: _HEALTH,
    MemoryCategory.BIOMETRIC: _HEALTH,
    MemoryCategory.MEDICAL: _HEALTH,
    MemoryCategory.PHYSICAL_HEALTH: _HEALTH,
    MemoryCategory.MENTAL_HEALTH: _HEALTH,
    MemoryCategory.SUBSTANCE_USE: _HEALTH,
    MemoryCategory.SEXUALITY: _IDENTITY,
    MemoryCategory.GENDER_IDENTITY: _IDENTITY,
    MemoryCategory.SEXUAL: _IDENTITY,
    MemoryCategory.SPIRITUAL: _SPIRITUAL,
    MemoryCategory.RELIGION_USER_REDACTED: _SPIRITUAL,
    MemoryCategory.FINANCIAL: _FINANCIAL,
    MemoryCategory.FINANCIAL_DISTRESS: _FINANCIAL,
    MemoryCategory.LEGAL: _LEGAL,
    MemoryCategory.IMMIGRATION_STATUS: _LEGAL,
    MemoryCategory.LEGAL_JEOPARDY: _LEGAL,
    MemoryCategory.ABUSE_HISTORY: _RELATIONSHIP,
    MemoryCategory.RELATIONSHIP_VIOLENCE: _RELATIONSHIP,
    MemoryCategory.SAFETY: frozenset({RecallContext.SAFETY, RecallContext.CRISIS}),
}
MULTI_ACTOR_SENSITIVE_CONTEXTS = _RELATIONSHIP


def sensitive_gate(candidate: RecallCandidate, request: RecallRequest) -> str | None:
    """Consent first, then context; an entry both sensitive by category and by a
    sensitive multi-actor interaction must pass both."""
    category_sensitive = candidate.category in SENSITIVE_CATEGORIES
    actor_sensitive = bool(candidate.multi_actor and candidate.multi_actor.sensitive_interaction)
    if not (category_sensitive or actor_sensitive):
        return None
    if (category_sensitive and candidate.category not in request.consented_categories) or (
        actor_sensitive and not request.multi_actor_consented
    ):
        return SENSITIVE_WITHOUT_CONSENT
    if (category_sensitive and request.context not in SENSITIVE_CONTEXTS[candidate.category]) or (
        actor_sensitive and request.context not in MULTI_ACTOR_SENSITIVE_CONTEXTS
    ):
        return SENSITIVE_OUTSIDE_CONTEXT
    return None


def first_failed_gate(
    candidate: RecallCandidate, request: RecallRequest, now: datetime
) -> str | None:
    """The suppression-count key of the first of stages 1-5 that drops the candidate."""
    # 1. Tenant boundary: consumer memory (no tenant) passes; tenant memory only
    # reaches a recall made for that same tenant.
    entry_tenant = candidate.effective_tenant_id
    if entry_tenant is not None and entry_tenant != request.effective_tenant_id:
        return TENANT_MISMATCH
    # 2. Scope reachability, owner first.
    if candidate.user_id != request.user_id or candidate.scope.user_id != request.user_id:
        return USER_MISMATCH
    if not is_reachable(candidate.scope, request.scope, tenant_id=request.effective_tenant_id):
        return SCOPE_MISMATCH
    # 3. Crisis frame: no normal recall, only safety entries in a safety-critical context.
    if request.crisis_frame and not (
        request.safety_critical_context and candidate.category == MemoryCategory.SAFETY
    ):
        return CRISIS_FRAME
    # 4. Suppression, then lifecycle.
    if candidate.suppression is not None and candidate.suppression.is_active(now):
        return candidate.suppression.reason
    if candidate.lifecycle != Lifecycle.ACTIVE:
        return lifecycle_key(candidate.lifecycle)
    # 5. Sensitive categories and sensitive multi-actor interactions.
    return sensitive_gate(candidate, request)


# --- stage 6: ranking --------------------------------------------------------------

RECENCY_TIME_CONSTANT = timedelta(days=30)
REFERENCE_SATURATION = 10
ORIGIN_WEIGHTS: Mapping[str, float] = {
    Origin.USER_STATED: 1.0,
    Origin.USER_CONFIRMED: 0.9,
    Origin.SUMMARIZED_FROM_SESSION: 0.75,
    Origin.IMPORTED: 0.7,
    Origin.MODEL_INFERRED: 0.5,
    Origin.OPERATOR_COPILOT: 0.4,
}


def recency_factor(candidate: RecallCandidate, now: datetime) -> float:
    """``exp(-age / 30 days)``: the seed's decay (it is an e-folding time of 30 days,
    which the seed's prose calls a half-life). Age counts from the last reference,
    falling back to the last update; a timestamp in the future counts as age 0."""
    anchor = candidate.last_referenced_at or candidate.updated_at
    age = max(timedelta(0), now - anchor)
    return math.exp(-(age / RECENCY_TIME_CONSTANT))


def reference_factor(reference_count: int) -> float:
    return min(1.0, max(0, reference_count) / REFERENCE_SATURATION)


def origin_factor(origin: str) -> float:
    return ORIGIN_WEIGHTS.get(origin, 0.0)


class Blend(Protocol):
    name: str

    def score(self, factors: Factors, *, has_query: bool) -> float: ...


@dataclass(frozen=True)
class AdditiveBlend:
    """The seed's linear blend: a weighted sum of the four factors."""

    name: str
    recency: float
    semantic: float
    reference: float
    origin: float

    def score(self, factors: Factors, *, has_query: bool) -> float:
        return (
            self.recency * factors.recency
            + self.semantic * factors.semantic
            + self.reference * factors.reference
            + self.origin * factors.origin
        )

    def prior(self, factors: Factors) -> float:
        """The non-semantic part, rescaled into [0, 1]."""
        total = self.recency + self.reference + self.origin
        return (
            self.recency * factors.recency
            + self.reference * factors.reference
            + self.origin * factors.origin
        ) / total


SEED_V1 = AdditiveBlend(name="seed-v1", recency=0.4, semantic=0.35, reference=0.15, origin=0.1)


@dataclass(frozen=True)
class RelevanceFirstBlend:
    """Relevance scaled by the seed's priors, so the priors reorder near-ties but
    never bury a relevant memory under a merely recent one.

    With a query: ``(s * (1 + lift * p) + floor * p) / (1 + lift + floor)`` where
    ``s`` is the semantic factor and ``p`` the seed's recency/reference/origin mix
    (same 0.4 : 0.15 : 0.1 proportions) rescaled into [0, 1]. ``lift`` caps how much
    the priors can raise a relevant entry (a fresh, well-used, user-stated memory
    scores at most 1.25 times a stale one of the same relevance); ``floor`` orders the
    entries that match nothing by the priors alone, below every matching one of any
    real relevance. Without a query the seed's blend applies unchanged.
    """

    name: str
    prior: AdditiveBlend = SEED_V1
    lift: float = 0.25
    floor: float = 0.01

    def score(self, factors: Factors, *, has_query: bool) -> float:
        if not has_query:
            return self.prior.score(factors, has_query=False)
        p = self.prior.prior(factors)
        raw = factors.semantic * (1.0 + self.lift * p) + self.floor * p
        return raw / (1.0 + self.lift + self.floor)


RELEVANCE_V1 = RelevanceFirstBlend(name="relevance-v1")
BLENDS: Mapping[str, Blend] = {SEED_V1.name: SEED_V1, RELEVANCE_V1.name: RELEVANCE_V1}
DEFAULT_BLEND: Blend = RELEVANCE_V1


def blend_named(name: str) -> Blend:
    try:
        return BLENDS[name]
    except KeyError:
        raise InvalidRecallRequest("unknown-blend", f"unknown blend {name!r}") from None


def _semantic_scorer(
    semantic: SemanticFn, query: str, corpus_stats: CorpusStats | None
) -> Callable[[Scorable], float]:
    bind = getattr(semantic, "bind", None)
    if callable(bind):
        return bind(query, corpus_stats)
    return lambda candidate: semantic(query, candidate, corpus_stats)


def _unit(value: float) -> float:
    # An injected ranker is outside our control: keep its output inside [0, 1].
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, value))


# --- stage 7-8: dedupe and budgets -------------------------------------------------


def conflict_key(candidate: RecallCandidate) -> str | None:
    """``category::actor_handle::subject``; entries without a subject conflict with
    nothing (otherwise every subject-less fact of a category would collapse)."""
    if not candidate.subject:
        return None
    handle = candidate.multi_actor.actor_handle if candidate.multi_actor else ""
    return f"{candidate.category}::{handle}::{candidate.subject}"


@dataclass(frozen=True)
class SurfaceBudget:
    max_entries: int
    rationale_visible: bool


FALLBACK_SURFACE = "shell"
BUDGETS: Mapping[str, SurfaceBudget] = {
    "assistant": SurfaceBudget(12, rationale_visible=False),
    "shell": SurfaceBudget(3, rationale_visible=False),
    "notebook": SurfaceBudget(999, rationale_visible=True),
    "admin": SurfaceBudget(100, rationale_visible=True),
}


def budget_for(surface: str) -> tuple[str, SurfaceBudget]:
    """The surface whose budget applies and the budget; unknown means shell."""
    name = surface if surface in BUDGETS else FALLBACK_SURFACE
    return name, BUDGETS[name]


# --- stage 9: rationale --------------------------------------------------------------


def _age_phrase(age: timedelta) -> str:
    days = int(age / timedelta(days=1))
    if days < 1:
        return "less than a day old"
    return "1 day old" if days == 1 else f"{days} days old"


def build_rationale(
    candidate: RecallCandidate, factors: Factors, *, query: str, now: datetime
) -> str:
    """Why this entry surfaced, from its own factors only (no other entry's words)."""
    parts: list[str] = []
    if query.strip():
        words = matched_terms(query, candidate)
        if words:
            parts.append("matched " + ", ".join(f"'{w}'" for w in words))
        elif factors.semantic > 0:
            parts.append("related to the query")
        else:
            parts.append("no query match")
    parts.append(candidate.origin)
    if candidate.reference_count:
        count = candidate.reference_count
        parts.append("referenced once" if count == 1 else f"referenced {count} times")
    parts.append(_age_phrase(max(timedelta(0), now - candidate.updated_at)))
    return "; ".join(parts)


# --- the pipeline ----------------------------------------------------------------


@dataclass(frozen=True)
class _Ranked:
    candidate: RecallCandidate
    factors: Factors
    score: float

    @property
    def order(self) -> tuple[float, str, str]:
        return (-self.score, self.candidate.entry_id, self.candidate.revision_id)


def _dedupe(ranked: list[_Ranked]) -> list[_Ranked]:
    winners: dict[str, _Ranked] = {}
    for item in ranked:
        key = conflict_key(item.candidate)
        if key is None:
            continue
        best = winners.get(key)
        if best is None or _fresher(item.candidate, best.candidate):
            winners[key] = item
    return [
        item
        for item in ranked
        if (key := conflict_key(item.candidate)) is None or winners[key] is item
    ]


def _fresher(a: RecallCandidate, b: RecallCandidate) -> bool:
    """Most recent update wins; equal times go to the smaller entry id."""
    if a.updated_at != b.updated_at:
        return a.updated_at > b.updated_at
    return (a.entry_id, a.revision_id) < (b.entry_id, b.revision_id)


def resolve(
    candidates: Iterable[RecallCandidate],
    request: RecallRequest,
    now: datetime,
    *,
    semantic: SemanticFn | None = None,
    blend: Blend | str | None = None,
    corpus_stats: CorpusStats | None = None,
) -> RecallResult:
    """Run the nine stages. ``semantic`` defaults to stemmed BM25, ``blend`` to
    ``relevance-v1``; ``corpus_stats`` should be the member's (see ``rankers``) and
    falls back to statistics of the candidates that passed the gates."""
    semantic = semantic or bm25
    chosen = blend_named(blend) if isinstance(blend, str) else (blend or DEFAULT_BLEND)
    pool = list(candidates)

    # Stages 1-5.
    counts: Counter[str] = Counter()
    survivors: list[RecallCandidate] = []
    for candidate in pool:
        reason = first_failed_gate(candidate, request, now)
        if reason is None:
            survivors.append(candidate)
        else:
            counts[reason] += 1

    # Stage 6.
    if corpus_stats is None:
        corpus_stats = corpus_stats_for(c.term_stats for c in survivors)
    has_query = request.has_query
    scorer = _semantic_scorer(semantic, request.query, corpus_stats) if has_query else None
    ranked: list[_Ranked] = []
    for candidate in survivors:
        factors = Factors(
            recency=recency_factor(candidate, now),
            semantic=_unit(scorer(candidate)) if scorer else 0.0,
            reference=reference_factor(candidate.reference_count),
            origin=origin_factor(candidate.origin),
        )
        ranked.append(_Ranked(candidate, factors, chosen.score(factors, has_query=has_query)))
    ranked.sort(key=lambda item: item.order)

    # Stages 7-8.
    kept = _dedupe(ranked)
    surface, budget = budget_for(request.surface)
    limit = (
        budget.max_entries if request.budget is None else min(budget.max_entries, request.budget)
    )
    kept = kept[:limit]

    # Stage 9.
    redact_actors = surface == "admin" and not request.dsar
    entries = []
    for item in kept:
        candidate = item.candidate
        explanation = build_rationale(candidate, item.factors, query=request.query, now=now)
        entries.append(
            RecalledEntry(
                entry_id=candidate.entry_id,
                revision_id=candidate.revision_id,
                scope_key=candidate.scope.key_string(),
                category=candidate.category,
                subject=candidate.subject,
                body=candidate.body,
                origin=candidate.origin,
                score=item.score,
                factors=item.factors,
                rationale=explanation if budget.rationale_visible else None,
                explanation=explanation,
                provenance_chain=candidate.provenance_chain,
                multi_actor=None if redact_actors else candidate.multi_actor,
                reference_count=candidate.reference_count,
                last_referenced_at=candidate.last_referenced_at,
                updated_at=candidate.updated_at,
            )
        )
    envelope = RecallAuditEnvelope(
        scope_key=request.scope.key_string(),
        returned_ids=tuple(e.entry_id for e in entries),
        suppression_counts=dict(sorted(counts.items())),
        evaluated_count=len(pool),
    )
    return RecallResult(
        entries=tuple(entries), audit_envelope=envelope, surface=surface, blend=chosen.name
    )


__all__ = [
    "BLENDS",
    "BUDGETS",
    "CRISIS_FRAME",
    "DEFAULT_BLEND",
    "MAX_QUERY_CHARS",
    "ORIGIN_WEIGHTS",
    "RELEVANCE_V1",
    "SCOPE_IDENTIFIERS",
    "SCOPE_MISMATCH",
    "SEED_V1",
    "SENSITIVE_CONTEXTS",
    "SENSITIVE_OUTSIDE_CONTEXT",
    "SENSITIVE_WITHOUT_CONSENT",
    "TENANT_MISMATCH",
    "USER_MISMATCH",
    "AdditiveBlend",
    "Blend",
    "Factors",
    "InvalidRecallRequest",
    "MultiActor",
    "ProvenanceLink",
    "RecallAuditEnvelope",
    "RecallCandidate",
    "RecallRequest",
    "RecallResult",
    "RecalledEntry",
    "RelevanceFirstBlend",
    "ScopeKey",
    "Suppression",
    "SurfaceBudget",
    "blend_named",
    "budget_for",
    "build_rationale",
    "conflict_key",
    "first_failed_gate",
    "is_reachable",
    "lifecycle_key",
    "origin_factor",
    "recency_factor",
    "reference_factor",
    "resolve",
    "sensitive_gate",
]
