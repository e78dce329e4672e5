from typing import Literal

V1MeMemoriesListCategory = Literal[
    "abuse_history",
    "biometric",
    "commitment",
    "fact",
    "family",
    "financial",
    "financial_distress",
    "gender_identity",
    "goal",
    "identity",
    "immigration_status",
    "legal",
    "legal_jeopardy",
    "medical",
    "mental_health",
    "other",
    "physical_health",
    "pose_alignment",
    "preference",
    "relationship",
    "relationship_violence",
    "religion_user_redacted",
    "safety",
    "sexual",
    "sexuality",
    "spatial",
    "spiritual",
    "substance_use",
    "work",
]

V1_ME_MEMORIES_LIST_CATEGORY_VALUES: set[V1MeMemoriesListCategory] = {
    "abuse_history",
    "biometric",
    "commitment",
    "fact",
    "family",
    "financial",
    "financial_distress",
    "gender_identity",
    "goal",
    "identity",
    "immigration_status",
    "legal",
    "legal_jeopardy",
    "medical",
    "mental_health",
    "other",
    "physical_health",
    "pose_alignment",
    "preference",
    "relationship",
    "relationship_violence",
    "religion_user_redacted",
    "safety",
    "sexual",
    "sexuality",
    "spatial",
    "spiritual",
    "substance_use",
    "work",
}


def check_v1_me_memories_list_category(value: str) -> V1MeMemoriesListCategory:
    if value in V1_ME_MEMORIES_LIST_CATEGORY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_ME_MEMORIES_LIST_CATEGORY_VALUES!r}"
    )
