from typing import Literal

RefreshShortTermContext = Literal[
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

REFRESH_SHORT_TERM_CONTEXT_VALUES: set[RefreshShortTermContext] = {
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


def check_refresh_short_term_context(value: str) -> RefreshShortTermContext:
    if value in REFRESH_SHORT_TERM_CONTEXT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {REFRESH_SHORT_TERM_CONTEXT_VALUES!r}"
    )
