from typing import Literal

CrisisScopeInputKindEnum = Literal["crisis"]

CRISIS_SCOPE_INPUT_KIND_ENUM_VALUES: set[CrisisScopeInputKindEnum] = {
    "crisis",
}


def check_crisis_scope_input_kind_enum(value: str) -> CrisisScopeInputKindEnum:
    if value in CRISIS_SCOPE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CRISIS_SCOPE_INPUT_KIND_ENUM_VALUES!r}"
    )
