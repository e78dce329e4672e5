from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MemoryRecentRecall")


@_attrs_define
class MemoryRecentRecall:
    """
    Attributes:
        surface (str):
        at (datetime.datetime):
        rationale (None | str):
    """

    surface: str
    at: datetime.datetime
    rationale: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        surface = self.surface

        at = self.at.isoformat()

        rationale: None | str
        rationale = self.rationale

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "surface": surface,
                "at": at,
                "rationale": rationale,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        surface = d.pop("surface")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        def _parse_rationale(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        rationale = _parse_rationale(d.pop("rationale"))

        memory_recent_recall = cls(
            surface=surface,
            at=at,
            rationale=rationale,
        )

        memory_recent_recall.additional_properties = d
        return memory_recent_recall

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
