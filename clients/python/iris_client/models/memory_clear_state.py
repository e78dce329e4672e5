from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.memory_clear_request import MemoryClearRequest


T = TypeVar("T", bound="MemoryClearState")


@_attrs_define
class MemoryClearState:
    """
    Attributes:
        pending (MemoryClearRequest | None):
    """

    pending: MemoryClearRequest | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_clear_request import MemoryClearRequest

        pending: dict[str, Any] | None
        if isinstance(self.pending, MemoryClearRequest):
            pending = self.pending.to_dict()
        else:
            pending = self.pending

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pending": pending,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_clear_request import MemoryClearRequest

        d = dict(src_dict)

        def _parse_pending(data: object) -> MemoryClearRequest | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pending_type_1 = MemoryClearRequest.from_dict(data)

                return pending_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemoryClearRequest | None, data)

        pending = _parse_pending(d.pop("pending"))

        memory_clear_state = cls(
            pending=pending,
        )

        memory_clear_state.additional_properties = d
        return memory_clear_state

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
