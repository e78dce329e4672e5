from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.speaker_enum import SpeakerEnum, check_speaker_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="TurnAppendRequest")


@_attrs_define
class TurnAppendRequest:
    """
    Attributes:
        speaker (SpeakerEnum): * `member` - Member
            * `assistant` - Assistant
            * `system` - System
        text (str): What was said: visible text, no NUL characters.
        redact_pii (bool | Unset): Replace emails, phones, cards and addresses by tokens before storage. Default: False.
    """

    speaker: SpeakerEnum
    text: str
    redact_pii: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        speaker: str = self.speaker

        text = self.text

        redact_pii = self.redact_pii

        field_dict: dict[str, Any] = {}

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

        turn_append_request = cls(
            speaker=speaker,
            text=text,
            redact_pii=redact_pii,
        )

        return turn_append_request
