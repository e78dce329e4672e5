from typing import Literal

SourceEnum = Literal["dsar-import", "inline-prompt", "settings-toggle"]

SOURCE_ENUM_VALUES: set[SourceEnum] = {
    "dsar-import",
    "inline-prompt",
    "settings-toggle",
}


def check_source_enum(value: str) -> SourceEnum:
    if value in SOURCE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SOURCE_ENUM_VALUES!r}")
