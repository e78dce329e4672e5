from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="MultiActorWriteInput")


@_attrs_define
class MultiActorWriteInput:
    """A mention in a write: the writer names the person (hashed server-side) or reuses a
    handle it got back earlier, exactly one of the two.

        Attributes:
            actor_name (None | str | Unset):
            actor_handle (None | str | Unset):
            relationship_note (str | Unset):  Default: ''.
            sensitive_interaction (bool | Unset):  Default: False.
    """

    actor_name: None | str | Unset = UNSET
    actor_handle: None | str | Unset = UNSET
    relationship_note: str | Unset = ""
    sensitive_interaction: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        actor_name: None | str | Unset
        if isinstance(self.actor_name, Unset):
            actor_name = UNSET
        else:
            actor_name = self.actor_name

        actor_handle: None | str | Unset
        if isinstance(self.actor_handle, Unset):
            actor_handle = UNSET
        else:
            actor_handle = self.actor_handle

        relationship_note = self.relationship_note

        sensitive_interaction = self.sensitive_interaction

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if actor_name is not UNSET:
            field_dict["actor_name"] = actor_name
        if actor_handle is not UNSET:
            field_dict["actor_handle"] = actor_handle
        if relationship_note is not UNSET:
            field_dict["relationship_note"] = relationship_note
        if sensitive_interaction is not UNSET:
            field_dict["sensitive_interaction"] = sensitive_interaction

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_actor_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        actor_name = _parse_actor_name(d.pop("actor_name", UNSET))

        def _parse_actor_handle(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        actor_handle = _parse_actor_handle(d.pop("actor_handle", UNSET))

        relationship_note = d.pop("relationship_note", UNSET)

        sensitive_interaction = d.pop("sensitive_interaction", UNSET)

        multi_actor_write_input = cls(
            actor_name=actor_name,
            actor_handle=actor_handle,
            relationship_note=relationship_note,
            sensitive_interaction=sensitive_interaction,
        )

        return multi_actor_write_input
