from typing import Literal

ScopeKindEnum = Literal["admin_session", "agent_run", "research_task", "user_session"]

SCOPE_KIND_ENUM_VALUES: set[ScopeKindEnum] = {
    "admin_session",
    "agent_run",
    "research_task",
    "user_session",
}


def check_scope_kind_enum(value: str) -> ScopeKindEnum:
    if value in SCOPE_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SCOPE_KIND_ENUM_VALUES!r}")
