from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MemoryMultiActor")


@_attrs_define
class MemoryMultiActor:
    """
    Attributes:
        actor_handle (str): An opaque keyed hash, never a name.
        relationship_note (str):
        sensitive_interaction (bool):
    """

    actor_handle: str
    relationship_note: str
    sensitive_interaction: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actor_handle = self.actor_handle

        relationship_note = self.relationship_note

        sensitive_interaction = self.sensitive_interaction

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actor_handle": actor_handle,
                "relationship_note": relationship_note,
                "sensitive_interaction": sensitive_interaction,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        actor_handle = d.pop("actor_handle")

        relationship_note = d.pop("relationship_note")

        sensitive_interaction = d.pop("sensitive_interaction")

        memory_multi_actor = cls(
            actor_handle=actor_handle,
            relationship_note=relationship_note,
            sensitive_interaction=sensitive_interaction,
        )

        memory_multi_actor.additional_properties = d
        return memory_multi_actor

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
