"""The one read gate: may this reader see this piece of a member's content, now?

``decide(item, reader, state, now)`` answers ``None`` (visible) or the reason it is
withheld, the key the recall audit envelope counts it under. It is pure (no ORM, no
settings) and per item, so every path that returns member content asks it the same way:
recall and the context bundle (long-term entries and summaries), short-term rows,
continuation tokens and session turns. A path that returns member content without
asking it is a bug, and a test derived from the URLconf fails on it
(`iris_site.gated.content_view`).

What it knows comes from the server, never from the request:

- the **item**: its owner, tenant, scope, category, lifecycle, suppression, deletion
  hold, multi-actor sensitivity (continuation tokens: the client and device that wrote
  them, and the cross-device grant they name);
- the **reader**: a member (their own content), a service client (its capabilities,
  `memory.access.capabilities`, and what its request narrowed them to: surface, context, scope,
  crisis frame) or an operator (the entry ids of a granted inspection);
- the **member's state**: active consents, opt-outs, a pending full clear, off the
  record, their own controls (paused surfaces, "Stop using my memories", auto-forget).

For a service reader the gates run in this order; the first that fails is the reason:

1. ``tenant-mismatch``            the item's tenant is not the request's
2. ``user-mismatch``              another member's item (or another member's state)
3. ``scope-mismatch``             not reachable from the request's scope
4. ``surface-paused``             the member paused this reader's surface (its consumer):
                                  it reads nothing of theirs until they resume it
   ``consumer-not-allowed-for-scope``  the item's kind is not on the reader's allow-list
                                  (every kind the request *reaches*, not the one it names)
5. ``full-clear-pending``         the member asked to clear everything
6. ``off-the-record``             the member is off the record (nothing recalled, as
                                  nothing is remembered)
   ``member-stopped-use``         the member turned on "Stop using my memories": no
                                  long-term entry (nor a short-term copy of one) is used
7. ``scope-suppressed``           the kind's required base consents (``data_processing``,
                                  ``data_storage``, ``sensitive_data`` for pose) or an
                                  opt-out; short-term rows need ``data_processing``
                                  (and no opt-out of the scope they are read in)
8. ``crisis-frame``               a crisis frame lets only safety items through
9. the suppression's reason       an active suppression; a timed pause ends at its end
10. ``lifecycle-<state>``         only active items (an ended timed pause counts as active)
11. ``deletion-hold``             held for a pending (soft) deletion
    ``member-auto-forget``        a long-term entry last asserted before the member's
                                  "Forget automatically after…" choice for its kind
                                  allows: never used again from that instant, though the
                                  sweep that erases its text runs only hourly
                                  (9-11 then again for every entry the item was derived
                                  from, ``ContentItem.derived_from``, under its reason)
12. ``sensitive-category-without-consent`` / ``-outside-relevant-context``
                                  category consent, then the context (only a context the
                                  reader's capabilities allow counts, and ``safety`` or
                                  ``crisis`` only inside a crisis frame in a
                                  safety-critical context: ``applied_context``)
13. ``cross-device-consent-required``  a sensitive continuation token leaves the device
                                  that wrote it only under the ``cross_device`` grant it
                                  names; "that device" is the authenticated client that
                                  wrote it plus the device id it recorded

Checks 4-7 depend only on the content kind and the scope kind an item lives in, never on
the item itself: ``kind_reason`` answers them alone, and ``decide`` asks it, so a store
can withhold a whole kind without reading its rows one by one (the recall store counts
them with one aggregate query) and still count them under the gate's own reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from consent.enums import CONSENT_TYPES, BaseConsentType
from iris_site.api.gated import gate_consulted
from memory.access.capabilities import Capabilities
from memory.contracts import SCOPE_IDENTIFIERS
from memory.enums import (
    SENSITIVE_CATEGORIES,
    Lifecycle,
    MemoryCategory,
    RecallContext,
    ScopeKind,
)
from memory.policy.scopes import evaluate_kind_policy

# --- withheld reasons (the audit envelope's keys) ------------------------------------

TENANT_MISMATCH = "tenant-mismatch"
# The seed folds another member's rows into scope-mismatch (its scope keys carry the
# user id); counting them apart makes a cross-member leak attempt visible in audit.
USER_MISMATCH = "user-mismatch"
SCOPE_MISMATCH = "scope-mismatch"
CRISIS_FRAME = "crisis-frame"
SENSITIVE_WITHOUT_CONSENT = "sensitive-category-without-consent"
SENSITIVE_OUTSIDE_CONTEXT = "sensitive-category-outside-relevant-context"
CONSUMER_NOT_ALLOWED = "consumer-not-allowed-for-scope"
FULL_CLEAR_PENDING = "full-clear-pending"
OFF_THE_RECORD = "off-the-record"
SCOPE_SUPPRESSED = "scope-suppressed"
DELETION_HOLD = "deletion-hold"
CROSS_DEVICE_REQUIRED = "cross-device-consent-required"
NOT_GRANTED = "no-granted-inspection"
# The member's own controls (`memory.controls`).
SURFACE_PAUSED = "surface-paused"
MEMBER_STOPPED_USE = "member-stopped-use"
AUTO_FORGOTTEN = "member-auto-forget"


def lifecycle_key(state: str) -> str:
    return f"lifecycle-{state}"


class InvalidRecallRequest(ValueError):
    """A request the pipeline refuses to run; ``code`` is stable for the API's 400."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


