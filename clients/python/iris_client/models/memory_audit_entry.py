from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.action_enum import ActionEnum, check_action_enum

T = TypeVar("T", bound="MemoryAuditEntry")


@_attrs_define
class MemoryAuditEntry:
    """
    Attributes:
        at (datetime.datetime):
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
        actor (str): member, system, consumer:<name> or operator:<id>
        revision_id (UUID):
    """

    at: datetime.datetime
    action: ActionEnum
    actor: str
    revision_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        action: str = self.action

        actor = self.actor

        revision_id = str(self.revision_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "action": action,
                "actor": actor,
                "revision_id": revision_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        action = check_action_enum(d.pop("action"))

        actor = d.pop("actor")

        revision_id = UUID(d.pop("revision_id"))

        memory_audit_entry = cls(
            at=at,
            action=action,
            actor=actor,
            revision_id=revision_id,
        )

        memory_audit_entry.additional_properties = d
        return memory_audit_entry

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
