from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="NotifiedSurface")


@_attrs_define
class NotifiedSurface:
    """One surface told of the member's changes, by name (never its endpoint).

    Attributes:
        consumer (str): The surface's consumer, e.g. `tara`.
        name (str): The surface's name in words, e.g. `Tara`.
        type_ (str): What it was told: `memory.forgotten`, ...
        event_count (int):
        first_notified_at (datetime.datetime):
        last_notified_at (datetime.datetime):
        acknowledged (bool): It acknowledged every one of them.
        acknowledged_count (int):
        acknowledged_at (datetime.datetime | None): When the last was acknowledged; null until all are.
    """

    consumer: str
    name: str
    type_: str
    event_count: int
    first_notified_at: datetime.datetime
    last_notified_at: datetime.datetime
    acknowledged: bool
    acknowledged_count: int
    acknowledged_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        consumer = self.consumer

        name = self.name

        type_ = self.type_

        event_count = self.event_count

        first_notified_at = self.first_notified_at.isoformat()

        last_notified_at = self.last_notified_at.isoformat()

        acknowledged = self.acknowledged

        acknowledged_count = self.acknowledged_count

        acknowledged_at: None | str
        if isinstance(self.acknowledged_at, datetime.datetime):
            acknowledged_at = self.acknowledged_at.isoformat()
        else:
            acknowledged_at = self.acknowledged_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consumer": consumer,
                "name": name,
                "type": type_,
                "event_count": event_count,
                "first_notified_at": first_notified_at,
                "last_notified_at": last_notified_at,
                "acknowledged": acknowledged,
                "acknowledged_count": acknowledged_count,
                "acknowledged_at": acknowledged_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        consumer = d.pop("consumer")

        name = d.pop("name")

        type_ = d.pop("type")

        event_count = d.pop("event_count")

        first_notified_at = datetime.datetime.fromisoformat(d.pop("first_notified_at"))

        last_notified_at = datetime.datetime.fromisoformat(d.pop("last_notified_at"))

        acknowledged = d.pop("acknowledged")

        acknowledged_count = d.pop("acknowledged_count")

        def _parse_acknowledged_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                acknowledged_at_type_0 = datetime.datetime.fromisoformat(data)

                return acknowledged_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        acknowledged_at = _parse_acknowledged_at(d.pop("acknowledged_at"))

        notified_surface = cls(
            consumer=consumer,
            name=name,
            type_=type_,
            event_count=event_count,
            first_notified_at=first_notified_at,
            last_notified_at=last_notified_at,
            acknowledged=acknowledged,
            acknowledged_count=acknowledged_count,
            acknowledged_at=acknowledged_at,
        )

        notified_surface.additional_properties = d
        return notified_surface

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
