from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.type_enum import TypeEnum, check_type_enum

T = TypeVar("T", bound="ChangeEvent")


@_attrs_define
class ChangeEvent:
    """
    Attributes:
        id (UUID): Unique: deduplicate by it.
        type_ (TypeEnum): * `memory.forgotten` - Memory Forgotten
            * `memory.corrected` - Memory Corrected
            * `consent.withdrawn` - Consent Withdrawn
            * `person.forgotten` - Person Forgotten
            * `member.erased` - Member Erased
        member_id (UUID):
        entry_ids (list[UUID]):
        revision_ids (list[UUID]):
        entity_ids (list[UUID]):
        consent_type (str): consent.withdrawn: the consent that ended ('' otherwise).
        occurred_at (datetime.datetime):
    """

    id: UUID
    type_: TypeEnum
    member_id: UUID
    entry_ids: list[UUID]
    revision_ids: list[UUID]
    entity_ids: list[UUID]
    consent_type: str
    occurred_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        type_: str = self.type_

        member_id = str(self.member_id)

        entry_ids = []
        for entry_ids_item_data in self.entry_ids:
            entry_ids_item = str(entry_ids_item_data)
            entry_ids.append(entry_ids_item)

        revision_ids = []
        for revision_ids_item_data in self.revision_ids:
            revision_ids_item = str(revision_ids_item_data)
            revision_ids.append(revision_ids_item)

        entity_ids = []
        for entity_ids_item_data in self.entity_ids:
            entity_ids_item = str(entity_ids_item_data)
            entity_ids.append(entity_ids_item)

        consent_type = self.consent_type

        occurred_at = self.occurred_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "member_id": member_id,
                "entry_ids": entry_ids,
                "revision_ids": revision_ids,
                "entity_ids": entity_ids,
                "consent_type": consent_type,
                "occurred_at": occurred_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        type_ = check_type_enum(d.pop("type"))

        member_id = UUID(d.pop("member_id"))

        entry_ids = []
        _entry_ids = d.pop("entry_ids")
        for entry_ids_item_data in _entry_ids:
            entry_ids_item = UUID(entry_ids_item_data)

            entry_ids.append(entry_ids_item)

        revision_ids = []
        _revision_ids = d.pop("revision_ids")
        for revision_ids_item_data in _revision_ids:
            revision_ids_item = UUID(revision_ids_item_data)

            revision_ids.append(revision_ids_item)

        entity_ids = []
        _entity_ids = d.pop("entity_ids")
        for entity_ids_item_data in _entity_ids:
            entity_ids_item = UUID(entity_ids_item_data)

            entity_ids.append(entity_ids_item)

        consent_type = d.pop("consent_type")

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))

        change_event = cls(
            id=id,
            type_=type_,
            member_id=member_id,
            entry_ids=entry_ids,
            revision_ids=revision_ids,
            entity_ids=entity_ids,
            consent_type=consent_type,
            occurred_at=occurred_at,
        )

        change_event.additional_properties = d
        return change_event

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
