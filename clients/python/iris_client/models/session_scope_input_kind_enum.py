from typing import Literal

SessionScopeInputKindEnum = Literal["session"]

SESSION_SCOPE_INPUT_KIND_ENUM_VALUES: set[SessionScopeInputKindEnum] = {
    "session",
}


def check_session_scope_input_kind_enum(value: str) -> SessionScopeInputKindEnum:
    if value in SESSION_SCOPE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SESSION_SCOPE_INPUT_KIND_ENUM_VALUES!r}"
    )
