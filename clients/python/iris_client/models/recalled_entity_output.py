from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.entity_kind_enum import EntityKindEnum, check_entity_kind_enum
from ..models.entity_state_enum import EntityStateEnum, check_entity_state_enum

T = TypeVar("T", bound="RecalledEntityOutput")


@_attrs_define
class RecalledEntityOutput:
    """
    Attributes:
        id (UUID):
        kind (EntityKindEnum): * `person` - Person
            * `subject` - Subject
            * `self` - Self
        state (EntityStateEnum): * `active` - Active
            * `archived` - Archived
            * `retired` - Retired
    """

    id: UUID
    kind: EntityKindEnum
    state: EntityStateEnum
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        kind: str = self.kind

        state: str = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        kind = check_entity_kind_enum(d.pop("kind"))

        state = check_entity_state_enum(d.pop("state"))

        recalled_entity_output = cls(
            id=id,
            kind=kind,
            state=state,
        )

        recalled_entity_output.additional_properties = d
        return recalled_entity_output

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
