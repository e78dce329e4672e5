from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.answer_enum import AnswerEnum, check_answer_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemoryNoticeAnswerInputRequest")


@_attrs_define
class MemoryNoticeAnswerInputRequest:
    """Refuses fields it does not know, so a client never believes it set one.

    Attributes:
        accept (bool | Unset):
        answer (AnswerEnum | Unset): * `confirm` - confirm
            * `forget` - forget
            * `keep` - keep
    """

    accept: bool | Unset = UNSET
    answer: AnswerEnum | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accept = self.accept

        answer: str | Unset = UNSET
        if not isinstance(self.answer, Unset):
            answer = self.answer

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if accept is not UNSET:
            field_dict["accept"] = accept
        if answer is not UNSET:
            field_dict["answer"] = answer

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        accept = d.pop("accept", UNSET)

        _answer = d.pop("answer", UNSET)
        answer: AnswerEnum | Unset
        if isinstance(_answer, Unset):
            answer = UNSET
        else:
            answer = check_answer_enum(_answer)

        memory_notice_answer_input_request = cls(
            accept=accept,
            answer=answer,
        )

        memory_notice_answer_input_request.additional_properties = d
        return memory_notice_answer_input_request

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
