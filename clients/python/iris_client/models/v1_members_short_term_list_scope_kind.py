from typing import Literal

V1MembersShortTermListScopeKind = Literal[
    "admin_session", "agent_run", "research_task", "user_session"
]

V1_MEMBERS_SHORT_TERM_LIST_SCOPE_KIND_VALUES: set[V1MembersShortTermListScopeKind] = {
    "admin_session",
    "agent_run",
    "research_task",
    "user_session",
}


def check_v1_members_short_term_list_scope_kind(value: str) -> V1MembersShortTermListScopeKind:
    if value in V1_MEMBERS_SHORT_TERM_LIST_SCOPE_KIND_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_MEMBERS_SHORT_TERM_LIST_SCOPE_KIND_VALUES!r}"
    )
