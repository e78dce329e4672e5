from typing import Literal

ListShortTermScopeKind = Literal["admin_session", "agent_run", "research_task", "user_session"]

LIST_SHORT_TERM_SCOPE_KIND_VALUES: set[ListShortTermScopeKind] = {
    "admin_session",
    "agent_run",
    "research_task",
    "user_session",
}


def check_list_short_term_scope_kind(value: str) -> ListShortTermScopeKind:
    if value in LIST_SHORT_TERM_SCOPE_KIND_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {LIST_SHORT_TERM_SCOPE_KIND_VALUES!r}"
    )
