from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ConversationForgotten")


@_attrs_define
class ConversationForgotten:
    """
    Attributes:
        session_id (str):
        turns_erased (int): Turns of the conversation deleted.
        short_term_rows_erased (int): Short-term memory rows of the conversation deleted.
        entries_erased (int): Memories whose provenance was only this conversation, now tombstones (ids and times kept,
            no text).
    """

    session_id: str
    turns_erased: int
    short_term_rows_erased: int
    entries_erased: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        session_id = self.session_id

        turns_erased = self.turns_erased

        short_term_rows_erased = self.short_term_rows_erased

        entries_erased = self.entries_erased

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "turns_erased": turns_erased,
                "short_term_rows_erased": short_term_rows_erased,
                "entries_erased": entries_erased,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        session_id = d.pop("session_id")

        turns_erased = d.pop("turns_erased")

        short_term_rows_erased = d.pop("short_term_rows_erased")

        entries_erased = d.pop("entries_erased")

        conversation_forgotten = cls(
            session_id=session_id,
            turns_erased=turns_erased,
            short_term_rows_erased=short_term_rows_erased,
            entries_erased=entries_erased,
        )

        conversation_forgotten.additional_properties = d
        return conversation_forgotten

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
