from typing import Literal

DeliveryEnum = Literal["failed", "pending", "sent"]

DELIVERY_ENUM_VALUES: set[DeliveryEnum] = {
    "failed",
    "pending",
    "sent",
}


def check_delivery_enum(value: str) -> DeliveryEnum:
    if value in DELIVERY_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DELIVERY_ENUM_VALUES!r}")
