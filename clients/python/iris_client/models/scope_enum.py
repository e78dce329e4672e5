from typing import Literal

ScopeEnum = Literal[
    "admin_review",
    "assistant_profile",
    "conversation",
    "cross_domain",
    "domain",
    "notebook",
    "operator_copilot",
    "pose",
    "scene",
    "session",
    "tenant",
]

SCOPE_ENUM_VALUES: set[ScopeEnum] = {
    "admin_review",
    "assistant_profile",
    "conversation",
    "cross_domain",
    "domain",
    "notebook",
    "operator_copilot",
    "pose",
    "scene",
    "session",
    "tenant",
}


def check_scope_enum(value: str) -> ScopeEnum:
    if value in SCOPE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SCOPE_ENUM_VALUES!r}")
