from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.continuity_surface_enum import ContinuitySurfaceEnum, check_continuity_surface_enum

T = TypeVar("T", bound="AnchorRefInput")


@_attrs_define
class AnchorRefInput:
    """What to resume: an anchor on the surface and a locator inside it (seconds into
    audio, fold index in a scene, page in a Nisaba edition).

        Attributes:
            surface (ContinuitySurfaceEnum):
            anchor_id (str):
            cursor (str): Locator inside the anchor: seconds into audio, fold, page.
    """

    surface: ContinuitySurfaceEnum
    anchor_id: str
    cursor: str

    def to_dict(self) -> dict[str, Any]:
        surface: str = self.surface

        anchor_id = self.anchor_id

        cursor = self.cursor

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "surface": surface,
                "anchor_id": anchor_id,
                "cursor": cursor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        surface = check_continuity_surface_enum(d.pop("surface"))

        anchor_id = d.pop("anchor_id")

        cursor = d.pop("cursor")

        anchor_ref_input = cls(
            surface=surface,
            anchor_id=anchor_id,
            cursor=cursor,
        )

        return anchor_ref_input
