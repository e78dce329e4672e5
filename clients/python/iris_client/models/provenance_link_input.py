from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.provenance_kind_enum import ProvenanceKindEnum, check_provenance_kind_enum

T = TypeVar("T", bound="ProvenanceLinkInput")


@_attrs_define
class ProvenanceLinkInput:
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
        ref (str):
        captured_at (datetime.datetime):
    """

    kind: ProvenanceKindEnum
    ref: str
    captured_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        ref = self.ref

        captured_at = self.captured_at.isoformat()

        field_dict: dict[str, Any] = {}

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

        provenance_link_input = cls(
            kind=kind,
            ref=ref,
            captured_at=captured_at,
        )

        return provenance_link_input
