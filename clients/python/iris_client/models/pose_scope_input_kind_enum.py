from typing import Literal

PoseScopeInputKindEnum = Literal["pose"]

POSE_SCOPE_INPUT_KIND_ENUM_VALUES: set[PoseScopeInputKindEnum] = {
    "pose",
}


def check_pose_scope_input_kind_enum(value: str) -> PoseScopeInputKindEnum:
    if value in POSE_SCOPE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {POSE_SCOPE_INPUT_KIND_ENUM_VALUES!r}"
    )
