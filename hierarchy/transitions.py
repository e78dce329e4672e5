"""The memory hierarchy's named transitions (seed 004, "Transition matrix"), as one table.

Every move between tiers (or within one) has a code, a service that performs it and the
audit event that records it. Services ask `transition_check(source, target, operation)`
before they act and put the code in their audit payload. Anything not in the table is
refused: the four illegal transitions with their own reasons, everything else as
`unknown-transition`. Pure: no Django import, tested without a database.

Iris's long-term tier is the member's `MemoryEntry` store, so "archive" is a tombstone
and "anonymize" is the purge that keeps only ids (ARCHITECTURE.md, "hierarchy").
"""

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from iris_site.audit.actions import AuditAction
from iris_site.errors import Conflict


class Tier(StrEnum):
    SOURCE = "source"  # a surface, an agent, the member, an operator tool
    EPISODIC = "episodic"  # the append-only audit chain
    STM = "stm"  # short-term working memory (hierarchy.ShortTermMemory)
    LTM = "ltm"  # long-term memory (memory.MemoryEntry + entities)
    READER = "reader"  # whoever reads: a surface, the bundle, an operator


class TransitionKind(StrEnum):
    WRITE = "write"
    READ = "read"
    RECOVERY = "recovery"
    DELETION = "deletion"


@dataclass(frozen=True, slots=True)
class Transition:
    """One named move. Audit payloads carry `code.lower()` (the chain keeps lowercase tokens)."""

    code: str
    name: str
    kind: TransitionKind
    source: Tier
    target: Tier
    operation: str
    service: str | None  # dotted path of the function that performs it
    audit_action: AuditAction | None  # the episodic event it writes
    retention: str


@dataclass(frozen=True, slots=True)
class IllegalRule:
    code: str
    source: Tier
    target: Tier | None  # None: any writable tier
    operation: str | None  # None: any operation
    message: str
    admin_override: str | None = None  # the transition an admin override turns it into


class IllegalTransition(Conflict):
    """A move between tiers the hierarchy never makes; fails closed with a 409."""

    code = "illegal-transition"

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(message, code="illegal-transition", fields={"transition": [rule]})


W, R, RC, D = (
    TransitionKind.WRITE,
    TransitionKind.READ,
    TransitionKind.RECOVERY,
    TransitionKind.DELETION,
)
S, E, STM, LTM, READER = Tier.SOURCE, Tier.EPISODIC, Tier.STM, Tier.LTM, Tier.READER
A = AuditAction

TRANSITIONS: tuple[Transition, ...] = (
    # --- write side ---------------------------------------------------------------------
    Transition("T1", "source-to-episodic", W, S, E, "record",
               "iris_site.audit.events.audit_event_append", "*", "append-only, indefinite"),
    Transition("T2", "source-to-stm", W, S, STM, "write",
               "hierarchy.stm.stm_write", A.HIERARCHY_STM_WRITTEN, "ttl per scope_kind"),
    Transition("T3", "stm-refresh", W, STM, STM, "refresh",
               "hierarchy.stm.stm_refresh", A.HIERARCHY_STM_REFRESHED, "ttl restarts, capped"),
    Transition("T4", "source-to-ltm", W, S, LTM, "remember",
               "memory.services.memory_remember", A.MEMORY_ENTRY_CREATED, "retention envelope"),
    Transition("T5", "stm-to-ltm-consolidate", W, STM, LTM, "consolidate",
               "hierarchy.consolidation.stm_consolidate", A.HIERARCHY_STM_CONSOLIDATED,
               "retention envelope of the target scope"),
    Transition("T6", "ltm-supersede", W, LTM, LTM, "supersede",
               "memory.services.memory_remember", A.MEMORY_ENTRY_SUPERSEDED,
               "superseded revision kept"),
    Transition("T7", "ltm-to-stm-demote", W, LTM, STM, "demote",
               "hierarchy.stm.stm_demote", A.HIERARCHY_STM_DEMOTED, "ttl per scope_kind"),
    # --- read side ----------------------------------------------------------------------
    Transition("R1", "episodic-read", R, E, READER, "read",
               "hierarchy.operator.stm_replay", A.HIERARCHY_REPLAY_READ, "-"),
    Transition("R2", "stm-read", R, STM, READER, "read",
               "hierarchy.stm.stm_read", A.HIERARCHY_STM_READ, "-"),
    Transition("R3", "ltm-read", R, LTM, READER, "read",
               "memory.recall.service.recall_run", A.MEMORY_RECALL_RESOLVED, "-"),
    Transition("R4", "context-bundle", R, READER, READER, "bundle",
               "hierarchy.bundle.get_context_bundle", A.HIERARCHY_BUNDLE_RESOLVED, "30 s cache"),
    # --- recovery -----------------------------------------------------------------------
    Transition("RC1", "audit-replay-to-stm-reconstruction", RC, E, READER, "reconstruct",
               "hierarchy.operator.stm_reconstruct",
               A.HIERARCHY_REPLAY_RECONSTRUCTED, "derived, never stored"),
    Transition("RC2", "ltm-history", RC, LTM, READER, "history",
               "hierarchy.operator.ltm_history",
               A.HIERARCHY_LTM_HISTORY_READ, "-"),
    Transition("RC3", "ltm-to-stm-workbench-seed", RC, LTM, STM, "seed",
               "hierarchy.stm.stm_demote", A.HIERARCHY_STM_DEMOTED, "admin_session ttl"),
    # --- deletion -----------------------------------------------------------------------
    Transition("D1", "stm-ttl-delete", D, STM, STM, "expire",
               "hierarchy.stm.stm_expire_due", A.HIERARCHY_STM_DELETED, "hard delete"),
    Transition("D2", "stm-anonymize-sensitive", D, STM, STM, "anonymize",
               "hierarchy.stm.stm_expire_due", A.HIERARCHY_STM_ANONYMIZED,
               "content erased, metadata kept"),
    Transition("D3", "ltm-archive", D, LTM, LTM, "archive",
               "memory.forgetting.services.memory_tombstone", A.MEMORY_ENTRY_TOMBSTONED,
               "tombstone until purge"),
    Transition("D4", "ltm-anonymize", D, LTM, LTM, "anonymize",
               "memory.forgetting.services.memory_purge_entries", A.MEMORY_ENTRIES_PURGED,
               "ids only"),
    # Episodic events are never deleted: listed so the matrix is complete, never performed.
    Transition("D5", "episodic-never", D, E, E, "delete", None, None, "append-only"),
)  # fmt: skip

