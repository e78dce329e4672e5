from typing import Literal

ReasonEnum = Literal["crisis-frame", "sensitive-category", "tenant-quarantine", "user-pause"]

REASON_ENUM_VALUES: set[ReasonEnum] = {
    "crisis-frame",
    "sensitive-category",
    "tenant-quarantine",
    "user-pause",
}


def check_reason_enum(value: str) -> ReasonEnum:
    if value in REASON_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REASON_ENUM_VALUES!r}")
