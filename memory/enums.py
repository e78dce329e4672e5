"""The memory vocabulary, with the seed's exact strings."""

from django.db import models

from consent.enums import SensitiveCategory


class ScopeKind(models.TextChoices):
    """The canonical contract's eight scope kinds (wire and storage shape)."""

    PROFILE = "profile"  # durable, user-controlled facts
    SESSION = "session"  # in-flight conversation state
    SCENE = "scene"  # one rendered embodied scene
    POSE = "pose"  # aggregate pose / avatar alignment, opted in
    NOTEBOOK = "notebook"  # bound to a notebook, collection or course
    CRISIS = "crisis"  # the frame entered during a crisis cascade
    OPERATOR_COPILOT = "operator-copilot"  # admin copilots; narrower retention
    TENANT = "tenant"  # institutional memory; never blends into the profile


class AdapterScope(models.TextChoices):
    """The policy-and-retention layer's eleven scopes that map onto the kinds."""

    ASSISTANT_PROFILE = "assistant_profile"
    SESSION = "session"
    SCENE = "scene"
    POSE = "pose"
    CONVERSATION = "conversation"
    DOMAIN = "domain"
    CROSS_DOMAIN = "cross_domain"
    NOTEBOOK = "notebook"
    OPERATOR_COPILOT = "operator_copilot"
    TENANT = "tenant"
    ADMIN_REVIEW = "admin_review"


class MemoryCategory(models.TextChoices):
    FACT = "fact"
    PREFERENCE = "preference"
    GOAL = "goal"
    RELATIONSHIP = "relationship"
    COMMITMENT = "commitment"
    IDENTITY = "identity"
    SPATIAL = "spatial"
    POSE_ALIGNMENT = "pose_alignment"
    BIOMETRIC = "biometric"
    SPIRITUAL = "spiritual"
    MEDICAL = "medical"
    SEXUAL = "sexual"
    FINANCIAL = "financial"
    LEGAL = "legal"
    WORK = "work"
    FAMILY = "family"
    SAFETY = "safety"
    PHYSICAL_HEALTH = "physical_health"
    MENTAL_HEALTH = "mental_health"
    SUBSTANCE_USE = "substance_use"
    SEXUALITY = "sexuality"
    GENDER_IDENTITY = "gender_identity"
    RELIGION_USER_REDACTED = "religion_user_redacted"
    ABUSE_HISTORY = "abuse_history"
    IMMIGRATION_STATUS = "immigration_status"
    FINANCIAL_DISTRESS = "financial_distress"
    RELATIONSHIP_VIOLENCE = "relationship_violence"
    LEGAL_JEOPARDY = "legal_jeopardy"
    OTHER = "other"


SENSITIVE_CATEGORIES: frozenset[str] = frozenset(SensitiveCategory.values)


def is_sensitive_category(category: str) -> bool:
    return category in SENSITIVE_CATEGORIES


class Origin(models.TextChoices):
    USER_STATED = "user-stated"
    USER_CONFIRMED = "user-confirmed"
    MODEL_INFERRED = "model-inferred"
    OPERATOR_COPILOT = "operator-copilot"
    SUMMARIZED_FROM_SESSION = "summarized-from-session"
    IMPORTED = "imported"


class Lifecycle(models.TextChoices):
    DRAFT = "draft"  # proposed (e.g. an inference awaiting confirmation); never recalled
    ACTIVE = "active"  # the only state recall may surface
    PAUSED = "paused"  # the member paused it; kept, not recalled
    SUPERSEDED = "superseded"  # a newer revision or a winning conflict replaced it
    TOMBSTONED = "tombstoned"  # forgotten; terminal


class SuppressionReason(models.TextChoices):
    CRISIS_FRAME = "crisis-frame"
    USER_PAUSE = "user-pause"
    SENSITIVE_CATEGORY = "sensitive-category"
    TENANT_QUARANTINE = "tenant-quarantine"


class ProvenanceKind(models.TextChoices):
    SESSION_TURN = "session-turn"
    SESSION_SUMMARY = "session-summary"
    PROFILE_PROMOTION = "profile-promotion"
    MANUAL_IMPORT = "manual-import"
    INFERENCE_BATCH = "inference-batch"
    NOTEBOOK_ATTACHMENT = "notebook-attachment"
    SCENE_EVENT = "scene-event"
    POSE_SAMPLE = "pose-sample"


class ConsentSource(models.TextChoices):
    """`ConsentEntry.source` on the entry (the ledger has richer capture methods)."""

    INLINE_PROMPT = "inline-prompt"
    SETTINGS_TOGGLE = "settings-toggle"
    DSAR_IMPORT = "dsar-import"


class RecallContext(models.TextChoices):
    GENERAL = "general"
    HEALTH = "health"
    IDENTITY = "identity"
    SPIRITUAL = "spiritual"
    FINANCIAL = "financial"
    LEGAL = "legal"
    RELATIONSHIP = "relationship"
    SAFETY = "safety"
    CRISIS = "crisis"


