from typing import Literal

ContextEnum = Literal[
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

CONTEXT_ENUM_VALUES: set[ContextEnum] = {
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


def check_context_enum(value: str) -> ContextEnum:
    if value in CONTEXT_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CONTEXT_ENUM_VALUES!r}")
