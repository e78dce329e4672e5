from typing import Literal

ShortTermWriteScopeKindEnum = Literal["agent_run", "research_task", "user_session"]

SHORT_TERM_WRITE_SCOPE_KIND_ENUM_VALUES: set[ShortTermWriteScopeKindEnum] = {
    "agent_run",
    "research_task",
    "user_session",
}


def check_short_term_write_scope_kind_enum(value: str) -> ShortTermWriteScopeKindEnum:
    if value in SHORT_TERM_WRITE_SCOPE_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SHORT_TERM_WRITE_SCOPE_KIND_ENUM_VALUES!r}"
    )
