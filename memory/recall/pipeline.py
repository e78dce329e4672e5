"""Recall resolution: "what may the assistant say back now?", as a pure function.

``resolve(candidates, request, now)`` runs seed 001's nine stages in order:

1-5. the read gate          `memory.access.gate.decide`, per candidate: tenant boundary, scope
                              reachability, the allow-list of the kind it lives in, the
                              member's state (full clear, off the record, base consents),
                              crisis frame, suppression + lifecycle + holds, sensitive
                              categories; its reason is the count key
6. relevance ranking          a named blend of recency, semantic, references, origin
7. conflict / freshness dedupe  ``category::actor_handle::subject``, most recent wins;
                              then one fact, one memory: of entries stating the same
                              fact (`fact_of` their bodies, in one category, of one
                              person and subject), the best ranked
8. per-surface budget         unknown surfaces get the shell's
9. surface redaction, rationale and the audit envelope

The gate looks at one candidate at a time, so the first check it fails is the one key
the candidate is counted under. The output depends only on the
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

from memory.access.capabilities import Capabilities
from memory.access.gate import (
    AUTO_FORGOTTEN,
    CONSUMER_NOT_ALLOWED,
    CRISIS_FRAME,
    DELETION_HOLD,
    FULL_CLEAR_PENDING,
    MEMBER_STOPPED_USE,
    MULTI_ACTOR_SENSITIVE_CONTEXTS,
    OFF_THE_RECORD,
    SCOPE_MISMATCH,
    SCOPE_SUPPRESSED,
    SENSITIVE_CONTEXTS,
    SENSITIVE_OUTSIDE_CONTEXT,
    SENSITIVE_WITHOUT_CONSENT,
    SURFACE_PAUSED,
    TENANT_MISMATCH,
    USER_MISMATCH,
    ContentItem,
    ContentKind,
    InvalidRecallRequest,
    MemberState,
    MultiActor,
    Reader,
    ReaderKind,
    ScopeKey,
    Suppression,
    decide,
    is_reachable,
    lifecycle_key,
)
from memory.enums import Lifecycle, Origin, RecallContext, ScopeKind, SuppressionReason
from memory.policy.fingerprints import fact_of

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

# Every key the audit envelope's ``suppression_counts`` can hold: the read gate's reasons
# for a long-term entry read by a service client, in the order of its checks (an active
# suppression counts under its own reason).
ENVELOPE_REASONS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            TENANT_MISMATCH,
            USER_MISMATCH,
            SCOPE_MISMATCH,
            SURFACE_PAUSED,
            CONSUMER_NOT_ALLOWED,
            FULL_CLEAR_PENDING,
            OFF_THE_RECORD,
            MEMBER_STOPPED_USE,
            SCOPE_SUPPRESSED,
            CRISIS_FRAME,
            *SuppressionReason.values,
            *(lifecycle_key(s) for s in Lifecycle.values if s != Lifecycle.ACTIVE),
            DELETION_HOLD,
            AUTO_FORGOTTEN,
            SENSITIVE_WITHOUT_CONSENT,
            SENSITIVE_OUTSIDE_CONTEXT,
        ]
    )
)

# --- entries, requests, results --------------------------------------------------


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
    held: bool = False  # held for a pending (soft) deletion
    # When it was true, as the member said it (precision "" where they said nothing),
    # and when Iris learned it (issue 47; `memory.entities.policy.FactTime`).
    valid_from: datetime | None = None
    valid_from_precision: str = ""
    valid_to: datetime | None = None
    valid_to_precision: str = ""
    learned_at: datetime | None = None

    @property
    def effective_tenant_id(self) -> str | None:
        return self.tenant_id or self.scope.tenant_id

    def as_item(self) -> ContentItem:
        """The candidate as the read gate sees it."""
        return ContentItem(
            kind=ContentKind.ENTRY,
            item_id=self.entry_id,
            member_id=self.user_id,
            scope=self.scope,
            tenant_id=self.effective_tenant_id,
            category=self.category,
            lifecycle=self.lifecycle,
            suppression=self.suppression,
            held=self.held,
            actor_sensitive=bool(self.multi_actor and self.multi_actor.sensitive_interaction),
            asserted_at=self.updated_at,
        )


@dataclass(frozen=True)
class RecallRequest:
    """Who asks, from which surface and scope, about what, under which consents.

    ``capabilities`` are the reading service client's (`memory.access.capabilities`); the
    surface and context were checked against them before the request was built.
    ``consent_types`` are every consent type in force (the blueprints' base consents
    come from there); ``consented_categories`` holds bare category names
    (``"medical"``), computed by the caller from the consent ledger and possibly
    narrowed; ``multi_actor_consented`` is the ``multi-actor-sensitive`` consent.
    ``clear_pending``, ``off_the_record`` and ``opt_outs`` are the member's state. ``budget`` can
    only narrow the surface's.
    """

    user_id: str
    surface: str
    scope: ScopeKey
    capabilities: Capabilities
    consent_types: frozenset[str] = frozenset()
    clear_pending: bool = False
    off_the_record: bool = False
    tenant_id: str | None = None
    query: str = ""
    context: str = RecallContext.GENERAL
    crisis_frame: bool = False
    safety_critical_context: bool = False
    consented_categories: frozenset[str] = frozenset()
    multi_actor_consented: bool = False
    opt_outs: frozenset[str] = frozenset()  # the member's opted-out categories
    stopped_use: bool = False  # the member's "Stop using my memories"
    paused_consumers: frozenset[str] = frozenset()  # the member's paused surfaces
    auto_forget_days: tuple[tuple[str, int], ...] = ()  # the member's auto-forget choices
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

    def reader(self) -> Reader:
        """The read gate's reader: the service client, narrowed to this request."""
        return Reader(
            kind=ReaderKind.SERVICE,
            member_id=self.user_id,
            capabilities=self.capabilities,
            context=self.context,
            scope=self.scope,
            tenant_id=self.effective_tenant_id,
            crisis_frame=self.crisis_frame,
            safety_critical_context=self.safety_critical_context,
        )

    def member_state(self) -> MemberState:
        return MemberState(
            member_id=self.user_id,
            consent_types=self.consent_types,
            categories=self.consented_categories,
            multi_actor_consented=self.multi_actor_consented,
            opt_outs=self.opt_outs,
            clear_pending=self.clear_pending,
            off_the_record=self.off_the_record,
            stopped_use=self.stopped_use,
            paused_consumers=self.paused_consumers,
            auto_forget_days=self.auto_forget_days,
        )


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
    valid_from: datetime | None = None
    valid_from_precision: str = ""
    valid_to: datetime | None = None
    valid_to_precision: str = ""
    learned_at: datetime | None = None


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


