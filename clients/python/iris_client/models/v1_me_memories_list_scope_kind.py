from typing import Literal

V1MeMemoriesListScopeKind = Literal[
    "crisis", "notebook", "operator-copilot", "pose", "profile", "scene", "session", "tenant"
]

V1_ME_MEMORIES_LIST_SCOPE_KIND_VALUES: set[V1MeMemoriesListScopeKind] = {
    "crisis",
    "notebook",
    "operator-copilot",
    "pose",
    "profile",
    "scene",
    "session",
    "tenant",
}


def check_v1_me_memories_list_scope_kind(value: str) -> V1MeMemoriesListScopeKind:
    if value in V1_ME_MEMORIES_LIST_SCOPE_KIND_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_ME_MEMORIES_LIST_SCOPE_KIND_VALUES!r}"
    )
