from typing import Literal

SensitiveCategoriesEnum = Literal[
    "abuse_history",
    "biometric",
    "financial",
    "financial_distress",
    "gender_identity",
    "immigration_status",
    "legal",
    "legal_jeopardy",
    "medical",
    "mental_health",
    "physical_health",
    "pose_alignment",
    "relationship_violence",
    "religion_user_redacted",
    "safety",
    "sexual",
    "sexuality",
    "spiritual",
    "substance_use",
]

SENSITIVE_CATEGORIES_ENUM_VALUES: set[SensitiveCategoriesEnum] = {
    "abuse_history",
    "biometric",
    "financial",
    "financial_distress",
    "gender_identity",
    "immigration_status",
    "legal",
    "legal_jeopardy",
    "medical",
    "mental_health",
    "physical_health",
    "pose_alignment",
    "relationship_violence",
    "religion_user_redacted",
    "safety",
    "sexual",
    "sexuality",
    "spiritual",
    "substance_use",
}


def check_sensitive_categories_enum(value: str) -> SensitiveCategoriesEnum:
    if value in SENSITIVE_CATEGORIES_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SENSITIVE_CATEGORIES_ENUM_VALUES!r}"
    )