# --- scopes -----------------------------------------------------------------------

# The identifiers each scope kind carries, in the key string's order, are the wire
# contract's (`memory.contracts.SCOPE_IDENTIFIERS`, seed 001).


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


@dataclass(frozen=True, slots=True)
class Source:
    """A long-term entry a piece of content was derived from (a short-term row copied
    from it or pointing at it), as far as the gate asks: while the entry is withheld for
    its suppression, lifecycle or hold (checks 9-11), so is the content, under the
    entry's reason; a pause of the entry quiets its copies too."""

    entry_id: str
    lifecycle: str = Lifecycle.ACTIVE
    suppression: Suppression | None = None
    held: bool = False
    scope_kind: str = ""
    asserted_at: datetime | None = None  # its last assertion (what auto-forget counts from)


# --- where sensitive categories may surface ------------------------------------------

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


# --- what is read, by whom, in which state ---------------------------------------------


class ContentKind:
    """The kinds of member content a path can return."""

    ENTRY = "ltm-entry"  # a long-term entry (a session summary is one too)
    STM = "stm-row"  # a short-term (working memory) row
    TOKEN = "continuation-token"  # noqa: S105 - a content kind, not a secret
    TURN = "turn"  # a conversation turn

    ALL = (ENTRY, STM, TOKEN, TURN)


class ReaderKind:
    MEMBER = "member"  # the member, reading their own content
    SERVICE = "service"  # an assistant surface acting for the member
    OPERATOR = "operator"  # staff, only through a granted inspection


# Base consents of the kinds that are not memory entries: working memory is processing of
# the member's data (what its writes require); tokens carry references, never content.
_STM_CONSENTS = (BaseConsentType.DATA_PROCESSING.value,)
_EVERY_CONSENT = frozenset(CONSENT_TYPES)


@dataclass(frozen=True, slots=True)
class ContentItem:
    """One piece of a member's content, as the gate sees it (no text needed)."""

    kind: str
    item_id: str
    member_id: str
    scope: ScopeKey | None = None  # the memory kind and identifiers it lives in
    tenant_id: str | None = None
    category: str = ""
    lifecycle: str = Lifecycle.ACTIVE
    suppression: Suppression | None = None
    held: bool = False
    actor_sensitive: bool = False
    derived_from: tuple[Source, ...] = ()  # the entries it was derived from
    asserted_at: datetime | None = None  # long-term entries: their last assertion
    # Continuation tokens.
    sensitive: bool = False
    writer_client_id: str | None = None
    device_id: str = ""
    cross_device_consent_id: str | None = None


# Contexts that open sensitive memory only on the crisis path: the seed's crisis gate
# (a crisis frame in a safety-critical context). Claimed anywhere else they would open
# 18 of the 19 sensitive categories by a word, so there they count as `general`.
CONDITIONED_CONTEXTS = frozenset({RecallContext.SAFETY, RecallContext.CRISIS})


def applied_context(
    context: str,
    *,
    capabilities: Capabilities | None,
    crisis_frame: bool,
    safety_critical_context: bool,
) -> str:
    """The context a read is judged in: the claimed one if the reader may claim it and,
    for `safety` and `crisis`, only inside a crisis frame in a safety-critical context;
    otherwise `general` (a forged or unconditioned claim gets the general answer)."""
    if capabilities is not None and context not in capabilities.contexts:
        return RecallContext.GENERAL
    if context in CONDITIONED_CONTEXTS and not (crisis_frame and safety_critical_context):
        return RecallContext.GENERAL
    return context


@dataclass(frozen=True, slots=True)
class Reader:
    """Who reads, derived from the authenticated principal; request fields have already
    been checked against ``capabilities`` (outside them the API answers 403)."""

    kind: str
    member_id: str  # the member read about (a member reader: themself)
    capabilities: Capabilities | None = None  # service readers
    client_id: str | None = None  # the authenticated service client
    context: str = RecallContext.GENERAL
    scope: ScopeKey | None = None  # a recall's scope: reachability applies
    tenant_id: str | None = None
    crisis_frame: bool = False
    safety_critical_context: bool = False
    device_id: str | None = None  # narrows a client's own continuation tokens
    granted_ids: frozenset[str] = frozenset()  # operators: a granted inspection's ids

    def __post_init__(self) -> None:
        if self.kind == ReaderKind.SERVICE and self.capabilities is None:
            raise ValueError("a service reader carries its capabilities")

    @property
    def effective_context(self) -> str:
        """The context the gate applies (`applied_context`)."""
        return applied_context(
            self.context,
            capabilities=self.capabilities,
            crisis_frame=self.crisis_frame,
            safety_critical_context=self.safety_critical_context,
        )


