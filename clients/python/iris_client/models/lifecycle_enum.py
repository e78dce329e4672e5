from typing import Literal

LifecycleEnum = Literal["active", "draft", "paused", "superseded", "tombstoned"]

LIFECYCLE_ENUM_VALUES: set[LifecycleEnum] = {
    "active",
    "draft",
    "paused",
    "superseded",
    "tombstoned",
}


def check_lifecycle_enum(value: str) -> LifecycleEnum:
    if value in LIFECYCLE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIFECYCLE_ENUM_VALUES!r}")
