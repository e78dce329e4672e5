from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MemoryEditPreview")


@_attrs_define
class MemoryEditPreview:
    """
    Attributes:
        conflicting_entry_ids (list[UUID]): Entries that saving would supersede (they share the new conflict key).
        storage_refusal (None | str): The storage gate's reason code, if saving would be refused.
    """

    conflicting_entry_ids: list[UUID]
    storage_refusal: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conflicting_entry_ids = []
        for conflicting_entry_ids_item_data in self.conflicting_entry_ids:
            conflicting_entry_ids_item = str(conflicting_entry_ids_item_data)
            conflicting_entry_ids.append(conflicting_entry_ids_item)

        storage_refusal: None | str
        storage_refusal = self.storage_refusal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conflicting_entry_ids": conflicting_entry_ids,
                "storage_refusal": storage_refusal,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        conflicting_entry_ids = []
        _conflicting_entry_ids = d.pop("conflicting_entry_ids")
        for conflicting_entry_ids_item_data in _conflicting_entry_ids:
            conflicting_entry_ids_item = UUID(conflicting_entry_ids_item_data)

            conflicting_entry_ids.append(conflicting_entry_ids_item)

        def _parse_storage_refusal(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        storage_refusal = _parse_storage_refusal(d.pop("storage_refusal"))

        memory_edit_preview = cls(
            conflicting_entry_ids=conflicting_entry_ids,
            storage_refusal=storage_refusal,
        )

        memory_edit_preview.additional_properties = d
        return memory_edit_preview

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
