"""The consent vocabulary. Consent sits below memory, so the sensitive categories a
member can consent to per category are defined here and memory builds on them."""

from django.db import models


class SensitiveCategory(models.TextChoices):
    """The 19 memory categories stored and recalled only with per-category consent."""

    POSE_ALIGNMENT = "pose_alignment"
    BIOMETRIC = "biometric"
    SPIRITUAL = "spiritual"
    MEDICAL = "medical"
    SEXUAL = "sexual"
    FINANCIAL = "financial"
    LEGAL = "legal"
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


class BaseConsentType(models.TextChoices):
    DATA_PROCESSING = "data_processing"
    DATA_STORAGE = "data_storage"
    SENSITIVE_DATA = "sensitive_data"
    CROSS_DEVICE = "cross_device"
    MULTI_ACTOR_SENSITIVE = "multi-actor-sensitive"


CATEGORY_PREFIX = "category:"
CONSENT_TYPES: tuple[str, ...] = (
    *BaseConsentType.values,
    *(CATEGORY_PREFIX + c for c in SensitiveCategory.values),
)


def category_consent_type(category: str) -> str:
    return CATEGORY_PREFIX + category


class ConsentEventKind(models.TextChoices):
    GRANT = "grant"  # the member says yes
    WITHDRAWAL = "withdrawal"  # the member takes a grant back (supersedes it)
    EXPIRY = "expiry"  # a grant's end date passed (supersedes it; written by a job)
    DENIAL = "denial"  # the member says no when asked


class ConsentStatus(models.TextChoices):
    """The state a consent type is in after an event of the matching kind."""

    GRANTED = "granted"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"
    DENIED = "denied"


STATUS_FOR_KIND = {
    ConsentEventKind.GRANT: ConsentStatus.GRANTED,
    ConsentEventKind.WITHDRAWAL: ConsentStatus.WITHDRAWN,
    ConsentEventKind.EXPIRY: ConsentStatus.EXPIRED,
    ConsentEventKind.DENIAL: ConsentStatus.DENIED,
}


class LegalBasis(models.TextChoices):
    """GDPR Art. 6(1) (a) to (f)."""

    CONSENT = "consent"
    CONTRACT = "contract"
    LEGAL_OBLIGATION = "legal_obligation"
    VITAL_INTERESTS = "vital_interests"
    PUBLIC_TASK = "public_task"
    LEGITIMATE_INTERESTS = "legitimate_interests"


class CaptureMethod(models.TextChoices):
    INLINE_PROMPT = "inline-prompt"
    SETTINGS_TOGGLE = "settings-toggle"
    DSAR_IMPORT = "dsar-import"
    API = "api"
    OPERATOR_RECORDED = "operator-recorded"


class OptOutCategory(models.TextChoices):
    """Member opt-outs that suppress adapter scopes (memory's blueprints list them in
    `opt_out_categories`). The seed names the field but not its values; these are
    Iris's own. An opt-out is recorded in the member's opt-out ledger (`OptOutEvent`)."""

    MEMORY = "memory", "Memory"  # remember nothing in any member-governed scope
    PERSONALIZATION = "personalization", "Personalisation"  # no durable profile/domain facts
    CONVERSATION_HISTORY = "conversation_history", "Conversation history"  # no session history
    EMBODIED = "embodied", "Scenes and movement"  # no scene or pose memory
    CROSS_DOMAIN_SHARING = "cross_domain_sharing", "Sharing between products"  # one domain only


class OptOutEventKind(models.TextChoices):
    OPT_OUT = "opt-out"  # the member turns a category off
    OPT_IN = "opt-in"  # the member turns it back on
