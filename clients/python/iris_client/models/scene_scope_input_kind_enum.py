from typing import Literal

SceneScopeInputKindEnum = Literal["scene"]

SCENE_SCOPE_INPUT_KIND_ENUM_VALUES: set[SceneScopeInputKindEnum] = {
    "scene",
}


def check_scene_scope_input_kind_enum(value: str) -> SceneScopeInputKindEnum:
    if value in SCENE_SCOPE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SCENE_SCOPE_INPUT_KIND_ENUM_VALUES!r}"
    )
