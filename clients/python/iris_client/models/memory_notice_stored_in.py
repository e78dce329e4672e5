from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_scope_kind_enum import MemoryScopeKindEnum, check_memory_scope_kind_enum

T = TypeVar("T", bound="MemoryNoticeStoredIn")


@_attrs_define
class MemoryNoticeStoredIn:
    """
    Attributes:
        kind (MemoryScopeKindEnum): * `profile` - Profile
            * `session` - Session
            * `scene` - Scene
            * `pose` - Pose
            * `notebook` - Notebook
            * `crisis` - Crisis
            * `operator-copilot` - Operator Copilot
            * `tenant` - Tenant
        label (str): The scope in the member's words, e.g. `About you`.
    """

    kind: MemoryScopeKindEnum
    label: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        label = self.label

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "label": label,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = check_memory_scope_kind_enum(d.pop("kind"))

        label = d.pop("label")

        memory_notice_stored_in = cls(
            kind=kind,
            label=label,
        )

        memory_notice_stored_in.additional_properties = d
        return memory_notice_stored_in

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
