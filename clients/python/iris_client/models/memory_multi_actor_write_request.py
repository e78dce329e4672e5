from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MemoryMultiActorWriteRequest")


@_attrs_define
class MemoryMultiActorWriteRequest:
    """
    Attributes:
        actor_name (str | Unset): Hashed into a handle server-side; never stored.
        actor_handle (str | Unset): A handle returned earlier.
        relationship_note (str | Unset):
        sensitive_interaction (bool | Unset):
    """

    actor_name: str | Unset = UNSET
    actor_handle: str | Unset = UNSET
    relationship_note: str | Unset = UNSET
    sensitive_interaction: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actor_name = self.actor_name

        actor_handle = self.actor_handle

        relationship_note = self.relationship_note

        sensitive_interaction = self.sensitive_interaction

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if actor_name is not UNSET:
            field_dict["actor_name"] = actor_name
        if actor_handle is not UNSET:
            field_dict["actor_handle"] = actor_handle
        if relationship_note is not UNSET:
            field_dict["relationship_note"] = relationship_note
        if sensitive_interaction is not UNSET:
            field_dict["sensitive_interaction"] = sensitive_interaction

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        actor_name = d.pop("actor_name", UNSET)

        actor_handle = d.pop("actor_handle", UNSET)

        relationship_note = d.pop("relationship_note", UNSET)

        sensitive_interaction = d.pop("sensitive_interaction", UNSET)

        memory_multi_actor_write_request = cls(
            actor_name=actor_name,
            actor_handle=actor_handle,
            relationship_note=relationship_note,
            sensitive_interaction=sensitive_interaction,
        )

        memory_multi_actor_write_request.additional_properties = d
        return memory_multi_actor_write_request

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
