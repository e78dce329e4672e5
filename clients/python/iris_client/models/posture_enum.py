from typing import Literal

PostureEnum = Literal[
    "co-watching", "listening", "paused", "practicing", "reading", "reviewing", "studying"
]

POSTURE_ENUM_VALUES: set[PostureEnum] = {
    "co-watching",
    "listening",
    "paused",
    "practicing",
    "reading",
    "reviewing",
    "studying",
}


def check_posture_enum(value: str) -> PostureEnum:
    if value in POSTURE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {POSTURE_ENUM_VALUES!r}")
