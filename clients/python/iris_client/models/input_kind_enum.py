from typing import Literal

InputKindEnum = Literal["denial", "grant", "withdrawal"]

INPUT_KIND_ENUM_VALUES: set[InputKindEnum] = {
    "denial",
    "grant",
    "withdrawal",
}


def check_input_kind_enum(value: str) -> InputKindEnum:
    if value in INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {INPUT_KIND_ENUM_VALUES!r}")
