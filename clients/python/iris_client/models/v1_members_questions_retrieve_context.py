from typing import Literal

V1MembersQuestionsRetrieveContext = Literal[
    "crisis",
    "financial",
    "general",
    "health",
    "identity",
    "legal",
    "relationship",
    "safety",
    "spiritual",
]

V1_MEMBERS_QUESTIONS_RETRIEVE_CONTEXT_VALUES: set[V1MembersQuestionsRetrieveContext] = {
    "crisis",
    "financial",
    "general",
    "health",
    "identity",
    "legal",
    "relationship",
    "safety",
    "spiritual",
}


def check_v1_members_questions_retrieve_context(value: str) -> V1MembersQuestionsRetrieveContext:
    if value in V1_MEMBERS_QUESTIONS_RETRIEVE_CONTEXT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_MEMBERS_QUESTIONS_RETRIEVE_CONTEXT_VALUES!r}"
    )
