"""The words members read for Iris's internal vocabulary: scopes, categories, origins,
states, consents, capture and verification methods. One place, translatable
(`gettext_lazy`); every member page and form takes its labels from here, never from an
enum's key. The enums keep their wire values (and, where a model field stores them, their
choices, so no migration follows a wording change); the opt-out categories keep their
labels on `consent.enums.OptOutCategory`, the single source for those.

Data rights sit above memory in the layer order, so the two data-rights vocabularies
(verification method, request status) are keyed by their wire values here;
`tests/memory/test_labels.py` checks every value of every enum has its label."""

from django.utils.translation import gettext_lazy as _

from consent.enums import (
    CATEGORY_PREFIX,
    BaseConsentType,
    CaptureMethod,
    ConsentStatus,
    OptOutCategory,
)
from iris_site.enums import Consumer
from memory.enums import (
    ChangeType,
    EntryAuditAction,
    Lifecycle,
    MemoryCategory,
    Origin,
    ProvenanceKind,
    ScopeKind,
)

# In the order the member page groups them: the member's own profile first, crisis last.
SCOPE_LABELS = {
    ScopeKind.PROFILE: _("About you"),
    ScopeKind.NOTEBOOK: _("Notebooks and courses"),
    ScopeKind.SESSION: _("Conversations"),
    ScopeKind.SCENE: _("Scenes"),
    ScopeKind.POSE: _("Posture and movement"),
    ScopeKind.TENANT: _("Your organisation"),
    ScopeKind.OPERATOR_COPILOT: _("Notes from support staff"),
    ScopeKind.CRISIS: _("During a crisis"),
}
SCOPE_ORDER: tuple[str, ...] = tuple(str(k) for k in SCOPE_LABELS)

CATEGORY_LABELS = {
    MemoryCategory.FACT: _("Facts"),
    MemoryCategory.PREFERENCE: _("Preferences"),
    MemoryCategory.GOAL: _("Goals"),
    MemoryCategory.RELATIONSHIP: _("Relationships"),
    MemoryCategory.COMMITMENT: _("Commitments"),
    MemoryCategory.IDENTITY: _("Who you are"),
    MemoryCategory.SPATIAL: _("Places and spaces"),
    MemoryCategory.WORK: _("Work"),
    MemoryCategory.FAMILY: _("Family"),
    MemoryCategory.POSE_ALIGNMENT: _("Posture"),
    MemoryCategory.BIOMETRIC: _("Body measurements"),
    MemoryCategory.SPIRITUAL: _("Spirituality"),
    MemoryCategory.MEDICAL: _("Medical matters"),
    MemoryCategory.SEXUAL: _("Sex life"),
    MemoryCategory.FINANCIAL: _("Money"),
    MemoryCategory.LEGAL: _("Legal matters"),
    MemoryCategory.SAFETY: _("Safety"),
    MemoryCategory.PHYSICAL_HEALTH: _("Physical health"),
    MemoryCategory.MENTAL_HEALTH: _("Mental health"),
    MemoryCategory.SUBSTANCE_USE: _("Alcohol and drug use"),
    MemoryCategory.SEXUALITY: _("Sexuality"),
    MemoryCategory.GENDER_IDENTITY: _("Gender identity"),
    MemoryCategory.RELIGION_USER_REDACTED: _("Religion"),
    MemoryCategory.ABUSE_HISTORY: _("Experiences of abuse"),
    MemoryCategory.IMMIGRATION_STATUS: _("Immigration status"),
    MemoryCategory.FINANCIAL_DISTRESS: _("Money worries"),
    MemoryCategory.RELATIONSHIP_VIOLENCE: _("Violence in a relationship"),
    MemoryCategory.LEGAL_JEOPARDY: _("Legal trouble"),
    MemoryCategory.OTHER: _("Other"),
}

ORIGIN_LABELS = {
    Origin.USER_STATED: _("You told Iris"),
    Origin.USER_CONFIRMED: _("You confirmed it"),
    Origin.MODEL_INFERRED: _("Iris worked it out"),
    Origin.OPERATOR_COPILOT: _("Added by support staff"),
    Origin.SUMMARIZED_FROM_SESSION: _("Summed up from a conversation"),
    Origin.IMPORTED: _("Imported"),
}

LIFECYCLE_LABELS = {
    Lifecycle.DRAFT: _("Waiting for you to confirm"),
    Lifecycle.ACTIVE: _("In use"),
    Lifecycle.PAUSED: _("Paused"),
    Lifecycle.SUPERSEDED: _("Replaced by a newer version"),
    Lifecycle.TOMBSTONED: _("Forgotten"),
}

PROVENANCE_LABELS = {
    ProvenanceKind.SESSION_TURN: _("Something said in a conversation"),
    ProvenanceKind.SESSION_SUMMARY: _("A summary of a conversation"),
    ProvenanceKind.PROFILE_PROMOTION: _("Kept for your profile"),
    ProvenanceKind.MANUAL_IMPORT: _("Imported"),
    ProvenanceKind.INFERENCE_BATCH: _("Worked out by Iris"),
    ProvenanceKind.NOTEBOOK_ATTACHMENT: _("A notebook or course"),
    ProvenanceKind.SCENE_EVENT: _("A scene"),
    ProvenanceKind.POSE_SAMPLE: _("Posture measured in a session"),
}

REVISION_ACTION_LABELS = {
    EntryAuditAction.CREATED: _("remembered"),
    EntryAuditAction.EDITED: _("edited"),
    EntryAuditAction.CONFIRMED: _("confirmed by you"),
    EntryAuditAction.PAUSED: _("paused"),
    EntryAuditAction.RESUMED: _("resumed"),
    EntryAuditAction.SCOPE_CHANGED: _("moved"),
    EntryAuditAction.PROMOTED: _("kept for your profile"),
    EntryAuditAction.SUPERSEDED: _("replaced by a newer memory"),
    EntryAuditAction.SUMMARIZED: _("summed up"),
    EntryAuditAction.TOMBSTONED: _("forgotten"),
}

