from typing import Literal

StmScopeKindEnum = Literal["admin_session", "agent_run", "research_task", "user_session"]

STM_SCOPE_KIND_ENUM_VALUES: set[StmScopeKindEnum] = {
    "admin_session",
    "agent_run",
    "research_task",
    "user_session",
}


def check_stm_scope_kind_enum(value: str) -> StmScopeKindEnum:
    if value in STM_SCOPE_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {STM_SCOPE_KIND_ENUM_VALUES!r}")
