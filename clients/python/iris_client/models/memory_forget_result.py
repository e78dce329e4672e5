from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MemoryForgetResult")


@_attrs_define
class MemoryForgetResult:
    """
    Attributes:
        tombstoned_ids (list[UUID]):
        tombstoned_count (int):
    """

    tombstoned_ids: list[UUID]
    tombstoned_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tombstoned_ids = []
        for tombstoned_ids_item_data in self.tombstoned_ids:
            tombstoned_ids_item = str(tombstoned_ids_item_data)
            tombstoned_ids.append(tombstoned_ids_item)

        tombstoned_count = self.tombstoned_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tombstoned_ids": tombstoned_ids,
                "tombstoned_count": tombstoned_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        tombstoned_ids = []
        _tombstoned_ids = d.pop("tombstoned_ids")
        for tombstoned_ids_item_data in _tombstoned_ids:
            tombstoned_ids_item = UUID(tombstoned_ids_item_data)

            tombstoned_ids.append(tombstoned_ids_item)

        tombstoned_count = d.pop("tombstoned_count")

        memory_forget_result = cls(
            tombstoned_ids=tombstoned_ids,
            tombstoned_count=tombstoned_count,
        )

        memory_forget_result.additional_properties = d
        return memory_forget_result

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
