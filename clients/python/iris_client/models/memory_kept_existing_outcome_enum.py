from typing import Literal

MemoryKeptExistingOutcomeEnum = Literal["kept-existing", "unchanged"]

MEMORY_KEPT_EXISTING_OUTCOME_ENUM_VALUES: set[MemoryKeptExistingOutcomeEnum] = {
    "kept-existing",
    "unchanged",
}


def check_memory_kept_existing_outcome_enum(value: str) -> MemoryKeptExistingOutcomeEnum:
    if value in MEMORY_KEPT_EXISTING_OUTCOME_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MEMORY_KEPT_EXISTING_OUTCOME_ENUM_VALUES!r}"
    )
