from typing import Literal

V1MeConsentsEventsListKind = Literal["denial", "expiry", "grant", "withdrawal"]

V1_ME_CONSENTS_EVENTS_LIST_KIND_VALUES: set[V1MeConsentsEventsListKind] = {
    "denial",
    "expiry",
    "grant",
    "withdrawal",
}


def check_v1_me_consents_events_list_kind(value: str) -> V1MeConsentsEventsListKind:
    if value in V1_ME_CONSENTS_EVENTS_LIST_KIND_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_ME_CONSENTS_EVENTS_LIST_KIND_VALUES!r}"
    )
