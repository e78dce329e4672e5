from typing import Literal

MemoryNoticeKindEnum = Literal["conflict-question", "promotion", "reconfirm"]

MEMORY_NOTICE_KIND_ENUM_VALUES: set[MemoryNoticeKindEnum] = {
    "conflict-question",
    "promotion",
    "reconfirm",
}


def check_memory_notice_kind_enum(value: str) -> MemoryNoticeKindEnum:
    if value in MEMORY_NOTICE_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MEMORY_NOTICE_KIND_ENUM_VALUES!r}"
    )
