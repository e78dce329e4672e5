from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.memory_forget_selected_result_by_category import (
        MemoryForgetSelectedResultByCategory,
    )


T = TypeVar("T", bound="MemoryForgetSelectedResult")


@_attrs_define
class MemoryForgetSelectedResult:
    """
    Attributes:
        forgotten_ids (list[UUID]):
        forgotten_count (int):
        by_category (MemoryForgetSelectedResultByCategory):
    """

    forgotten_ids: list[UUID]
    forgotten_count: int
    by_category: MemoryForgetSelectedResultByCategory
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        forgotten_ids = []
        for forgotten_ids_item_data in self.forgotten_ids:
            forgotten_ids_item = str(forgotten_ids_item_data)
            forgotten_ids.append(forgotten_ids_item)

        forgotten_count = self.forgotten_count

        by_category = self.by_category.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "forgotten_ids": forgotten_ids,
                "forgotten_count": forgotten_count,
                "by_category": by_category,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_forget_selected_result_by_category import (
            MemoryForgetSelectedResultByCategory,
        )

        d = dict(src_dict)
        forgotten_ids = []
        _forgotten_ids = d.pop("forgotten_ids")
        for forgotten_ids_item_data in _forgotten_ids:
            forgotten_ids_item = UUID(forgotten_ids_item_data)

            forgotten_ids.append(forgotten_ids_item)

        forgotten_count = d.pop("forgotten_count")

        by_category = MemoryForgetSelectedResultByCategory.from_dict(d.pop("by_category"))

        memory_forget_selected_result = cls(
            forgotten_ids=forgotten_ids,
            forgotten_count=forgotten_count,
            by_category=by_category,
        )

        memory_forget_selected_result.additional_properties = d
        return memory_forget_selected_result

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
