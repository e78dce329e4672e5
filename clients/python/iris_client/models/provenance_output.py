from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ProvenanceOutput")


@_attrs_define
class ProvenanceOutput:
    """
    Attributes:
        kind (str):
        ref (str):
        captured_at (datetime.datetime):
    """

    kind: str
    ref: str
    captured_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        ref = self.ref

        captured_at = self.captured_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "ref": ref,
                "captured_at": captured_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = d.pop("kind")

        ref = d.pop("ref")

        captured_at = datetime.datetime.fromisoformat(d.pop("captured_at"))

        provenance_output = cls(
            kind=kind,
            ref=ref,
            captured_at=captured_at,
        )

        provenance_output.additional_properties = d
        return provenance_output

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
