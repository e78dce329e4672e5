from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.continuity_surface_enum import ContinuitySurfaceEnum, check_continuity_surface_enum

T = TypeVar("T", bound="ContinuationAnchorRefOutput")


@_attrs_define
class ContinuationAnchorRefOutput:
    """
    Attributes:
        surface (ContinuitySurfaceEnum):
        anchor_id (str):
        cursor (str):
    """

    surface: ContinuitySurfaceEnum
    anchor_id: str
    cursor: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        surface: str = self.surface

        anchor_id = self.anchor_id

        cursor = self.cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
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

        continuation_anchor_ref_output = cls(
            surface=surface,
            anchor_id=anchor_id,
            cursor=cursor,
        )

        continuation_anchor_ref_output.additional_properties = d
        return continuation_anchor_ref_output

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