@dataclass(frozen=True, slots=True)
class MemberState:
    """The member's consent and suppression state, from the ledger and their settings."""

    member_id: str
    consent_types: frozenset[str]  # every consent type in force (``category:x`` included)
    categories: frozenset[str]  # consented sensitive categories, after any narrowing
    multi_actor_consented: bool = False
    opt_outs: frozenset[str] = frozenset()
    clear_pending: bool = False
    off_the_record: bool = False  # for the reader's session, or everywhere
    cross_device_grant_id: str | None = None
    stopped_use: bool = False  # "Stop using my memories": no long-term memory is used
    paused_consumers: frozenset[str] = frozenset()  # surfaces that read nothing of theirs
    # "Forget automatically after…": (scope kind, days) of the member's choices.
    auto_forget_days: tuple[tuple[str, int], ...] = ()


@lru_cache(maxsize=4096)
def _kind_enabled(kind: str, consent_types: frozenset[str], opt_outs: frozenset[str]) -> bool:
    policy = evaluate_kind_policy(kind, active_consent_types=consent_types, opt_outs=opt_outs)
    return policy.enabled


@lru_cache(maxsize=1024)
def kind_opted_out(kind: str, opt_outs: frozenset[str]) -> bool:
    """Do the opt-outs alone suppress every scope of this kind (whatever is consented)?"""
    if not opt_outs:
        return False
    policy = evaluate_kind_policy(kind, active_consent_types=_EVERY_CONSENT, opt_outs=opt_outs)
    return not policy.enabled


def base_consents_hold(item_kind: str, scope_kind: str | None, state: MemberState) -> bool:
    """Do the member's base consents and opt-outs let content of this kind be used?
    Short-term rows need only ``data_processing``, but the opt-outs of the scope they are
    read in apply to them as to long-term memory."""
    if item_kind == ContentKind.STM:
        return all(c in state.consent_types for c in _STM_CONSENTS) and not (
            scope_kind is not None and kind_opted_out(scope_kind, state.opt_outs)
        )
    if item_kind == ContentKind.TOKEN or scope_kind is None:
        return True
    return _kind_enabled(scope_kind, state.consent_types, state.opt_outs)


def _pause_ended(item: ContentItem | Source, now: datetime) -> bool:
    """A timed pause whose end has passed: the item is active again."""
    suppression = item.suppression
    return (
        item.lifecycle == Lifecycle.PAUSED
        and suppression is not None
        and suppression.ends_at is not None
        and not suppression.is_active(now)
    )


def standing_reason(item: ContentItem | Source, now: datetime) -> str | None:
    """Checks 9-11 for an item or an entry it was derived from: an active suppression,
    then a lifecycle other than active (an ended timed pause is active), then a hold."""
    if item.suppression is not None and item.suppression.is_active(now):
        return item.suppression.reason
    if item.lifecycle != Lifecycle.ACTIVE and not _pause_ended(item, now):
        return lifecycle_key(item.lifecycle)
    if item.held:
        return DELETION_HOLD
    return None


def auto_forget_at(
    scope_kind: str, asserted_at: datetime | None, state: MemberState
) -> datetime | None:
    """When the member's auto-forget choice for the kind stops the use of something last
    asserted at ``asserted_at`` (the instant the retention sweep erases it from,
    `memory.sweeps.auto_forget.member_auto_forget_apply`); ``None`` without a choice."""
    if asserted_at is None:
        return None
    for kind, days in state.auto_forget_days:
        if kind == scope_kind:
            return asserted_at + timedelta(days=days)
    return None


def auto_forgotten(
    scope_kind: str, asserted_at: datetime | None, state: MemberState, now: datetime
) -> bool:
    ends = auto_forget_at(scope_kind, asserted_at, state)
    return ends is not None and ends < now


def sensitive_reason(
    category: str, actor_sensitive: bool, *, state: MemberState, context: str
) -> str | None:
    """Consent first, then context; an item both sensitive by category and by a
    sensitive multi-actor interaction must pass both."""
    category_sensitive = category in SENSITIVE_CATEGORIES
    if not (category_sensitive or actor_sensitive):
        return None
    if (category_sensitive and category not in state.categories) or (
        actor_sensitive and not state.multi_actor_consented
    ):
        return SENSITIVE_WITHOUT_CONSENT
    if (category_sensitive and context not in SENSITIVE_CONTEXTS[category]) or (
        actor_sensitive and context not in MULTI_ACTOR_SENSITIVE_CONTEXTS
    ):
        return SENSITIVE_OUTSIDE_CONTEXT
    return None


