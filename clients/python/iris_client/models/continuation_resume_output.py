from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.continuity_surface_enum import ContinuitySurfaceEnum, check_continuity_surface_enum
from ..models.posture_enum import PostureEnum, check_posture_enum

if TYPE_CHECKING:
    from ..models.continuation_anchor_ref_output import ContinuationAnchorRefOutput


T = TypeVar("T", bound="ContinuationResumeOutput")


@_attrs_define
class ContinuationResumeOutput:
    """
    Attributes:
        id (UUID):
        token_id (UUID):
        surface (ContinuitySurfaceEnum):
        scope_key (str):
        session_id (None | str):
        anchor_ref (ContinuationAnchorRefOutput):
        posture (PostureEnum): * `reading` - Reading
            * `listening` - Listening
            * `co-watching` - Co-watching
            * `practicing` - Practicing
            * `studying` - Studying
            * `reviewing` - Reviewing
            * `paused` - Paused
        device_id (str):
        recorded_at (datetime.datetime):
        mid_segment (bool): True where the surface resumes inside the segment at `cursor`.
    """

    id: UUID
    token_id: UUID
    surface: ContinuitySurfaceEnum
    scope_key: str
    session_id: None | str
    anchor_ref: ContinuationAnchorRefOutput
    posture: PostureEnum
    device_id: str
    recorded_at: datetime.datetime
    mid_segment: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        token_id = str(self.token_id)

        surface: str = self.surface

        scope_key = self.scope_key

        session_id: None | str
        session_id = self.session_id

        anchor_ref = self.anchor_ref.to_dict()

        posture: str = self.posture

        device_id = self.device_id

        recorded_at = self.recorded_at.isoformat()

        mid_segment = self.mid_segment

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "token_id": token_id,
                "surface": surface,
                "scope_key": scope_key,
                "session_id": session_id,
                "anchor_ref": anchor_ref,
                "posture": posture,
                "device_id": device_id,
                "recorded_at": recorded_at,
                "mid_segment": mid_segment,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.continuation_anchor_ref_output import ContinuationAnchorRefOutput

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        token_id = UUID(d.pop("token_id"))

        surface = check_continuity_surface_enum(d.pop("surface"))

        scope_key = d.pop("scope_key")

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        anchor_ref = ContinuationAnchorRefOutput.from_dict(d.pop("anchor_ref"))

        posture = check_posture_enum(d.pop("posture"))

        device_id = d.pop("device_id")

        recorded_at = datetime.datetime.fromisoformat(d.pop("recorded_at"))

        mid_segment = d.pop("mid_segment")

        continuation_resume_output = cls(
            id=id,
            token_id=token_id,
            surface=surface,
            scope_key=scope_key,
            session_id=session_id,
            anchor_ref=anchor_ref,
            posture=posture,
            device_id=device_id,
            recorded_at=recorded_at,
            mid_segment=mid_segment,
        )

        continuation_resume_output.additional_properties = d
        return continuation_resume_output

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
