from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.pose_scope_input_kind_enum import (
    PoseScopeInputKindEnum,
    check_pose_scope_input_kind_enum,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PoseScopeInput")


@_attrs_define
class PoseScopeInput:
    """
    Attributes:
        kind (PoseScopeInputKindEnum):
        session_id (str):
        scene_id (str):
        pose_id (str):
        avatar_id (str):
        user_id (UUID | Unset): Left out: the member the path names; anyone else's id is refused.
    """

    kind: PoseScopeInputKindEnum
    session_id: str
    scene_id: str
    pose_id: str
    avatar_id: str
    user_id: UUID | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        session_id = self.session_id

        scene_id = self.scene_id

        pose_id = self.pose_id

        avatar_id = self.avatar_id

        user_id: str | Unset = UNSET
        if not isinstance(self.user_id, Unset):
            user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "session_id": session_id,
                "scene_id": scene_id,
                "pose_id": pose_id,
                "avatar_id": avatar_id,
            }
        )
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = check_pose_scope_input_kind_enum(d.pop("kind"))

        session_id = d.pop("session_id")

        scene_id = d.pop("scene_id")

        pose_id = d.pop("pose_id")

        avatar_id = d.pop("avatar_id")

        _user_id = d.pop("user_id", UNSET)
        user_id: UUID | Unset
        if isinstance(_user_id, Unset):
            user_id = UNSET
        else:
            user_id = UUID(_user_id)

        pose_scope_input = cls(
            kind=kind,
            session_id=session_id,
            scene_id=scene_id,
            pose_id=pose_id,
            avatar_id=avatar_id,
            user_id=user_id,
        )

        return pose_scope_input
