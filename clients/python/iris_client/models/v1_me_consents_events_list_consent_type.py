from typing import Literal

V1MeConsentsEventsListConsentType = Literal[
    "category:abuse_history",
    "category:biometric",
    "category:financial",
    "category:financial_distress",
    "category:gender_identity",
    "category:immigration_status",
    "category:legal",
    "category:legal_jeopardy",
    "category:medical",
    "category:mental_health",
    "category:physical_health",
    "category:pose_alignment",
    "category:relationship_violence",
    "category:religion_user_redacted",
    "category:safety",
    "category:sexual",
    "category:sexuality",
    "category:spiritual",
    "category:substance_use",
    "cross_device",
    "data_processing",
    "data_storage",
    "multi-actor-sensitive",
    "sensitive_data",
]

V1_ME_CONSENTS_EVENTS_LIST_CONSENT_TYPE_VALUES: set[V1MeConsentsEventsListConsentType] = {
    "category:abuse_history",
    "category:biometric",
    "category:financial",
    "category:financial_distress",
    "category:gender_identity",
    "category:immigration_status",
    "category:legal",
    "category:legal_jeopardy",
    "category:medical",
    "category:mental_health",
    "category:physical_health",
    "category:pose_alignment",
    "category:relationship_violence",
    "category:religion_user_redacted",
    "category:safety",
    "category:sexual",
    "category:sexuality",
    "category:spiritual",
    "category:substance_use",
    "cross_device",
    "data_processing",
    "data_storage",
    "multi-actor-sensitive",
    "sensitive_data",
}


def check_v1_me_consents_events_list_consent_type(value: str) -> V1MeConsentsEventsListConsentType:
    if value in V1_ME_CONSENTS_EVENTS_LIST_CONSENT_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_ME_CONSENTS_EVENTS_LIST_CONSENT_TYPE_VALUES!r}"
    )
