from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ContinuityWinningWriteOutput")


@_attrs_define
class ContinuityWinningWriteOutput:
    """Who won: a device and a time. Its place is read through the consent guard.

    Attributes:
        token_id (UUID):
        device_id (str):
        recorded_at (datetime.datetime):
    """

    token_id: UUID
    device_id: str
    recorded_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        token_id = str(self.token_id)

        device_id = self.device_id

        recorded_at = self.recorded_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "token_id": token_id,
                "device_id": device_id,
                "recorded_at": recorded_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token_id = UUID(d.pop("token_id"))

        device_id = d.pop("device_id")

        recorded_at = datetime.datetime.fromisoformat(d.pop("recorded_at"))

        continuity_winning_write_output = cls(
            token_id=token_id,
            device_id=device_id,
            recorded_at=recorded_at,
        )

        continuity_winning_write_output.additional_properties = d
        return continuity_winning_write_output

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
