from typing import Literal

EntityStateEnum = Literal["active", "archived", "retired"]

ENTITY_STATE_ENUM_VALUES: set[EntityStateEnum] = {
    "active",
    "archived",
    "retired",
}


def check_entity_state_enum(value: str) -> EntityStateEnum:
    if value in ENTITY_STATE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ENTITY_STATE_ENUM_VALUES!r}")
