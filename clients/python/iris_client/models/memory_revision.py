from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.action_enum import ActionEnum, check_action_enum

T = TypeVar("T", bound="MemoryRevision")


@_attrs_define
class MemoryRevision:
    """
    Attributes:
        number (int):
        revision_id (UUID):
        previous_revision_id (None | UUID):
        action (ActionEnum): * `created` - Created
            * `edited` - Edited
            * `confirmed` - Confirmed
            * `paused` - Paused
            * `resumed` - Resumed
            * `scope-changed` - Scope Changed
            * `promoted` - Promoted
            * `superseded` - Superseded
            * `summarized` - Summarized
            * `tombstoned` - Tombstoned
        actor (str):
        changed_fields (list[str]):
        created_at (datetime.datetime):
        content (Any): The entry's contract fields as of this revision.
    """

    number: int
    revision_id: UUID
    previous_revision_id: None | UUID
    action: ActionEnum
    actor: str
    changed_fields: list[str]
    created_at: datetime.datetime
    content: Any
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        number = self.number

        revision_id = str(self.revision_id)

        previous_revision_id: None | str
        if isinstance(self.previous_revision_id, UUID):
            previous_revision_id = str(self.previous_revision_id)
        else:
            previous_revision_id = self.previous_revision_id

        action: str = self.action

        actor = self.actor

        changed_fields = self.changed_fields

        created_at = self.created_at.isoformat()

        content = self.content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "number": number,
                "revision_id": revision_id,
                "previous_revision_id": previous_revision_id,
                "action": action,
                "actor": actor,
                "changed_fields": changed_fields,
                "created_at": created_at,
                "content": content,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        number = d.pop("number")

        revision_id = UUID(d.pop("revision_id"))

        def _parse_previous_revision_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_revision_id_type_0 = UUID(data)

                return previous_revision_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        previous_revision_id = _parse_previous_revision_id(d.pop("previous_revision_id"))

        action = check_action_enum(d.pop("action"))

        actor = d.pop("actor")

        changed_fields = cast(list[str], d.pop("changed_fields"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        content = d.pop("content")

        memory_revision = cls(
            number=number,
            revision_id=revision_id,
            previous_revision_id=previous_revision_id,
            action=action,
            actor=actor,
            changed_fields=changed_fields,
            created_at=created_at,
            content=content,
        )

        memory_revision.additional_properties = d
        return memory_revision

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
