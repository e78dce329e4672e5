from typing import Literal

ConsentEventKindEnum = Literal["denial", "expiry", "grant", "withdrawal"]

CONSENT_EVENT_KIND_ENUM_VALUES: set[ConsentEventKindEnum] = {
    "denial",
    "expiry",
    "grant",
    "withdrawal",
}


def check_consent_event_kind_enum(value: str) -> ConsentEventKindEnum:
    if value in CONSENT_EVENT_KIND_ENUM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONSENT_EVENT_KIND_ENUM_VALUES!r}"
    )
