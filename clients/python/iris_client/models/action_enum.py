from typing import Literal

ActionEnum = Literal[
    "confirmed",
    "created",
    "edited",
    "paused",
    "promoted",
    "resumed",
    "scope-changed",
    "summarized",
    "superseded",
    "tombstoned",
]

ACTION_ENUM_VALUES: set[ActionEnum] = {
    "confirmed",
    "created",
    "edited",
    "paused",
    "promoted",
    "resumed",
    "scope-changed",
    "summarized",
    "superseded",
    "tombstoned",
}


def check_action_enum(value: str) -> ActionEnum:
    if value in ACTION_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ACTION_ENUM_VALUES!r}")
