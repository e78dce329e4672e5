from typing import Literal

ConsentTypeEnum = Literal[
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

CONSENT_TYPE_ENUM_VALUES: set[ConsentTypeEnum] = {
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


def check_consent_type_enum(value: str) -> ConsentTypeEnum:
    if value in CONSENT_TYPE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CONSENT_TYPE_ENUM_VALUES!r}")
