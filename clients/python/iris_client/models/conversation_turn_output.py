from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.speaker_enum import SpeakerEnum, check_speaker_enum

T = TypeVar("T", bound="ConversationTurnOutput")


@_attrs_define
class ConversationTurnOutput:
    """
    Attributes:
        id (UUID):
        sequence (int):
        session_id (str):
        speaker (SpeakerEnum): * `member` - Member
            * `assistant` - Assistant
            * `system` - System
        redacted_kinds (Any):
        created_at (datetime.datetime):
    """

    id: UUID
    sequence: int
    session_id: str
    speaker: SpeakerEnum
    redacted_kinds: Any
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        sequence = self.sequence

        session_id = self.session_id

        speaker: str = self.speaker

        redacted_kinds = self.redacted_kinds

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "sequence": sequence,
                "session_id": session_id,
                "speaker": speaker,
                "redacted_kinds": redacted_kinds,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        sequence = d.pop("sequence")

        session_id = d.pop("session_id")

        speaker = check_speaker_enum(d.pop("speaker"))

        redacted_kinds = d.pop("redacted_kinds")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        conversation_turn_output = cls(
            id=id,
            sequence=sequence,
            session_id=session_id,
            speaker=speaker,
            redacted_kinds=redacted_kinds,
            created_at=created_at,
        )

        conversation_turn_output.additional_properties = d
        return conversation_turn_output

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
