from typing import Literal

DataRightsStatusEnum = Literal[
    "appealed",
    "cancelled",
    "completed",
    "expired",
    "failed",
    "in-progress",
    "submitted",
    "verified",
]

DATA_RIGHTS_STATUS_ENUM_VALUES: set[DataRightsStatusEnum] = {
    "appealed",
    "cancelled",
    "completed",
    "expired",
    "failed",
    "in-progress",
    "submitted",
    "verified",
}


def check_data_rights_status_enum(value: str) -> DataRightsStatusEnum:
    if value in DATA_RIGHTS_STATUS_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {DATA_RIGHTS_STATUS_ENUM_VALUES!r}"
    )
