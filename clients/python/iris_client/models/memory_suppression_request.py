from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reason_enum import ReasonEnum, check_reason_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemorySuppressionRequest")


@_attrs_define
class MemorySuppressionRequest:
    """
    Attributes:
        reason (ReasonEnum): * `crisis-frame` - Crisis Frame
            * `user-pause` - User Pause
            * `sensitive-category` - Sensitive Category
            * `tenant-quarantine` - Tenant Quarantine
        started_at (datetime.datetime):
        ends_at (datetime.datetime | None | Unset):
        notes (str | Unset):
    """

    reason: ReasonEnum
    started_at: datetime.datetime
    ends_at: datetime.datetime | None | Unset = UNSET
    notes: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason: str = self.reason

        started_at = self.started_at.isoformat()

        ends_at: None | str | Unset
        if isinstance(self.ends_at, Unset):
            ends_at = UNSET
        elif isinstance(self.ends_at, datetime.datetime):
            ends_at = self.ends_at.isoformat()
        else:
            ends_at = self.ends_at

        notes = self.notes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
                "started_at": started_at,
            }
        )
        if ends_at is not UNSET:
            field_dict["ends_at"] = ends_at
        if notes is not UNSET:
            field_dict["notes"] = notes

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reason = check_reason_enum(d.pop("reason"))

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        def _parse_ends_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ends_at_type_0 = datetime.datetime.fromisoformat(data)

                return ends_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        ends_at = _parse_ends_at(d.pop("ends_at", UNSET))

        notes = d.pop("notes", UNSET)

        memory_suppression_request = cls(
            reason=reason,
            started_at=started_at,
            ends_at=ends_at,
            notes=notes,
        )

        memory_suppression_request.additional_properties = d
        return memory_suppression_request

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
