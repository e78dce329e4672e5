from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.speaker_enum import SpeakerEnum, check_speaker_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="ConversationTurnInputRequest")


@_attrs_define
class ConversationTurnInputRequest:
    """Refuses fields it does not know, so a client never believes it set one.

    Attributes:
        speaker (SpeakerEnum): * `member` - Member
            * `assistant` - Assistant
            * `system` - System
        text (str):
        redact_pii (bool | Unset):  Default: False.
    """

    speaker: SpeakerEnum
    text: str
    redact_pii: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        speaker: str = self.speaker

        text = self.text

        redact_pii = self.redact_pii

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "speaker": speaker,
                "text": text,
            }
        )
        if redact_pii is not UNSET:
            field_dict["redact_pii"] = redact_pii

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        speaker = check_speaker_enum(d.pop("speaker"))

        text = d.pop("text")

        redact_pii = d.pop("redact_pii", UNSET)

        conversation_turn_input_request = cls(
            speaker=speaker,
            text=text,
            redact_pii=redact_pii,
        )

        conversation_turn_input_request.additional_properties = d
        return conversation_turn_input_request

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