def kind_reason(
    item_kind: str, scope_kind: str | None, reader: Reader, state: MemberState
) -> str | None:
    """Checks 4-7 for a service reader: whether content of ``item_kind`` living in
    ``scope_kind`` is withheld as a whole, whatever the item, and why (``None``: each
    item still goes through the rest of ``decide``)."""
    if reader.capabilities.consumer in state.paused_consumers:
        return SURFACE_PAUSED
    if scope_kind is not None and scope_kind not in reader.capabilities.read_kinds:
        return CONSUMER_NOT_ALLOWED
    if item_kind != ContentKind.TOKEN:
        if state.clear_pending:
            return FULL_CLEAR_PENDING
        if state.off_the_record:
            return OFF_THE_RECORD
    if state.stopped_use and item_kind == ContentKind.ENTRY:
        return MEMBER_STOPPED_USE
    if not base_consents_hold(item_kind, scope_kind, state):
        return SCOPE_SUPPRESSED
    return None


def decide(item: ContentItem, reader: Reader, state: MemberState, now: datetime) -> str | None:
    """``None`` when ``reader`` may see ``item`` now, else the reason it is withheld."""
    gate_consulted(item.kind)
    if reader.kind == ReaderKind.MEMBER:
        return None if item.member_id == reader.member_id else USER_MISMATCH
    if reader.kind == ReaderKind.OPERATOR:
        if item.member_id != reader.member_id:
            return USER_MISMATCH
        return None if item.item_id in reader.granted_ids else NOT_GRANTED
    if reader.kind != ReaderKind.SERVICE:
        return USER_MISMATCH  # an unknown reader sees nothing
    return _service_reason(item, reader, state, now)


def _service_reason(
    item: ContentItem, reader: Reader, state: MemberState, now: datetime
) -> str | None:
    # 1-3. Tenant, owner, reachability.
    item_tenant = item.tenant_id or (item.scope.tenant_id if item.scope else None)
    if item_tenant is not None and item_tenant != reader.tenant_id:
        return TENANT_MISMATCH
    if (
        item.member_id != reader.member_id
        or state.member_id != item.member_id
        or (item.scope is not None and item.scope.user_id != reader.member_id)
    ):
        return USER_MISMATCH
    if (
        reader.scope is not None
        and item.scope is not None
        and not is_reachable(item.scope, reader.scope, tenant_id=reader.tenant_id)
    ):
        return SCOPE_MISMATCH
    # 4-7. The kind: the reader's allow-list, then the member's state.
    reason = kind_reason(item.kind, item.scope.kind if item.scope else None, reader, state)
    if reason is not None:
        return reason
    # 7b. A short-term copy of long-term memory is long-term memory the member stopped.
    if state.stopped_use and item.kind == ContentKind.STM and item.derived_from:
        return MEMBER_STOPPED_USE
    # 8. Crisis frame: only safety items, and only in a safety-critical context.
    if (
        reader.crisis_frame
        and item.kind != ContentKind.TOKEN
        and not (reader.safety_critical_context and item.category == MemoryCategory.SAFETY)
    ):
        return CRISIS_FRAME
    # 9-11. Suppression, lifecycle, holds, auto-forget: the item's own, then each of its
    # sources'.
    subjects = (
        (item, item.scope.kind if item.scope else ""),
        *((source, source.scope_kind) for source in item.derived_from),
    )
    for subject, scope_kind in subjects:
        reason = standing_reason(subject, now)
        if reason is None and auto_forgotten(scope_kind, subject.asserted_at, state, now):
            reason = AUTO_FORGOTTEN
        if reason is not None:
            return reason
    # 12. Sensitive categories and sensitive multi-actor interactions.
    reason = sensitive_reason(
        item.category, item.actor_sensitive, state=state, context=reader.effective_context
    )
    if reason is not None:
        return reason
    # 13. A sensitive continuation token stays on the device that wrote it.
    if item.kind == ContentKind.TOKEN and item.sensitive:
        own_device = (
            item.writer_client_id is not None
            and item.writer_client_id == reader.client_id
            and reader.device_id is not None
            and reader.device_id == item.device_id
        )
        granted = (
            item.cross_device_consent_id is not None
            and item.cross_device_consent_id == state.cross_device_grant_id
        )
        if not (own_device or granted):
            return CROSS_DEVICE_REQUIRED
    return None


def visible(item: ContentItem, reader: Reader, state: MemberState, now: datetime) -> bool:
    return decide(item, reader, state, now) is None
