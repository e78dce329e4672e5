from typing import Literal

ContinuationTokenWriteOutputOutcomeEnum = Literal["created", "replaced", "superseded"]

CONTINUATION_TOKEN_WRITE_OUTPUT_OUTCOME_ENUM_VALUES: set[
    ContinuationTokenWriteOutputOutcomeEnum
] = {
    "created",
    "replaced",
    "superseded",
}


def check_continuation_token_write_output_outcome_enum(
    value: str,
) -> ContinuationTokenWriteOutputOutcomeEnum:
    if value in CONTINUATION_TOKEN_WRITE_OUTPUT_OUTCOME_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTINUATION_TOKEN_WRITE_OUTPUT_OUTCOME_ENUM_VALUES!r}"
    )
