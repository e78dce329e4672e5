from typing import Literal

OriginEnum = Literal[
    "imported",
    "model-inferred",
    "operator-copilot",
    "summarized-from-session",
    "user-confirmed",
    "user-stated",
]

ORIGIN_ENUM_VALUES: set[OriginEnum] = {
    "imported",
    "model-inferred",
    "operator-copilot",
    "summarized-from-session",
    "user-confirmed",
    "user-stated",
}


def check_origin_enum(value: str) -> OriginEnum:
    if value in ORIGIN_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ORIGIN_ENUM_VALUES!r}")
