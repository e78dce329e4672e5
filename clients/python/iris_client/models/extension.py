from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Extension")


@_attrs_define
class Extension:
    """
    Attributes:
        extended_deadline_at (datetime.datetime):
        reason (str):
        extended_at (datetime.datetime):
    """

    extended_deadline_at: datetime.datetime
    reason: str
    extended_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        extended_deadline_at = self.extended_deadline_at.isoformat()

        reason = self.reason

        extended_at = self.extended_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "extended_deadline_at": extended_deadline_at,
                "reason": reason,
                "extended_at": extended_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        extended_deadline_at = datetime.datetime.fromisoformat(d.pop("extended_deadline_at"))

        reason = d.pop("reason")

        extended_at = datetime.datetime.fromisoformat(d.pop("extended_at"))

        extension = cls(
            extended_deadline_at=extended_deadline_at,
            reason=reason,
            extended_at=extended_at,
        )

        extension.additional_properties = d
        return extension

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
