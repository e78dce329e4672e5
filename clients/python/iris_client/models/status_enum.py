from typing import Literal

StatusEnum = Literal["denied", "expired", "granted", "withdrawn"]

STATUS_ENUM_VALUES: set[StatusEnum] = {
    "denied",
    "expired",
    "granted",
    "withdrawn",
}


def check_status_enum(value: str) -> StatusEnum:
    if value in STATUS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {STATUS_ENUM_VALUES!r}")
