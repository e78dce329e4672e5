from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.posture_enum import PostureEnum, check_posture_enum

if TYPE_CHECKING:
    from ..models.continuation_anchor_ref_output import ContinuationAnchorRefOutput


T = TypeVar("T", bound="ContinuitySupersededPlaceOutput")


@_attrs_define
class ContinuitySupersededPlaceOutput:
    """The losing device's own write, kept so nothing it sent is lost.

    Attributes:
        token_id (UUID):
        anchor_ref (ContinuationAnchorRefOutput):
        posture (PostureEnum): * `reading` - Reading
            * `listening` - Listening
            * `co-watching` - Co-watching
            * `practicing` - Practicing
            * `studying` - Studying
            * `reviewing` - Reviewing
            * `paused` - Paused
    """

    token_id: UUID
    anchor_ref: ContinuationAnchorRefOutput
    posture: PostureEnum
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        token_id = str(self.token_id)

        anchor_ref = self.anchor_ref.to_dict()

        posture: str = self.posture

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "token_id": token_id,
                "anchor_ref": anchor_ref,
                "posture": posture,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.continuation_anchor_ref_output import ContinuationAnchorRefOutput

        d = dict(src_dict)
        token_id = UUID(d.pop("token_id"))

        anchor_ref = ContinuationAnchorRefOutput.from_dict(d.pop("anchor_ref"))

        posture = check_posture_enum(d.pop("posture"))

        continuity_superseded_place_output = cls(
            token_id=token_id,
            anchor_ref=anchor_ref,
            posture=posture,
        )

        continuity_superseded_place_output.additional_properties = d
        return continuity_superseded_place_output

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
