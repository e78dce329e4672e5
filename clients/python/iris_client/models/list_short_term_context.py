from typing import Literal

ListShortTermContext = Literal[
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

LIST_SHORT_TERM_CONTEXT_VALUES: set[ListShortTermContext] = {
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


def check_list_short_term_context(value: str) -> ListShortTermContext:
    if value in LIST_SHORT_TERM_CONTEXT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {LIST_SHORT_TERM_CONTEXT_VALUES!r}"
    )
