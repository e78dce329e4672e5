from typing import Literal

V1MembersShortTermListContext = Literal[
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

V1_MEMBERS_SHORT_TERM_LIST_CONTEXT_VALUES: set[V1MembersShortTermListContext] = {
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


def check_v1_members_short_term_list_context(value: str) -> V1MembersShortTermListContext:
    if value in V1_MEMBERS_SHORT_TERM_LIST_CONTEXT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_MEMBERS_SHORT_TERM_LIST_CONTEXT_VALUES!r}"
    )
