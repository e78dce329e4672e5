from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.provenance_kind_enum import ProvenanceKindEnum, check_provenance_kind_enum

T = TypeVar("T", bound="MemoryProvenanceLink")


@_attrs_define
class MemoryProvenanceLink:
    """
    Attributes:
        kind (ProvenanceKindEnum): * `session-turn` - Session Turn
            * `session-summary` - Session Summary
            * `profile-promotion` - Profile Promotion
            * `manual-import` - Manual Import
            * `inference-batch` - Inference Batch
            * `notebook-attachment` - Notebook Attachment
            * `scene-event` - Scene Event
            * `pose-sample` - Pose Sample
        ref (str): The id of the record it came from (a turn's uuid, `short-term:<uuid>`, an importer's id): ASCII
            letters, digits and `._:/#@+=-`, no spaces. Provenance is stored unsealed, so a ref is an id, never the member's
            words.
        captured_at (datetime.datetime):
    """

    kind: ProvenanceKindEnum
    ref: str
    captured_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

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
        kind = check_provenance_kind_enum(d.pop("kind"))

        ref = d.pop("ref")

        captured_at = datetime.datetime.fromisoformat(d.pop("captured_at"))

        memory_provenance_link = cls(
            kind=kind,
            ref=ref,
            captured_at=captured_at,
        )

        memory_provenance_link.additional_properties = d
        return memory_provenance_link

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
