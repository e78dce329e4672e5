from typing import Literal

TypeEnum = Literal[
    "consent.withdrawn", "member.erased", "memory.corrected", "memory.forgotten", "person.forgotten"
]

TYPE_ENUM_VALUES: set[TypeEnum] = {
    "consent.withdrawn",
    "member.erased",
    "memory.corrected",
    "memory.forgotten",
    "person.forgotten",
}


def check_type_enum(value: str) -> TypeEnum:
    if value in TYPE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TYPE_ENUM_VALUES!r}")