class EntryAuditAction(models.TextChoices):
    """What a revision did, as recorded in the entry's own audit chain."""

    CREATED = "created"
    EDITED = "edited"
    CONFIRMED = "confirmed"  # model-inferred → user-confirmed
    PAUSED = "paused"
    RESUMED = "resumed"
    SCOPE_CHANGED = "scope-changed"
    PROMOTED = "promoted"  # session → profile through the promotion rule
    SUPERSEDED = "superseded"  # lost a write-time conflict
    SUMMARIZED = "summarized"  # compaction folded raw turns into this entry
    TOMBSTONED = "tombstoned"


class SourceKind(models.TextChoices):
    """Who asserted a fact, as the conflict ladder ranks it (derived from `Origin`)."""

    EXPLICIT_USER = "explicit_user"
    USER_CONFIRMED = "user_confirmed"
    MODEL_INFERRED = "model_inferred"
    ADMIN_COPILOT_INFERRED = "admin_copilot_inferred"


class ConflictRule(models.TextChoices):
    """The write-time conflict ladder, in the order the rules are checked."""

    ADMIN_COPILOT_NEVER_TRUMPS_CONSUMER_STATED = "admin-copilot-never-trumps-consumer-stated"
    EXPLICIT_USER_TRUMPS_INFERRED = "explicit-user-trumps-inferred"
    USER_CONFIRMED_TRUMPS_INFERRED = "user-confirmed-trumps-inferred"
    MOST_RECENT_WINS = "most-recent-wins"


class ConflictOutcome(models.TextChoices):
    KEEP_EXISTING = "keep_existing"
    REPLACE_EXISTING = "replace_existing"


class StorageGateReason(models.TextChoices):
    """Why the privacy storage gate refused a write (the API's 422 `code`)."""

    SENSITIVE_CATEGORY_WITHOUT_CONSENT = "sensitive-category-without-consent"
    MULTI_ACTOR_SENSITIVE_WITHOUT_CONSENT = "multi-actor-sensitive-without-consent"
    SENSITIVE_INFERENCE_REQUIRES_CONFIRMATION = "sensitive-inference-requires-confirmation"


class PromotionReason(models.TextChoices):
    """The outcome codes of the session → profile promotion rule."""

    EXPLICIT_PROMOTION = "explicit-promotion"  # allowed
    REPEATED_OCCURRENCE_THRESHOLD_MET = "repeated-occurrence-threshold-met"  # allowed
    NOT_REQUESTED = "not-requested"
    IMPLICIT_PROMOTION_BLOCKED = "implicit-promotion-blocked"
    REPEATED_OCCURRENCE_THRESHOLD_NOT_MET = "repeated-occurrence-threshold-not-met"


class ScopeChangeReason(models.TextChoices):
    """Why a member's scope change is allowed or refused."""

    SESSION_PROMOTION = "session-promotion"  # allowed: session → profile
    SESSION_TO_NOTEBOOK = "session-to-notebook"  # allowed
    PROFILE_DEMOTION = "profile-demotion"  # allowed: profile → notebook
    SAME_SCOPE = "same-scope"
    TENANT_MEMORY_STAYS_IN_TENANT = "tenant-memory-stays-in-tenant"
    CONSUMER_MEMORY_NEVER_ENTERS_TENANT = "consumer-memory-never-enters-tenant"
    SCOPE_NOT_MEMBER_MOVABLE = "scope-not-member-movable"
    SCOPE_CHANGE_NOT_SUPPORTED = "scope-change-not-supported"


class ScopeMode(models.TextChoices):
    """How an adapter scope behaves for one member after consents and opt-outs."""

    DURABLE = "durable"  # outlives the live interaction, within its retention envelope
    EPHEMERAL = "ephemeral"  # live or short-lived context, bounded to one interaction
    SUPPRESSED = "suppressed"  # nothing is written or recalled in this scope


class ExpiryAction(models.TextChoices):
    """What the retention sweep does when a scope's raw retention runs out."""

    SUMMARIZE = "summarize"
    DELETE = "delete"
    REVIEW = "review"


class MemoryTier(models.TextChoices):
    """The canonical tiers an adapter scope spans (governance metadata only)."""

    CORE = "core"
    WORKING = "working"
    ARCHIVAL = "archival"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"


class PiiKind(models.TextChoices):
    """What a redaction token stands for; tokens never carry the original value."""

    EMAIL = "email"
    PHONE = "phone"
    CARD = "card"
    ADDRESS = "address"


class EntityKind(models.TextChoices):
    PERSON = "person"  # someone the member talks about: an entry's actor handle
    SUBJECT = "subject"  # what an entry is about: its conflict-key subject
    SELF = "self"  # the member themself


class EntityState(models.TextChoices):
    ACTIVE = "active"  # linked by new writes, shown and recalled
    ARCHIVED = "archived"  # kept and shown to the member, not recalled
    RETIRED = "retired"  # forgotten: only a keyed digest stays; terminal but for the member


class ChangeType(models.TextChoices):
    """What a surface that received a memory is told (`memory.changes`)."""

    MEMORY_FORGOTTEN = "memory.forgotten"  # a fact, with every revision it received
    MEMORY_CORRECTED = "memory.corrected"  # a new head replaced what it received
    CONSENT_WITHDRAWN = "consent.withdrawn"  # what it may no longer use
    PERSON_FORGOTTEN = "person.forgotten"  # an entity, with the entries it received
    MEMBER_ERASED = "member.erased"  # everything