def first_failed_gate(
    candidate: RecallCandidate, request: RecallRequest, now: datetime
) -> str | None:
    """The suppression-count key of the read gate (`memory.access.gate.decide`) for one
    candidate, or None when it passes stages 1-5."""
    return decide(candidate.as_item(), request.reader(), request.member_state(), now)


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
    candidate: RecallCandidate,
    factors: Factors,
    *,
    query: str,
    now: datetime,
    corpus_stats: CorpusStats | None = None,
) -> str:
    """Why this entry surfaced, from its own factors only (no other entry's words).
    ``corpus_stats`` names the query's stems as the candidate's statistics do (the
    member's keyed tokens: `rankers.query_keys`)."""
    parts: list[str] = []
    if query.strip():
        words = matched_terms(query, candidate, corpus_stats)
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
    """Of each conflict cluster the freshest entry; then of entries stating one fact in
    the same words (`_fact`: a fact restated in several scopes: conversations, then the
    profile it was promoted to) the best ranked, so a recall never returns one fact twice. Keeping
    the best ranked keeps the store's certificate (`memory.recall.store.plan`): a copy
    outside the shortlist ranks below the one kept."""
    winners: dict[str, _Ranked] = {}
    for item in ranked:
        key = conflict_key(item.candidate)
        if key is None:
            continue
        best = winners.get(key)
        if best is None or _fresher(item.candidate, best.candidate):
            winners[key] = item
    facts: set[tuple] = set()
    kept = []
    for item in ranked:
        key = conflict_key(item.candidate)
        if key is not None and winners[key] is not item:
            continue
        fact = _fact(item.candidate)
        if fact not in facts:
            facts.add(fact)
            kept.append(item)
    return kept


