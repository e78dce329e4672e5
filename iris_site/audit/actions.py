"""The audit vocabulary: every action the episodic chain records, declared once.

One scheme, `<app>.<entity>.<verb>`: the label of the Django app that owns the event,
the thing it is about, what happened to it; each part lowercase snake_case. A member's
name is its value upper-cased with `_` for `.` (`MEMORY_ENTRY_CREATED`), so a writer and
a reader say the same thing. `audit_event_append` refuses an action not declared here.

Rows written before the vocabulary keep the names they were stored under: the chain's
hashes and the signed checkpoints cover them. `LEGACY_NAMES` maps each old name to the
action it became; whatever filters, counts or words events by action reads through
`stored_names` / `names_under` (or `iris_site.audit.selectors.action_q`) and
`current_name`, so it finds and shows old rows and new ones alike.

Policy ids, stored beside the action, follow one spelling too: `iris.<app>.<policy>.v<n>`
(`POLICY_ID_SCHEME`); rows keep the policy id they were written under.

Pure: no Django import, tested without a database.
"""

import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from types import MappingProxyType

# The Django apps that own events (`INSTALLED_APPS`' own labels).
APPS = (
    "iris_site",
    "consent",
    "memory",
    "continuity",
    "datarights",
    "inspection",
    "hierarchy",
    "console",
    "interfaces",
    "webhooks",
)
_APP = "(?:" + "|".join(APPS) + ")"
_PART = r"[a-z][a-z0-9_]*"
ACTION_SCHEME = re.compile(rf"^{_APP}\.{_PART}\.{_PART}$")
POLICY_ID_SCHEME = re.compile(rf"^iris\.{_APP}\.{_PART}\.v[1-9][0-9]*$")


