from typing import Literal

EntityKindEnum = Literal["person", "self", "subject"]

ENTITY_KIND_ENUM_VALUES: set[EntityKindEnum] = {
    "person",
    "self",
    "subject",
}


def check_entity_kind_enum(value: str) -> EntityKindEnum:
    if value in ENTITY_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ENTITY_KIND_ENUM_VALUES!r}")
