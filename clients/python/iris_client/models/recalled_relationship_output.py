from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RecalledRelationshipOutput")


@_attrs_define
class RecalledRelationshipOutput:
    """
    Attributes:
        id (UUID):
        from_entity_id (UUID):
        to_entity_id (UUID):
        type_ (str):
        note (str):
        valid_from (datetime.datetime | None): When it became true, as the member said (else when Iris learned it); null
            when they told only of its end.
        valid_to (datetime.datetime | None): When it stopped being true.
        learned_at (datetime.datetime): When Iris learned it (for audit).
        source_entry_id (UUID):
    """

    id: UUID
    from_entity_id: UUID
    to_entity_id: UUID
    type_: str
    note: str
    valid_from: datetime.datetime | None
    valid_to: datetime.datetime | None
    learned_at: datetime.datetime
    source_entry_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        from_entity_id = str(self.from_entity_id)

        to_entity_id = str(self.to_entity_id)

        type_ = self.type_

        note = self.note

        valid_from: None | str
        if isinstance(self.valid_from, datetime.datetime):
            valid_from = self.valid_from.isoformat()
        else:
            valid_from = self.valid_from

        valid_to: None | str
        if isinstance(self.valid_to, datetime.datetime):
            valid_to = self.valid_to.isoformat()
        else:
            valid_to = self.valid_to

        learned_at = self.learned_at.isoformat()

        source_entry_id = str(self.source_entry_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "from_entity_id": from_entity_id,
                "to_entity_id": to_entity_id,
                "type": type_,
                "note": note,
                "valid_from": valid_from,
                "valid_to": valid_to,
                "learned_at": learned_at,
                "source_entry_id": source_entry_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        from_entity_id = UUID(d.pop("from_entity_id"))

        to_entity_id = UUID(d.pop("to_entity_id"))

        type_ = d.pop("type")

        note = d.pop("note")

        def _parse_valid_from(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_from_type_0 = datetime.datetime.fromisoformat(data)

                return valid_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        valid_from = _parse_valid_from(d.pop("valid_from"))

        def _parse_valid_to(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_to_type_0 = datetime.datetime.fromisoformat(data)

                return valid_to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        valid_to = _parse_valid_to(d.pop("valid_to"))

        learned_at = datetime.datetime.fromisoformat(d.pop("learned_at"))

        source_entry_id = UUID(d.pop("source_entry_id"))

        recalled_relationship_output = cls(
            id=id,
            from_entity_id=from_entity_id,
            to_entity_id=to_entity_id,
            type_=type_,
            note=note,
            valid_from=valid_from,
            valid_to=valid_to,
            learned_at=learned_at,
            source_entry_id=source_entry_id,
        )

        recalled_relationship_output.additional_properties = d
        return recalled_relationship_output

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