class AuditAction(StrEnum):
    """Every action an event may carry (`<app>.<entity>.<verb>`)."""

    # --- iris_site: the foundation -------------------------------------------------------
    IRIS_SITE_IDEMPOTENCY_RECORDS_PURGED = "iris_site.idempotency_records.purged"
    IRIS_SITE_AUDIT_BENCH_APPENDED = "iris_site.audit_bench.appended"  # `bench_audit`
    # Written once, by migration hierarchy 0005 (under its old name), never since.
    IRIS_SITE_AUDIT_CHAINS_RECHAINED = "iris_site.audit_chains.rechained"
    # An operator listed a member's audit events (`iris_site.audit.listing`), in that
    # member's chain: the lister's id and role, where, the cover, counts; never a value.
    IRIS_SITE_AUDIT_EVENTS_LISTED = "iris_site.audit_events.listed"
    # Operator accounts and roles (`iris_site.operators`), on the platform chain: ids,
    # kinds, roles and tenant ids only, never an email address.
    IRIS_SITE_OPERATOR_ACCOUNT_CREATED = "iris_site.operator_account.created"
    IRIS_SITE_OPERATOR_ACCOUNT_ROLE_CHANGED = "iris_site.operator_account.role_changed"
    IRIS_SITE_OPERATOR_ACCOUNT_TENANT_CHANGED = "iris_site.operator_account.tenant_changed"
    IRIS_SITE_OPERATOR_ACCOUNT_DEACTIVATED = "iris_site.operator_account.deactivated"
    IRIS_SITE_OPERATOR_ACCOUNT_REACTIVATED = "iris_site.operator_account.reactivated"
    # A change that would let its subject approve a four-eyes step waits for a second admin.
    IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_REQUESTED = "iris_site.operator_account.change_requested"
    IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_APPROVED = "iris_site.operator_account.change_approved"
    IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_REFUSED = "iris_site.operator_account.change_refused"
    # An attempt the service refused (a linked decider, a bypassing save, not an admin).
    IRIS_SITE_OPERATOR_ACCOUNT_CHANGE_REJECTED = "iris_site.operator_account.change_rejected"
    # Encryption at rest (`iris_site.keys`): a sealed value that failed authentication,
    # once per request and member (critical: an operator alert; the columns and a count,
    # never a value); a key-encryption key rotation's re-wrap (counts per KEK id).
    IRIS_SITE_SEALED_VALUE_UNREADABLE = "iris_site.sealed_value.unreadable"
    IRIS_SITE_MEMBER_KEYS_REWRAPPED = "iris_site.member_keys.rewrapped"
    # `keys_encrypt`: content written before encryption sealed in place (counts per model).
    IRIS_SITE_CONTENT_SEALED = "iris_site.content.sealed"
    # `audit_deployment --new`: this database took a new deployment id for its audit
    # checkpoints (a restored copy beside its original): both ids, two checkpoint numbers.
    IRIS_SITE_DEPLOYMENT_RENEWED = "iris_site.deployment.renewed"

    # --- consent -------------------------------------------------------------------------
    # `consent.event.<ConsentEventKind>`
    CONSENT_EVENT_GRANT = "consent.event.grant"
    CONSENT_EVENT_WITHDRAWAL = "consent.event.withdrawal"
    CONSENT_EVENT_EXPIRY = "consent.event.expiry"
    CONSENT_EVENT_DENIAL = "consent.event.denial"
    CONSENT_LEDGER_BROKEN = "consent.ledger.broken"
    CONSENT_LEDGER_PURGED = "consent.ledger.purged"
    CONSENT_OPT_OUT_RECORDED = "consent.opt_out.recorded"

    # --- memory: long-term memory, its controls, sweeps and forgetting ---------------------
    # `memory.entry.<EntryAuditAction>`: one per revision an entry gets.
    MEMORY_ENTRY_CREATED = "memory.entry.created"
    MEMORY_ENTRY_EDITED = "memory.entry.edited"
    MEMORY_ENTRY_CONFIRMED = "memory.entry.confirmed"
    MEMORY_ENTRY_PAUSED = "memory.entry.paused"
    MEMORY_ENTRY_RESUMED = "memory.entry.resumed"
    MEMORY_ENTRY_SCOPE_CHANGED = "memory.entry.scope_changed"
    MEMORY_ENTRY_PROMOTED = "memory.entry.promoted"
    MEMORY_ENTRY_SUPERSEDED = "memory.entry.superseded"
    MEMORY_ENTRY_SUMMARIZED = "memory.entry.summarized"
    MEMORY_ENTRY_TOMBSTONED = "memory.entry.tombstoned"
    MEMORY_ENTRIES_ERASED = "memory.entries.erased"
    MEMORY_ENTRIES_PURGED = "memory.entries.purged"
    MEMORY_ENTRIES_FORGOTTEN_SELECTED = "memory.entries.forgotten_selected"
    MEMORY_ENTRIES_HELD = "memory.entries.held"
    MEMORY_ENTRIES_RELEASED = "memory.entries.released"
    MEMORY_TURNS_HELD = "memory.turns.held"
    MEMORY_TURNS_RELEASED = "memory.turns.released"
    MEMORY_MEMBER_CONTENT_PURGED = "memory.member_content.purged"
    # Crypto-shredding (`memory.forgetting.shredding`) after erasing everything of a
    # member: their data keys destroyed (generations, counts); kept while anything of
    # theirs is still sealed (held content: the tables and counts); a destroy that failed
    # after the erasure committed (critical: retried at the member's next purge).
    MEMORY_MEMBER_KEYS_SHREDDED = "memory.member_keys.shredded"
    MEMORY_MEMBER_KEYS_KEPT = "memory.member_keys.kept"
    MEMORY_MEMBER_KEYS_SHRED_FAILED = "memory.member_keys.shred_failed"
    MEMORY_FORGOTTEN_RESTATED = "memory.forgotten.restated"
    MEMORY_CONFLICT_RESOLVED = "memory.conflict.resolved"
    MEMORY_CONFLICT_ANSWERED = "memory.conflict.answered"  # "should I update?" answered
    MEMORY_RECONFIRM_ANSWERED = "memory.reconfirm.answered"
    MEMORY_PROMOTION_ANSWERED = "memory.promotion.answered"  # issue 47: "Iris added this"
    MEMORY_CATEGORY_FORGOTTEN = "memory.category.forgotten"
    MEMORY_CLEAR_REQUESTED = "memory.clear.requested"
    MEMORY_CLEAR_CANCELLED = "memory.clear.cancelled"
    MEMORY_CLEAR_PURGED = "memory.clear.purged"
    MEMORY_OFF_THE_RECORD_CHANGED = "memory.off_the_record.changed"
    MEMORY_SENSITIVE_INTERACTIONS_FORGOTTEN = "memory.sensitive_interactions.forgotten"
    MEMORY_SERVICE_CLIENT_CAPABILITIES_SET = "memory.service_client_capabilities.set"
    MEMORY_SETTINGS_CHANGED = "memory.settings.changed"
    MEMORY_TURN_APPENDED = "memory.turn.appended"
    MEMORY_TURNS_COMPACTED = "memory.turns.compacted"
    MEMORY_TURNS_PURGED = "memory.turns.purged"
    MEMORY_RECALL_RESOLVED = "memory.recall.resolved"
    MEMORY_RECALLS_SCRUBBED = "memory.recalls.scrubbed"
    MEMORY_RETENTION_COMPACTED = "memory.retention.compacted"
    MEMORY_RETENTION_DECAYED = "memory.retention.decayed"
    MEMORY_RETENTION_REVIEW_DUE = "memory.retention.review_due"
    MEMORY_RETENTION_REVIEW_DECIDED = "memory.retention.review_decided"
    MEMORY_RETENTION_SWEPT = "memory.retention.swept"
    MEMORY_RETENTION_MEMBER_AUTO_FORGET = "memory.retention.member_auto_forget"
    MEMORY_NOTEBOOK_FORGOTTEN = "memory.notebook.forgotten"
    MEMORY_NOTEBOOK_CLOSED = "memory.notebook.closed"  # no new writes; erased after grace
    MEMORY_NOTEBOOK_DELETED = "memory.notebook.deleted"  # its memory erased (now or by the sweep)
    MEMORY_CONVERSATION_FORGOTTEN = "memory.conversation.forgotten"  # one session, ids and counts
    MEMORY_ENTITY_CREATE = "memory.entity.create"
    MEMORY_ENTITY_STATE_TRANSITION = "memory.entity.state_transition"
    MEMORY_ENTITY_ARCHIVED = "memory.entity.archived"  # what an archived entity still holds
    MEMORY_ENTITY_RETIRE_ATTEMPTED = "memory.entity.retire_attempted"
    MEMORY_ACTOR_FORGOTTEN = "memory.actor.forgotten"
    # A write any surface asked for and a policy or permission refused
    # (`iris_site.audit.refusals`, the one writer).
    MEMORY_WRITE_REFUSED = "memory.write.refused"

    # --- continuity ----------------------------------------------------------------------
    CONTINUITY_TOKEN_WRITTEN = "continuity.token.written"  # noqa: S105 (an action, no secret)
    CONTINUITY_TOKENS_ERASED = "continuity.tokens.erased"
    CONTINUITY_NOTICE_RAISED = "continuity.notice.raised"
    CONTINUITY_NOTICE_DELIVERED = "continuity.notice.delivered"
    CONTINUITY_CROSS_DEVICE_ENDED = "continuity.cross_device.ended"
    CONTINUITY_HOUSEKEEPING_PURGED = "continuity.housekeeping.purged"

    # --- datarights ----------------------------------------------------------------------
    # `datarights.request.<TrailEvent>` (hyphens as underscores): one per trail row.
    DATARIGHTS_REQUEST_SUBMITTED = "datarights.request.submitted"
    DATARIGHTS_REQUEST_VERIFIED = "datarights.request.verified"
    DATARIGHTS_REQUEST_IN_PROGRESS = "datarights.request.in_progress"
    DATARIGHTS_REQUEST_COMPLETED = "datarights.request.completed"
    DATARIGHTS_REQUEST_FAILED = "datarights.request.failed"
    DATARIGHTS_REQUEST_CANCELLED = "datarights.request.cancelled"
    DATARIGHTS_REQUEST_EXPIRED = "datarights.request.expired"
    DATARIGHTS_REQUEST_APPEALED = "datarights.request.appealed"
    DATARIGHTS_REQUEST_CODE_ISSUED = "datarights.request.code_issued"
    DATARIGHTS_REQUEST_CODE_REJECTED = "datarights.request.code_rejected"
    DATARIGHTS_REQUEST_CODE_DESTROYED = "datarights.request.code_destroyed"
    DATARIGHTS_REQUEST_EXTENDED = "datarights.request.extended"
    DATARIGHTS_REQUEST_STEP_COMPLETED = "datarights.request.step_completed"
    DATARIGHTS_REQUEST_HELD = "datarights.request.held"
    DATARIGHTS_REQUEST_REACTIVATED = "datarights.request.reactivated"
    DATARIGHTS_REQUEST_DOWNLOADED = "datarights.request.downloaded"
    DATARIGHTS_REQUEST_ARTIFACT_REMOVED = "datarights.request.artifact_removed"
    DATARIGHTS_REQUEST_MAIL_UNDELIVERED = "datarights.request.mail_undelivered"
    DATARIGHTS_PROCESSING_STUCK = "datarights.processing.stuck"
    DATARIGHTS_FORGET_CHECK_FAILED = "datarights.forget_check.failed"

    # --- inspection: operators' inspections of a member's memory ------------------------
    INSPECTION_REQUEST_TRANSITIONED = "inspection.request.transitioned"
    INSPECTION_REQUEST_TRANSITION_REJECTED = "inspection.request.transition_rejected"
    INSPECTION_SNAPSHOT_PINNED = "inspection.snapshot.pinned"
    INSPECTION_SNAPSHOT_READ = "inspection.snapshot.read"
    INSPECTION_SNAPSHOT_READ_REFUSED = "inspection.snapshot.read_refused"
    INSPECTION_NOTICE_QUEUED = "inspection.notice.queued"
    INSPECTION_NOTICE_DELIVERED = "inspection.notice.delivered"
    INSPECTION_COPILOT_NOTE_ADDED = "inspection.copilot_note.added"
    INSPECTION_COPILOT_NOTE_REFUSED = "inspection.copilot_note.refused"

    # --- hierarchy: short-term memory, the bundle, the operators' views of the tiers ------
    HIERARCHY_STM_WRITTEN = "hierarchy.stm.written"
    HIERARCHY_STM_REFRESHED = "hierarchy.stm.refreshed"
    HIERARCHY_STM_DEMOTED = "hierarchy.stm.demoted"
    HIERARCHY_STM_RESCOPED = "hierarchy.stm.rescoped"
    HIERARCHY_STM_READ = "hierarchy.stm.read"
    HIERARCHY_STM_EXPIRED = "hierarchy.stm.expired"
    HIERARCHY_STM_CONSOLIDATED = "hierarchy.stm.consolidated"
    HIERARCHY_STM_SIGNAL_TRIGGERED = "hierarchy.stm.signal_triggered"
    HIERARCHY_STM_CONSOLIDATION_REFUSED = "hierarchy.stm.consolidation_refused"
    HIERARCHY_STM_ANONYMIZED = "hierarchy.stm.anonymized"
    HIERARCHY_STM_DELETED = "hierarchy.stm.deleted"
    HIERARCHY_STM_PURGED = "hierarchy.stm.purged"
    HIERARCHY_STM_HELD = "hierarchy.stm.held"  # a soft delete hides rows of its extent
    HIERARCHY_STM_RELEASED = "hierarchy.stm.released"  # ... and its cancel shows them again
    HIERARCHY_STM_ADMIN_RESCOPED = "hierarchy.stm.admin_rescoped"  # justified
    HIERARCHY_STM_ADMIN_READ = "hierarchy.stm.admin_read"  # justified
    HIERARCHY_STM_CONSOLIDATE_REQUESTED = "hierarchy.stm.consolidate_requested"  # the CLI
    HIERARCHY_LTM_DEMOTE_REQUESTED = "hierarchy.ltm.demote_requested"  # the CLI
    HIERARCHY_LTM_READ = "hierarchy.ltm.read"  # justified
    HIERARCHY_LTM_HISTORY_READ = "hierarchy.ltm_history.read"  # justified
    HIERARCHY_CONSOLIDATION_JOB_STARTED = "hierarchy.consolidation_job.started"
    HIERARCHY_CONSOLIDATION_JOB_COMPLETED = "hierarchy.consolidation_job.completed"
    HIERARCHY_CONSOLIDATION_JOB_FAILED = "hierarchy.consolidation_job.failed"
    HIERARCHY_BUNDLE_RESOLVED = "hierarchy.bundle.resolved"
    HIERARCHY_QUESTIONS_READ = "hierarchy.questions.read"
    HIERARCHY_COUNTS_READ = "hierarchy.counts.read"
    HIERARCHY_REPLAY_READ = "hierarchy.replay.read"
    HIERARCHY_REPLAY_RECONSTRUCTED = "hierarchy.replay.reconstructed"
    HIERARCHY_CLI_INVOKED = "hierarchy.cli.invoked"
    HIERARCHY_FRESHNESS_CONFIDENCE_ENQUEUED = "hierarchy.freshness_confidence.enqueued"
    HIERARCHY_FRESHNESS_CONFIDENCE_TICKED = "hierarchy.freshness_confidence.ticked"
    HIERARCHY_FRESHNESS_CONFIDENCE_RESOLVED = "hierarchy.freshness_confidence.resolved"

    # --- webhooks: change events delivered to the surfaces' endpoints ---------------------
    WEBHOOKS_ENDPOINT_SET = "webhooks.endpoint.set"  # ids and the URL's host
    # An action, no secret; its payload never holds the secret either.
    WEBHOOKS_ENDPOINT_SECRET_ROTATED = "webhooks.endpoint.secret_rotated"  # noqa: S105
    WEBHOOKS_ENDPOINT_DISABLED = "webhooks.endpoint.disabled"
    WEBHOOKS_DELIVERIES_RETRIED = "webhooks.deliveries.retried"  # dead ones, a count
    WEBHOOKS_DELIVERIES_DEAD_LETTERED = "webhooks.deliveries.dead_lettered"  # a count

    @classmethod
    def of(cls, entity: str, token: str) -> "AuditAction":
        """The action `<entity>.<token>` for an enum value that names the verb, spelt with
        hyphens where the scheme has underscores (a revision's `scope-changed`, a
        data-rights trail's `step-completed`). ValueError if it is not declared."""
        return cls(f"{entity}.{token.replace('-', '_')}")


