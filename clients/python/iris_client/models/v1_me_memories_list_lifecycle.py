from typing import Literal

V1MeMemoriesListLifecycle = Literal["active", "draft", "paused", "superseded", "tombstoned"]

V1_ME_MEMORIES_LIST_LIFECYCLE_VALUES: set[V1MeMemoriesListLifecycle] = {
    "active",
    "draft",
    "paused",
    "superseded",
    "tombstoned",
}


def check_v1_me_memories_list_lifecycle(value: str) -> V1MeMemoriesListLifecycle:
    if value in V1_ME_MEMORIES_LIST_LIFECYCLE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_ME_MEMORIES_LIST_LIFECYCLE_VALUES!r}"
    )
