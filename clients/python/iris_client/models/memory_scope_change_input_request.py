from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.memory_scope_request import MemoryScopeRequest


T = TypeVar("T", bound="MemoryScopeChangeInputRequest")


@_attrs_define
class MemoryScopeChangeInputRequest:
    """
    Attributes:
        scope (MemoryScopeRequest): A scope key: `kind` plus exactly the identifiers that kind needs.
    """

    scope: MemoryScopeRequest
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scope = self.scope.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scope": scope,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_scope_request import MemoryScopeRequest

        d = dict(src_dict)
        scope = MemoryScopeRequest.from_dict(d.pop("scope"))

        memory_scope_change_input_request = cls(
            scope=scope,
        )

        memory_scope_change_input_request.additional_properties = d
        return memory_scope_change_input_request

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
