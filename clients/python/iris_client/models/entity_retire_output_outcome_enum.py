from typing import Literal

EntityRetireOutputOutcomeEnum = Literal["already-retired", "retired"]

ENTITY_RETIRE_OUTPUT_OUTCOME_ENUM_VALUES: set[EntityRetireOutputOutcomeEnum] = {
    "already-retired",
    "retired",
}


def check_entity_retire_output_outcome_enum(value: str) -> EntityRetireOutputOutcomeEnum:
    if value in ENTITY_RETIRE_OUTPUT_OUTCOME_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ENTITY_RETIRE_OUTPUT_OUTCOME_ENUM_VALUES!r}"
    )
