from typing import Literal

DataRightsTrailEventEnum = Literal[
    "appealed",
    "artifact-removed",
    "cancelled",
    "code-destroyed",
    "code-issued",
    "code-rejected",
    "completed",
    "downloaded",
    "expired",
    "extended",
    "failed",
    "held",
    "in-progress",
    "mail-undelivered",
    "reactivated",
    "step-completed",
    "submitted",
    "verified",
]

DATA_RIGHTS_TRAIL_EVENT_ENUM_VALUES: set[DataRightsTrailEventEnum] = {
    "appealed",
    "artifact-removed",
    "cancelled",
    "code-destroyed",
    "code-issued",
    "code-rejected",
    "completed",
    "downloaded",
    "expired",
    "extended",
    "failed",
    "held",
    "in-progress",
    "mail-undelivered",
    "reactivated",
    "step-completed",
    "submitted",
    "verified",
}


def check_data_rights_trail_event_enum(value: str) -> DataRightsTrailEventEnum:
    if value in DATA_RIGHTS_TRAIL_EVENT_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {DATA_RIGHTS_TRAIL_EVENT_ENUM_VALUES!r}"
    )