def _fact(candidate: RecallCandidate) -> tuple:
    """What one fact is, as the write path's restatement check has it (`_restated`): the
    same words (`fact_of`) in the same category, about the same person and subject. The
    same words said of Anna and of Ben, or in two categories, are two facts."""
    handle = candidate.multi_actor.actor_handle if candidate.multi_actor else ""
    return (candidate.category, handle, candidate.subject, fact_of(candidate.body))


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
    withheld: Mapping[str, int] | None = None,
    counted: bool = False,
) -> RecallResult:
    """Run the nine stages. ``semantic`` defaults to stemmed BM25, ``blend`` to
    ``relevance-v1``; ``corpus_stats`` should be the member's (see ``rankers``) and
    falls back to statistics of the candidates that passed the gates. ``withheld``
    counts, by the gate's reason, items the caller did not hand over because the gate
    withholds their whole kind (`memory.access.gate.kind_reason`); they join the envelope's
    counts and its ``evaluated_count``.

    With ``counted``, ``withheld`` already counts every item the gate withholds (the
    store's exact count of the member's entries in reach): the candidates' own
    withholdings are not counted again, and ``evaluated_count`` is those withheld plus
    the visible candidates the ranking weighed."""
    semantic = semantic or bm25
    chosen = blend_named(blend) if isinstance(blend, str) else (blend or DEFAULT_BLEND)
    pool = list(candidates)

    # Stages 1-5.
    counts: Counter[str] = Counter(withheld or {})
    survivors: list[RecallCandidate] = []
    reader, state = request.reader(), request.member_state()
    for candidate in pool:
        reason = decide(candidate.as_item(), reader, state, now)
        if reason is None:
            survivors.append(candidate)
        elif not counted:
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
        explanation = build_rationale(
            candidate, item.factors, query=request.query, now=now, corpus_stats=corpus_stats
        )
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
                valid_from=candidate.valid_from,
                valid_from_precision=candidate.valid_from_precision,
                valid_to=candidate.valid_to,
                valid_to_precision=candidate.valid_to_precision,
                learned_at=candidate.learned_at,
            )
        )
    envelope = RecallAuditEnvelope(
        scope_key=request.scope.key_string(),
        returned_ids=tuple(e.entry_id for e in entries),
        suppression_counts=dict(sorted((k, n) for k, n in counts.items() if n)),
        evaluated_count=(len(survivors) if counted else len(pool)) + sum((withheld or {}).values()),
    )
    return RecallResult(
        entries=tuple(entries), audit_envelope=envelope, surface=surface, blend=chosen.name
    )


__all__ = [
    "BLENDS",
    "BUDGETS",
    "CONSUMER_NOT_ALLOWED",
    "CRISIS_FRAME",
    "DEFAULT_BLEND",
    "DELETION_HOLD",
    "ENVELOPE_REASONS",
    "FULL_CLEAR_PENDING",
    "MAX_QUERY_CHARS",
    "MULTI_ACTOR_SENSITIVE_CONTEXTS",
    "OFF_THE_RECORD",
    "ORIGIN_WEIGHTS",
    "RELEVANCE_V1",
    "SCOPE_MISMATCH",
    "SCOPE_SUPPRESSED",
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
]
