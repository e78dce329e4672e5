from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.entity_state_enum import EntityStateEnum, check_entity_state_enum

T = TypeVar("T", bound="RelationshipOutput")


@_attrs_define
class RelationshipOutput:
    """
    Attributes:
        id (UUID):
        from_entity_id (UUID):
        to_entity_id (UUID):
        type_ (str): `sister`, `colleague` … as the note says; `about` (a person and a topic); "" when unknown.
        note (str):
        state (EntityStateEnum): * `active` - Active
            * `archived` - Archived
            * `retired` - Retired
        valid_from (datetime.datetime | None): When it became true, as you said it ("since 2019"), else when Iris
            learned it; null when you told only of its end.
        valid_from_precision (str): What `valid_from` is known to: `year`, `month` or `day`, as you said it; "" when you
            said no time (it is when Iris learned it).
        valid_to (datetime.datetime | None): When it stopped being true: as you said ("we broke up in March"), else when
            its fact was superseded; null: holds.
        valid_to_precision (str): What `valid_to` is known to, as `valid_from_precision`.
        learned_at (datetime.datetime): When Iris first learned it (for audit).
        end_learned_at (datetime.datetime | None): When Iris learned it had ended (for audit).
        decay_at (datetime.datetime | None):
        source_entry_id (None | UUID):
    """

    id: UUID
    from_entity_id: UUID
    to_entity_id: UUID
    type_: str
    note: str
    state: EntityStateEnum
    valid_from: datetime.datetime | None
    valid_from_precision: str
    valid_to: datetime.datetime | None
    valid_to_precision: str
    learned_at: datetime.datetime
    end_learned_at: datetime.datetime | None
    decay_at: datetime.datetime | None
    source_entry_id: None | UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        from_entity_id = str(self.from_entity_id)

        to_entity_id = str(self.to_entity_id)

        type_ = self.type_

        note = self.note

        state: str = self.state

        valid_from: None | str
        if isinstance(self.valid_from, datetime.datetime):
            valid_from = self.valid_from.isoformat()
        else:
            valid_from = self.valid_from

        valid_from_precision = self.valid_from_precision

        valid_to: None | str
        if isinstance(self.valid_to, datetime.datetime):
            valid_to = self.valid_to.isoformat()
        else:
            valid_to = self.valid_to

        valid_to_precision = self.valid_to_precision

        learned_at = self.learned_at.isoformat()

        end_learned_at: None | str
        if isinstance(self.end_learned_at, datetime.datetime):
            end_learned_at = self.end_learned_at.isoformat()
        else:
            end_learned_at = self.end_learned_at

        decay_at: None | str
        if isinstance(self.decay_at, datetime.datetime):
            decay_at = self.decay_at.isoformat()
        else:
            decay_at = self.decay_at

        source_entry_id: None | str
        if isinstance(self.source_entry_id, UUID):
            source_entry_id = str(self.source_entry_id)
        else:
            source_entry_id = self.source_entry_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "from_entity_id": from_entity_id,
                "to_entity_id": to_entity_id,
                "type": type_,
                "note": note,
                "state": state,
                "valid_from": valid_from,
                "valid_from_precision": valid_from_precision,
                "valid_to": valid_to,
                "valid_to_precision": valid_to_precision,
                "learned_at": learned_at,
                "end_learned_at": end_learned_at,
                "decay_at": decay_at,
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

        state = check_entity_state_enum(d.pop("state"))

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

        valid_from_precision = d.pop("valid_from_precision")

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

        valid_to_precision = d.pop("valid_to_precision")

        learned_at = datetime.datetime.fromisoformat(d.pop("learned_at"))

        def _parse_end_learned_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                end_learned_at_type_0 = datetime.datetime.fromisoformat(data)

                return end_learned_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        end_learned_at = _parse_end_learned_at(d.pop("end_learned_at"))

        def _parse_decay_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decay_at_type_0 = datetime.datetime.fromisoformat(data)

                return decay_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        decay_at = _parse_decay_at(d.pop("decay_at"))

        def _parse_source_entry_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                source_entry_id_type_0 = UUID(data)

                return source_entry_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        source_entry_id = _parse_source_entry_id(d.pop("source_entry_id"))

        relationship_output = cls(
            id=id,
            from_entity_id=from_entity_id,
            to_entity_id=to_entity_id,
            type_=type_,
            note=note,
            state=state,
            valid_from=valid_from,
            valid_from_precision=valid_from_precision,
            valid_to=valid_to,
            valid_to_precision=valid_to_precision,
            learned_at=learned_at,
            end_learned_at=end_learned_at,
            decay_at=decay_at,
            source_entry_id=source_entry_id,
        )

        relationship_output.additional_properties = d
        return relationship_output

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