ILLEGAL: tuple[IllegalRule, ...] = (
    IllegalRule(
        "source-to-episodic-bypass",
        S,
        E,
        "record-tier-event",
        "Source → Episodic bypassing the originating tier: a tier's events are written by "
        "the tier's own service as it acts, never by a caller on its behalf.",
    ),
    IllegalRule(
        "stm-cross-scope",
        STM,
        STM,
        "move",
        "STM → STM across scopes: short-term rows stay in the scope they were written in "
        "(an admin override with a justification is the only exception).",
        admin_override="STM-X",
    ),
    IllegalRule(
        "ltm-direct-rewrite",
        LTM,
        LTM,
        "rewrite",
        "LTM → LTM direct content rewrite: a long-term entry changes only by a new revision "
        "that supersedes it.",
    ),
    IllegalRule(
        "episodic-to-writable",
        E,
        None,
        None,
        "Episodic → a writable tier: a replay produces derived data and never writes "
        "short-term or long-term memory.",
    ),
)

# The admin-only override of `stm-cross-scope`: audited, justified, never a default.
ADMIN_OVERRIDES: Mapping[str, Transition] = MappingProxyType(
    {
        "STM-X": Transition(
            "STM-X",
            "stm-cross-scope-admin-override",
            W,
            STM,
            STM,
            "move",
            "hierarchy.stm.stm_rescope",
            A.HIERARCHY_STM_ADMIN_RESCOPED,
            "ttl of the new scope",
        )
    }
)

WRITABLE_TIERS = frozenset({STM, LTM})
_BY_CODE: Mapping[str, Transition] = MappingProxyType({t.code: t for t in TRANSITIONS})
_BY_MOVE: Mapping[tuple[str, str, str], Transition] = MappingProxyType(
    {(t.source, t.target, t.operation): t for t in TRANSITIONS}
)
# Action prefixes owned by a tier: only that tier's services may record them.
TIER_ACTION_PREFIXES: Mapping[str, Tier] = MappingProxyType(
    {"hierarchy.stm.": STM, "memory.entry.": LTM, "memory.entries.": LTM}
)


def transition(code: str) -> Transition:
    try:
        return _BY_CODE[code]
    except KeyError:
        raise IllegalTransition("unknown-transition", f"No transition is named {code!r}.") from None


def _illegal_rule(source: str, target: str, operation: str) -> IllegalRule | None:
    for rule in ILLEGAL:
        if rule.source != source:
            continue
        if rule.target is None and target in WRITABLE_TIERS:
            return rule
        if rule.target == target and rule.operation in (None, operation):
            return rule
    return None


def transition_check(
    source: str, target: str, operation: str, *, admin_override: bool = False
) -> Transition:
    """The named transition for this move, or IllegalTransition (fail closed)."""
    rule = _illegal_rule(source, target, operation)
    if rule is not None:
        if admin_override and rule.admin_override:
            return ADMIN_OVERRIDES[rule.admin_override]
        raise IllegalTransition(rule.code, rule.message)
    found = _BY_MOVE.get((source, target, operation))
    if found is not None and found.service is None:
        raise IllegalTransition(
            found.name, "Episodic events are never deleted: the chain is append-only."
        )
    if found is None:
        raise IllegalTransition(
            "unknown-transition",
            f"The hierarchy has no transition {source} → {target} ({operation}).",
        )
    return found


def tier_of_action(action: str) -> Tier | None:
    for prefix, tier in TIER_ACTION_PREFIXES.items():
        if action.startswith(prefix):
            return tier
    return None


def episodic_record_check(*, action: str, origin_tier: str) -> Transition:
    """May `origin_tier` record `action` on the chain? A tier's own events (e.g.
    `hierarchy.stm.written`) come only from that tier; a source recording one is the bypass."""
    owner = tier_of_action(action)
    if owner is not None and owner != origin_tier:
        return transition_check(Tier.SOURCE, Tier.EPISODIC, "record-tier-event")
    return _BY_CODE["T1"]
