from typing import Literal

V1MeMemoriesListOrigin = Literal[
    "imported",
    "model-inferred",
    "operator-copilot",
    "summarized-from-session",
    "user-confirmed",
    "user-stated",
]

V1_ME_MEMORIES_LIST_ORIGIN_VALUES: set[V1MeMemoriesListOrigin] = {
    "imported",
    "model-inferred",
    "operator-copilot",
    "summarized-from-session",
    "user-confirmed",
    "user-stated",
}


def check_v1_me_memories_list_origin(value: str) -> V1MeMemoriesListOrigin:
    if value in V1_ME_MEMORIES_LIST_ORIGIN_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_ME_MEMORIES_LIST_ORIGIN_VALUES!r}"
    )
