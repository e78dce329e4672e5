from typing import Literal

MemoryClearStateEnum = Literal["cancelled", "pending", "purged"]

MEMORY_CLEAR_STATE_ENUM_VALUES: set[MemoryClearStateEnum] = {
    "cancelled",
    "pending",
    "purged",
}


def check_memory_clear_state_enum(value: str) -> MemoryClearStateEnum:
    if value in MEMORY_CLEAR_STATE_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MEMORY_CLEAR_STATE_ENUM_VALUES!r}"
    )
