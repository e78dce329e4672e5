from typing import Literal

OptOutEventKindEnum = Literal["opt-in", "opt-out"]

OPT_OUT_EVENT_KIND_ENUM_VALUES: set[OptOutEventKindEnum] = {
    "opt-in",
    "opt-out",
}


def check_opt_out_event_kind_enum(value: str) -> OptOutEventKindEnum:
    if value in OPT_OUT_EVENT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {OPT_OUT_EVENT_KIND_ENUM_VALUES!r}"
    )
