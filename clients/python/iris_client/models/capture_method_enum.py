from typing import Literal

CaptureMethodEnum = Literal[
    "api", "dsar-import", "inline-prompt", "operator-recorded", "settings-toggle"
]

CAPTURE_METHOD_ENUM_VALUES: set[CaptureMethodEnum] = {
    "api",
    "dsar-import",
    "inline-prompt",
    "operator-recorded",
    "settings-toggle",
}


def check_capture_method_enum(value: str) -> CaptureMethodEnum:
    if value in CAPTURE_METHOD_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CAPTURE_METHOD_ENUM_VALUES!r}")