A = AuditAction
# Every name an action was stored under before the vocabulary, and the action it is now.
# Only renamed actions appear; the others kept their names.
LEGACY_NAMES: Mapping[str, AuditAction] = MappingProxyType(
    {
        # iris_site
        "idempotency.records.purged": A.IRIS_SITE_IDEMPOTENCY_RECORDS_PURGED,
        "bench.audit.appended": A.IRIS_SITE_AUDIT_BENCH_APPENDED,
        "audit.chains.rechained": A.IRIS_SITE_AUDIT_CHAINS_RECHAINED,
        # memory
        "memory.entry.scope-changed": A.MEMORY_ENTRY_SCOPE_CHANGED,
        "memory.govern.archived_entity_audit": A.MEMORY_ENTITY_ARCHIVED,
        "memory.govern.retire_attempt": A.MEMORY_ENTITY_RETIRE_ATTEMPTED,
        # datarights
        "datarights.request.in-progress": A.DATARIGHTS_REQUEST_IN_PROGRESS,
        "datarights.request.code-issued": A.DATARIGHTS_REQUEST_CODE_ISSUED,
        "datarights.request.code-rejected": A.DATARIGHTS_REQUEST_CODE_REJECTED,
        "datarights.request.code-destroyed": A.DATARIGHTS_REQUEST_CODE_DESTROYED,
        "datarights.request.step-completed": A.DATARIGHTS_REQUEST_STEP_COMPLETED,
        "datarights.request.artifact-removed": A.DATARIGHTS_REQUEST_ARTIFACT_REMOVED,
        "datarights.request.mail-undelivered": A.DATARIGHTS_REQUEST_MAIL_UNDELIVERED,
        "datarights.forget-check.failed": A.DATARIGHTS_FORGET_CHECK_FAILED,
        # inspection
        "iris.admin_inspection.transition": A.INSPECTION_REQUEST_TRANSITIONED,
        "iris.admin_inspection.transition_rejected": A.INSPECTION_REQUEST_TRANSITION_REJECTED,
        "iris.admin_inspection.snapshot_pinned": A.INSPECTION_SNAPSHOT_PINNED,
        "iris.admin_inspection.read": A.INSPECTION_SNAPSHOT_READ,
        "iris.admin_inspection.read_refused": A.INSPECTION_SNAPSHOT_READ_REFUSED,
        "iris.admin_inspection.notice_queued": A.INSPECTION_NOTICE_QUEUED,
        "iris.admin_inspection.notice_delivered": A.INSPECTION_NOTICE_DELIVERED,
        "iris.admin_inspection.copilot_note": A.INSPECTION_COPILOT_NOTE_ADDED,
        "iris.admin_inspection.copilot_note_refused": A.INSPECTION_COPILOT_NOTE_REFUSED,
        # hierarchy
        "memory.stm.write": A.HIERARCHY_STM_WRITTEN,
        "memory.stm.refreshed": A.HIERARCHY_STM_REFRESHED,
        "memory.stm.demoted": A.HIERARCHY_STM_DEMOTED,
        "memory.stm.rescoped": A.HIERARCHY_STM_RESCOPED,
        "memory.stm.read": A.HIERARCHY_STM_READ,
        "memory.stm.expired": A.HIERARCHY_STM_EXPIRED,
        "memory.stm.consolidated": A.HIERARCHY_STM_CONSOLIDATED,
        "memory.stm.signal_triggered": A.HIERARCHY_STM_SIGNAL_TRIGGERED,
        "memory.stm.consolidation_refused": A.HIERARCHY_STM_CONSOLIDATION_REFUSED,
        "memory.stm.anonymized": A.HIERARCHY_STM_ANONYMIZED,
        "memory.stm.deleted": A.HIERARCHY_STM_DELETED,
        "memory.stm.purged": A.HIERARCHY_STM_PURGED,
        "memory.govern.admin_stm_rescope": A.HIERARCHY_STM_ADMIN_RESCOPED,
        "memory.govern.admin_stm_read": A.HIERARCHY_STM_ADMIN_READ,
        "admin.memory_hierarchy.consolidate": A.HIERARCHY_STM_CONSOLIDATE_REQUESTED,
        "admin.memory_hierarchy.demote": A.HIERARCHY_LTM_DEMOTE_REQUESTED,
        "admin.memory_hierarchy.ltm.read": A.HIERARCHY_LTM_READ,
        "admin.memory_hierarchy.ltm.history_read": A.HIERARCHY_LTM_HISTORY_READ,
        "memory.job.stm_consolidation.started": A.HIERARCHY_CONSOLIDATION_JOB_STARTED,
        "memory.job.stm_consolidation.completed": A.HIERARCHY_CONSOLIDATION_JOB_COMPLETED,
        "memory.job.stm_consolidation.error": A.HIERARCHY_CONSOLIDATION_JOB_FAILED,
        "memory.bundle.resolved": A.HIERARCHY_BUNDLE_RESOLVED,
        "memory.questions.read": A.HIERARCHY_QUESTIONS_READ,
        "admin.memory_hierarchy.counts.read": A.HIERARCHY_COUNTS_READ,
        "admin.memory_hierarchy.replay.read": A.HIERARCHY_REPLAY_READ,
        "admin.memory_hierarchy.replay.reconstructed": A.HIERARCHY_REPLAY_RECONSTRUCTED,
        "admin.memory_tier.cli_invocation": A.HIERARCHY_CLI_INVOKED,
        "research.freshness_confidence.enqueued": A.HIERARCHY_FRESHNESS_CONFIDENCE_ENQUEUED,
        "research.freshness_confidence.tick": A.HIERARCHY_FRESHNESS_CONFIDENCE_TICKED,
        "research.freshness_confidence.resolved": A.HIERARCHY_FRESHNESS_CONFIDENCE_RESOLVED,
    }
)
del A

