from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.continuity_notice_output_kind_enum import (
    ContinuityNoticeOutputKindEnum,
    check_continuity_notice_output_kind_enum,
)
from ..models.continuity_surface_enum import ContinuitySurfaceEnum, check_continuity_surface_enum

if TYPE_CHECKING:
    from ..models.continuity_superseded_place_output import ContinuitySupersededPlaceOutput
    from ..models.continuity_winning_write_output import ContinuityWinningWriteOutput


T = TypeVar("T", bound="ContinuityNoticeOutput")


@_attrs_define
class ContinuityNoticeOutput:
    """
    Attributes:
        id (UUID):
        kind (ContinuityNoticeOutputKindEnum): * `also-playing-elsewhere` - This was also playing on your other device
        message (str):
        token (UUID): The slot (card) to resume.
        surface (ContinuitySurfaceEnum):
        scope_key (str):
        superseded (ContinuitySupersededPlaceOutput): The losing device's own write, kept so nothing it sent is lost.
        winning (ContinuityWinningWriteOutput): Who won: a device and a time. Its place is read through the consent
            guard.
        created_at (datetime.datetime):
    """

    id: UUID
    kind: ContinuityNoticeOutputKindEnum
    message: str
    token: UUID
    surface: ContinuitySurfaceEnum
    scope_key: str
    superseded: ContinuitySupersededPlaceOutput
    winning: ContinuityWinningWriteOutput
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        kind: str = self.kind

        message = self.message

        token = str(self.token)

        surface: str = self.surface

        scope_key = self.scope_key

        superseded = self.superseded.to_dict()

        winning = self.winning.to_dict()

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "message": message,
                "token": token,
                "surface": surface,
                "scope_key": scope_key,
                "superseded": superseded,
                "winning": winning,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.continuity_superseded_place_output import ContinuitySupersededPlaceOutput
        from ..models.continuity_winning_write_output import ContinuityWinningWriteOutput

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        kind = check_continuity_notice_output_kind_enum(d.pop("kind"))

        message = d.pop("message")

        token = UUID(d.pop("token"))

        surface = check_continuity_surface_enum(d.pop("surface"))

        scope_key = d.pop("scope_key")

        superseded = ContinuitySupersededPlaceOutput.from_dict(d.pop("superseded"))

        winning = ContinuityWinningWriteOutput.from_dict(d.pop("winning"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        continuity_notice_output = cls(
            id=id,
            kind=kind,
            message=message,
            token=token,
            surface=surface,
            scope_key=scope_key,
            superseded=superseded,
            winning=winning,
            created_at=created_at,
        )

        continuity_notice_output.additional_properties = d
        return continuity_notice_output

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
