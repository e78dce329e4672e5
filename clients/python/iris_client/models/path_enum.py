from typing import Literal

PathEnum = Literal["dsar-fulfillment", "incident-escalation", "routine-review"]

PATH_ENUM_VALUES: set[PathEnum] = {
    "dsar-fulfillment",
    "incident-escalation",
    "routine-review",
}


def check_path_enum(value: str) -> PathEnum:
    if value in PATH_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PATH_ENUM_VALUES!r}")
