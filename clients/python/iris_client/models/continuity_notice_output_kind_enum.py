from typing import Literal

ContinuityNoticeOutputKindEnum = Literal["also-playing-elsewhere"]

CONTINUITY_NOTICE_OUTPUT_KIND_ENUM_VALUES: set[ContinuityNoticeOutputKindEnum] = {
    "also-playing-elsewhere",
}


def check_continuity_notice_output_kind_enum(value: str) -> ContinuityNoticeOutputKindEnum:
    if value in CONTINUITY_NOTICE_OUTPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTINUITY_NOTICE_OUTPUT_KIND_ENUM_VALUES!r}"
    )
