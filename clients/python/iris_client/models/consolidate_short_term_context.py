from typing import Literal

ConsolidateShortTermContext = Literal[
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

CONSOLIDATE_SHORT_TERM_CONTEXT_VALUES: set[ConsolidateShortTermContext] = {
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


def check_consolidate_short_term_context(value: str) -> ConsolidateShortTermContext:
    if value in CONSOLIDATE_SHORT_TERM_CONTEXT_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONSOLIDATE_SHORT_TERM_CONTEXT_VALUES!r}"
    )
