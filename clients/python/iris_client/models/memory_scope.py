from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_scope_kind_enum import MemoryScopeKindEnum, check_memory_scope_kind_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemoryScope")


@_attrs_define
class MemoryScope:
    """A scope key: `kind` plus exactly the identifiers that kind needs.

    Attributes:
        kind (MemoryScopeKindEnum): * `profile` - Profile
            * `session` - Session
            * `scene` - Scene
            * `pose` - Pose
            * `notebook` - Notebook
            * `crisis` - Crisis
            * `operator-copilot` - Operator Copilot
            * `tenant` - Tenant
        user_id (UUID | Unset): Always the member; may be left out on writes.
        session_id (str | Unset): session, scene, pose
        scene_id (str | Unset): scene, pose
        room_id (str | Unset): scene
        pose_id (str | Unset): pose
        avatar_id (str | Unset): pose
        notebook_id (str | Unset): notebook
        operator_id (UUID | Unset): operator-copilot
        tenant_id (UUID | Unset): tenant
    """

    kind: MemoryScopeKindEnum
    user_id: UUID | Unset = UNSET
    session_id: str | Unset = UNSET
    scene_id: str | Unset = UNSET
    room_id: str | Unset = UNSET
    pose_id: str | Unset = UNSET
    avatar_id: str | Unset = UNSET
    notebook_id: str | Unset = UNSET
    operator_id: UUID | Unset = UNSET
    tenant_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        user_id: str | Unset = UNSET
        if not isinstance(self.user_id, Unset):
            user_id = str(self.user_id)

        session_id = self.session_id

        scene_id = self.scene_id

        room_id = self.room_id

        pose_id = self.pose_id

        avatar_id = self.avatar_id

        notebook_id = self.notebook_id

        operator_id: str | Unset = UNSET
        if not isinstance(self.operator_id, Unset):
            operator_id = str(self.operator_id)

        tenant_id: str | Unset = UNSET
        if not isinstance(self.tenant_id, Unset):
            tenant_id = str(self.tenant_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
            }
        )
        if user_id is not UNSET:
            field_dict["user_id"] = user_id
        if session_id is not UNSET:
            field_dict["session_id"] = session_id
        if scene_id is not UNSET:
            field_dict["scene_id"] = scene_id
        if room_id is not UNSET:
            field_dict["room_id"] = room_id
        if pose_id is not UNSET:
            field_dict["pose_id"] = pose_id
        if avatar_id is not UNSET:
            field_dict["avatar_id"] = avatar_id
        if notebook_id is not UNSET:
            field_dict["notebook_id"] = notebook_id
        if operator_id is not UNSET:
            field_dict["operator_id"] = operator_id
        if tenant_id is not UNSET:
            field_dict["tenant_id"] = tenant_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = check_memory_scope_kind_enum(d.pop("kind"))

        _user_id = d.pop("user_id", UNSET)
        user_id: UUID | Unset
        if isinstance(_user_id, Unset):
            user_id = UNSET
        else:
            user_id = UUID(_user_id)

        session_id = d.pop("session_id", UNSET)

        scene_id = d.pop("scene_id", UNSET)

        room_id = d.pop("room_id", UNSET)

        pose_id = d.pop("pose_id", UNSET)

        avatar_id = d.pop("avatar_id", UNSET)

        notebook_id = d.pop("notebook_id", UNSET)

        _operator_id = d.pop("operator_id", UNSET)
        operator_id: UUID | Unset
        if isinstance(_operator_id, Unset):
            operator_id = UNSET
        else:
            operator_id = UUID(_operator_id)

        _tenant_id = d.pop("tenant_id", UNSET)
        tenant_id: UUID | Unset
        if isinstance(_tenant_id, Unset):
            tenant_id = UNSET
        else:
            tenant_id = UUID(_tenant_id)

        memory_scope = cls(
            kind=kind,
            user_id=user_id,
            session_id=session_id,
            scene_id=scene_id,
            room_id=room_id,
            pose_id=pose_id,
            avatar_id=avatar_id,
            notebook_id=notebook_id,
            operator_id=operator_id,
            tenant_id=tenant_id,
        )

        memory_scope.additional_properties = d
        return memory_scope

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
