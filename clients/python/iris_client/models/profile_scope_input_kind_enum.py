from typing import Literal

ProfileScopeInputKindEnum = Literal["profile"]

PROFILE_SCOPE_INPUT_KIND_ENUM_VALUES: set[ProfileScopeInputKindEnum] = {
    "profile",
}


def check_profile_scope_input_kind_enum(value: str) -> ProfileScopeInputKindEnum:
    if value in PROFILE_SCOPE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {PROFILE_SCOPE_INPUT_KIND_ENUM_VALUES!r}"
    )
