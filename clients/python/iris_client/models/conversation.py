from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Conversation")


@_attrs_define
class Conversation:
    """
    Attributes:
        session_id (str):
        turn_count (int):
        first_turn_at (datetime.datetime):
        last_turn_at (datetime.datetime):
    """

    session_id: str
    turn_count: int
    first_turn_at: datetime.datetime
    last_turn_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        session_id = self.session_id

        turn_count = self.turn_count

        first_turn_at = self.first_turn_at.isoformat()

        last_turn_at = self.last_turn_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "turn_count": turn_count,
                "first_turn_at": first_turn_at,
                "last_turn_at": last_turn_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        session_id = d.pop("session_id")

        turn_count = d.pop("turn_count")

        first_turn_at = datetime.datetime.fromisoformat(d.pop("first_turn_at"))

        last_turn_at = datetime.datetime.fromisoformat(d.pop("last_turn_at"))

        conversation = cls(
            session_id=session_id,
            turn_count=turn_count,
            first_turn_at=first_turn_at,
            last_turn_at=last_turn_at,
        )

        conversation.additional_properties = d
        return conversation

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