CONSENT_LABELS = {
    BaseConsentType.DATA_PROCESSING: _("Using what you share to answer you"),
    BaseConsentType.DATA_STORAGE: _("Keeping memories between conversations"),
    BaseConsentType.SENSITIVE_DATA: _("Remembering sensitive topics"),
    BaseConsentType.CROSS_DEVICE: _("Picking up on your other devices"),
    BaseConsentType.MULTI_ACTOR_SENSITIVE: _("Sensitive things about people you mention"),
}

CONSENT_STATUS_LABELS = {
    ConsentStatus.GRANTED: _("Given"),
    ConsentStatus.WITHDRAWN: _("Withdrawn"),
    ConsentStatus.EXPIRED: _("Expired"),
    ConsentStatus.DENIED: _("Refused"),
}
NOT_ASKED = _("Not asked yet")

CAPTURE_METHOD_LABELS = {
    CaptureMethod.INLINE_PROMPT: _("When the assistant asked you"),
    CaptureMethod.SETTINGS_TOGGLE: _("On this site"),
    CaptureMethod.DSAR_IMPORT: _("With a data request"),
    CaptureMethod.API: _("In an app"),
    CaptureMethod.OPERATOR_RECORDED: _("Recorded by support staff"),
}

# datarights.enums.VerificationMethod (a layer above memory), by wire value.
VERIFICATION_METHOD_LABELS = {
    "session-token": _("you were signed in"),
    "email-link": _("a code sent to your email"),
    "phone-otp": _("a code sent to your phone"),
    "operator-signoff": _("a member of staff checked who you are"),
    "court-order": _("a court order"),
}

# datarights.enums.RequestStatus, by wire value.
REQUEST_STATUS_LABELS = {
    "submitted": _("waiting for you to confirm"),
    "verified": _("confirmed, waiting to start"),
    "in-progress": _("being prepared"),
    "completed": _("done"),
    "failed": _("could not be done"),
    "cancelled": _("cancelled"),
    "expired": _("not confirmed in time"),
    "appealed": _("contested, an operator is looking at it"),
}


def _humane(value: str) -> str:
    """Last resort for a value with no label yet: never the raw key's punctuation."""
    return value.replace("_", " ").replace("-", " ").capitalize()


def scope_label(value: str) -> str:
    return SCOPE_LABELS.get(value) or _humane(value)


def category_label(value: str) -> str:
    return CATEGORY_LABELS.get(value) or _humane(value)


def origin_label(value: str) -> str:
    return ORIGIN_LABELS.get(value) or _humane(value)


def lifecycle_label(value: str) -> str:
    return LIFECYCLE_LABELS.get(value) or _humane(value)


def provenance_label(value: str) -> str:
    return PROVENANCE_LABELS.get(value) or _humane(value)


def revision_action_label(value: str) -> str:
    return REVISION_ACTION_LABELS.get(value) or _humane(value)


def revision_actor_label(token: str) -> str:
    """Who made a version (`iris_site.audit.events.actor_token`), without ids or client names."""
    kind = str(token).partition(":")[0]
    return {
        "member": _("you"),
        "consumer": _("an assistant"),
        "operator": _("support staff"),
    }.get(kind, _("Iris"))


def consent_label(consent_type: str) -> str:
    """A consent type by name: a sensitive category's consent is named by its topic."""
    if consent_type.startswith(CATEGORY_PREFIX):
        return category_label(consent_type.removeprefix(CATEGORY_PREFIX))
    return CONSENT_LABELS.get(consent_type) or _humane(consent_type)


def consent_status_label(value: str | None) -> str:
    return CONSENT_STATUS_LABELS.get(value or "") or NOT_ASKED


def capture_method_label(value: str) -> str:
    return CAPTURE_METHOD_LABELS.get(value) or _humane(value)


def opt_out_label(value: str) -> str:
    return OptOutCategory(value).label


def verification_method_label(value: str) -> str:
    return VERIFICATION_METHOD_LABELS.get(value) or _humane(value)


def request_status_label(value: str) -> str:
    return REQUEST_STATUS_LABELS.get(value) or _humane(value)


def consumer_label(value: str) -> str:
    """An assistant surface by its product name ("Tara", "Living Scene")."""
    try:
        return Consumer(value).label
    except ValueError:
        return _humane(value)


# What a surface was told (`memory.changes`), as the member's proof of it reads.
CHANGE_TYPE_LABELS = {
    ChangeType.MEMORY_FORGOTTEN: _("A memory was forgotten"),
    ChangeType.MEMORY_CORRECTED: _("A memory was corrected"),
    ChangeType.CONSENT_WITHDRAWN: _("A consent was withdrawn"),
    ChangeType.PERSON_FORGOTTEN: _("A person was forgotten"),
    ChangeType.MEMBER_ERASED: _("Everything was erased"),
}


def change_type_label(value: str) -> str:
    return CHANGE_TYPE_LABELS.get(value) or _humane(value)


def lower_first(text) -> str:
    """For a label inside a sentence ("memories about mental health")."""
    text = str(text)
    return text[:1].lower() + text[1:]


SCOPE_CHOICES: list[tuple[str, str]] = [(str(k), v) for k, v in SCOPE_LABELS.items()]
CATEGORY_CHOICES: list[tuple[str, str]] = [(str(k), v) for k, v in CATEGORY_LABELS.items()]