DECLARED: frozenset[str] = frozenset(AuditAction)
_OLD_NAMES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        action: tuple(old for old, new in LEGACY_NAMES.items() if new == action)
        for action in AuditAction
    }
)


def is_declared(action: str) -> bool:
    return action in DECLARED


def current_name(stored: str) -> str:
    """The name a stored action goes by now: an old name as the action it became, any
    other name as it is (an undeclared one too, so nothing read is ever lost)."""
    return str(LEGACY_NAMES.get(stored, stored))


def stored_names(*actions: str) -> tuple[str, ...]:
    """Every name the given actions may be stored under: each one's current name and the
    names it had before. An old name given stands for the action it became; an
    undeclared one for itself."""
    names: dict[str, None] = {}
    for action in actions:
        current = current_name(action)
        names[current] = None
        names.update(dict.fromkeys(_OLD_NAMES.get(current, ())))
    return tuple(names)


def names_under(prefix: str) -> tuple[str, ...]:
    """The stored names (old and current) of every declared action whose current name or
    one of its old names starts with `prefix`: a read by an old prefix (`memory.stm.`)
    keeps finding the renamed actions' new rows, a read by a new one the old rows."""
    names = (*AuditAction, *LEGACY_NAMES)
    return stored_names(*(name for name in names if name.startswith(prefix)))


def names_of(actions: Iterable[str]) -> frozenset[str]:
    """`stored_names` as a set, for membership tests (`event.action in names_of(...)`)."""
    return frozenset(stored_names(*actions))
