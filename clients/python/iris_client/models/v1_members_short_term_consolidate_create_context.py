from typing import Literal

V1MembersShortTermConsolidateCreateContext = Literal[
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

V1_MEMBERS_SHORT_TERM_CONSOLIDATE_CREATE_CONTEXT_VALUES: set[
    V1MembersShortTermConsolidateCreateContext
] = {
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


def check_v1_members_short_term_consolidate_create_context(
    value: str,
) -> V1MembersShortTermConsolidateCreateContext:
    if value in V1_MEMBERS_SHORT_TERM_CONSOLIDATE_CREATE_CONTEXT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_MEMBERS_SHORT_TERM_CONSOLIDATE_CREATE_CONTEXT_VALUES!r}"
    )
