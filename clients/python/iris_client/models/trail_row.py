from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.data_rights_status_enum import DataRightsStatusEnum, check_data_rights_status_enum
from ..models.data_rights_trail_event_enum import (
    DataRightsTrailEventEnum,
    check_data_rights_trail_event_enum,
)

T = TypeVar("T", bound="TrailRow")


@_attrs_define
class TrailRow:
    """
    Attributes:
        status (DataRightsStatusEnum):
        event (DataRightsTrailEventEnum):
        at (datetime.datetime):
    """

    status: DataRightsStatusEnum
    event: DataRightsTrailEventEnum
    at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status: str = self.status

        event: str = self.event

        at = self.at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "event": event,
                "at": at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = check_data_rights_status_enum(d.pop("status"))

        event = check_data_rights_trail_event_enum(d.pop("event"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        trail_row = cls(
            status=status,
            event=event,
            at=at,
        )

        trail_row.additional_properties = d
        return trail_row

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
