from typing import Literal

OperatorCopilotScopeInputKindEnum = Literal["operator-copilot"]

OPERATOR_COPILOT_SCOPE_INPUT_KIND_ENUM_VALUES: set[OperatorCopilotScopeInputKindEnum] = {
    "operator-copilot",
}


def check_operator_copilot_scope_input_kind_enum(value: str) -> OperatorCopilotScopeInputKindEnum:
    if value in OPERATOR_COPILOT_SCOPE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {OPERATOR_COPILOT_SCOPE_INPUT_KIND_ENUM_VALUES!r}"
    )
