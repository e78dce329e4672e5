from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.entity_kind_enum import EntityKindEnum, check_entity_kind_enum
from ..models.entity_state_enum import EntityStateEnum, check_entity_state_enum

T = TypeVar("T", bound="EntityOutput")


@_attrs_define
class EntityOutput:
    """
    Attributes:
        id (UUID):
        kind (EntityKindEnum): * `person` - Person
            * `subject` - Subject
            * `self` - Self
        state (EntityStateEnum): * `active` - Active
            * `archived` - Archived
            * `retired` - Retired
        label (None | str): The name you gave (a person) or the topic; null when there is none.
        entry_count (int):
        relationship_count (int):
        created_at (datetime.datetime):
        state_changed_at (datetime.datetime):
    """

    id: UUID
    kind: EntityKindEnum
    state: EntityStateEnum
    label: None | str
    entry_count: int
    relationship_count: int
    created_at: datetime.datetime
    state_changed_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        kind: str = self.kind

        state: str = self.state

        label: None | str
        label = self.label

        entry_count = self.entry_count

        relationship_count = self.relationship_count

        created_at = self.created_at.isoformat()

        state_changed_at = self.state_changed_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "state": state,
                "label": label,
                "entry_count": entry_count,
                "relationship_count": relationship_count,
                "created_at": created_at,
                "state_changed_at": state_changed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        kind = check_entity_kind_enum(d.pop("kind"))

        state = check_entity_state_enum(d.pop("state"))

        def _parse_label(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        label = _parse_label(d.pop("label"))

        entry_count = d.pop("entry_count")

        relationship_count = d.pop("relationship_count")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        state_changed_at = datetime.datetime.fromisoformat(d.pop("state_changed_at"))

        entity_output = cls(
            id=id,
            kind=kind,
            state=state,
            label=label,
            entry_count=entry_count,
            relationship_count=relationship_count,
            created_at=created_at,
            state_changed_at=state_changed_at,
        )

        entity_output.additional_properties = d
        return entity_output

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
