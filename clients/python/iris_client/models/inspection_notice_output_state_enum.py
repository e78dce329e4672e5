from typing import Literal

InspectionNoticeOutputStateEnum = Literal["delivered", "pending"]

INSPECTION_NOTICE_OUTPUT_STATE_ENUM_VALUES: set[InspectionNoticeOutputStateEnum] = {
    "delivered",
    "pending",
}


def check_inspection_notice_output_state_enum(value: str) -> InspectionNoticeOutputStateEnum:
    if value in INSPECTION_NOTICE_OUTPUT_STATE_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {INSPECTION_NOTICE_OUTPUT_STATE_ENUM_VALUES!r}"
    )
