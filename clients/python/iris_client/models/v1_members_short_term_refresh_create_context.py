from typing import Literal

V1MembersShortTermRefreshCreateContext = Literal[
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

V1_MEMBERS_SHORT_TERM_REFRESH_CREATE_CONTEXT_VALUES: set[V1MembersShortTermRefreshCreateContext] = {
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


def check_v1_members_short_term_refresh_create_context(
    value: str,
) -> V1MembersShortTermRefreshCreateContext:
    if value in V1_MEMBERS_SHORT_TERM_REFRESH_CREATE_CONTEXT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_MEMBERS_SHORT_TERM_REFRESH_CREATE_CONTEXT_VALUES!r}"
    )
