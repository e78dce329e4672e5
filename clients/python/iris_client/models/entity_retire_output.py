from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.entity_retire_output_outcome_enum import (
    EntityRetireOutputOutcomeEnum,
    check_entity_retire_output_outcome_enum,
)

T = TypeVar("T", bound="EntityRetireOutput")


@_attrs_define
class EntityRetireOutput:
    """
    Attributes:
        id (UUID):
        outcome (EntityRetireOutputOutcomeEnum): * `retired` - retired
            * `already-retired` - already-retired
        erased_count (int):
    """

    id: UUID
    outcome: EntityRetireOutputOutcomeEnum
    erased_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        outcome: str = self.outcome

        erased_count = self.erased_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "outcome": outcome,
                "erased_count": erased_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        outcome = check_entity_retire_output_outcome_enum(d.pop("outcome"))

        erased_count = d.pop("erased_count")

        entity_retire_output = cls(
            id=id,
            outcome=outcome,
            erased_count=erased_count,
        )

        entity_retire_output.additional_properties = d
        return entity_retire_output

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
