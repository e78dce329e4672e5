from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.opt_out_category_enum import OptOutCategoryEnum, check_opt_out_category_enum
from ..models.opt_out_event_kind_enum import OptOutEventKindEnum, check_opt_out_event_kind_enum

T = TypeVar("T", bound="OptOutEventOutput")


@_attrs_define
class OptOutEventOutput:
    """
    Attributes:
        id (UUID):
        sequence (int):
        category (OptOutCategoryEnum): * `memory` - Memory
            * `personalization` - Personalisation
            * `conversation_history` - Conversation history
            * `embodied` - Scenes and movement
            * `cross_domain_sharing` - Sharing between products
        kind (OptOutEventKindEnum): * `opt-out` - Opt Out
            * `opt-in` - Opt In
        actor_id (None | UUID):
        witness (str):
        occurred_at (datetime.datetime):
    """

    id: UUID
    sequence: int
    category: OptOutCategoryEnum
    kind: OptOutEventKindEnum
    actor_id: None | UUID
    witness: str
    occurred_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        sequence = self.sequence

        category: str = self.category

        kind: str = self.kind

        actor_id: None | str
        if isinstance(self.actor_id, UUID):
            actor_id = str(self.actor_id)
        else:
            actor_id = self.actor_id

        witness = self.witness

        occurred_at = self.occurred_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "sequence": sequence,
                "category": category,
                "kind": kind,
                "actor_id": actor_id,
                "witness": witness,
                "occurred_at": occurred_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        sequence = d.pop("sequence")

        category = check_opt_out_category_enum(d.pop("category"))

        kind = check_opt_out_event_kind_enum(d.pop("kind"))

        def _parse_actor_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                actor_id_type_0 = UUID(data)

                return actor_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        actor_id = _parse_actor_id(d.pop("actor_id"))

        witness = d.pop("witness")

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))

        opt_out_event_output = cls(
            id=id,
            sequence=sequence,
            category=category,
            kind=kind,
            actor_id=actor_id,
            witness=witness,
            occurred_at=occurred_at,
        )

        opt_out_event_output.additional_properties = d
        return opt_out_event_output

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
