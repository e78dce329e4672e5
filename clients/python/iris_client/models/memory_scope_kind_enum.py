from typing import Literal

MemoryScopeKindEnum = Literal[
    "crisis", "notebook", "operator-copilot", "pose", "profile", "scene", "session", "tenant"
]

MEMORY_SCOPE_KIND_ENUM_VALUES: set[MemoryScopeKindEnum] = {
    "crisis",
    "notebook",
    "operator-copilot",
    "pose",
    "profile",
    "scene",
    "session",
    "tenant",
}


def check_memory_scope_kind_enum(value: str) -> MemoryScopeKindEnum:
    if value in MEMORY_SCOPE_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MEMORY_SCOPE_KIND_ENUM_VALUES!r}"
    )
