from typing import Literal

MemoryNoticeStateEnum = Literal[
    "accepted", "confirmed", "dismissed", "edited", "forgotten", "kept", "open"
]

MEMORY_NOTICE_STATE_ENUM_VALUES: set[MemoryNoticeStateEnum] = {
    "accepted",
    "confirmed",
    "dismissed",
    "edited",
    "forgotten",
    "kept",
    "open",
}


def check_memory_notice_state_enum(value: str) -> MemoryNoticeStateEnum:
    if value in MEMORY_NOTICE_STATE_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MEMORY_NOTICE_STATE_ENUM_VALUES!r}"
    )
