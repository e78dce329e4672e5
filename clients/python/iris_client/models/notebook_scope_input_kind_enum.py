from typing import Literal

NotebookScopeInputKindEnum = Literal["notebook"]

NOTEBOOK_SCOPE_INPUT_KIND_ENUM_VALUES: set[NotebookScopeInputKindEnum] = {
    "notebook",
}


def check_notebook_scope_input_kind_enum(value: str) -> NotebookScopeInputKindEnum:
    if value in NOTEBOOK_SCOPE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NOTEBOOK_SCOPE_INPUT_KIND_ENUM_VALUES!r}"
    )
