from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RecallRecordOutput")


@_attrs_define
class RecallRecordOutput:
    """
    Attributes:
        id (UUID):
        surface (str):
        consumer (str):
        context (str):
        at (datetime.datetime):
        returned_ids (Any | Unset):
        rationales (str | Unset):
        suppression_counts (Any | Unset):
        evaluated_count (int | Unset):
    """

    id: UUID
    surface: str
    consumer: str
    context: str
    at: datetime.datetime
    returned_ids: Any | Unset = UNSET
    rationales: str | Unset = UNSET
    suppression_counts: Any | Unset = UNSET
    evaluated_count: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        surface = self.surface

        consumer = self.consumer

        context = self.context

        at = self.at.isoformat()

        returned_ids = self.returned_ids

        rationales = self.rationales

        suppression_counts = self.suppression_counts

        evaluated_count = self.evaluated_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "surface": surface,
                "consumer": consumer,
                "context": context,
                "at": at,
            }
        )
        if returned_ids is not UNSET:
            field_dict["returned_ids"] = returned_ids
        if rationales is not UNSET:
            field_dict["rationales"] = rationales
        if suppression_counts is not UNSET:
            field_dict["suppression_counts"] = suppression_counts
        if evaluated_count is not UNSET:
            field_dict["evaluated_count"] = evaluated_count

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        surface = d.pop("surface")

        consumer = d.pop("consumer")

        context = d.pop("context")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        returned_ids = d.pop("returned_ids", UNSET)

        rationales = d.pop("rationales", UNSET)

        suppression_counts = d.pop("suppression_counts", UNSET)

        evaluated_count = d.pop("evaluated_count", UNSET)

        recall_record_output = cls(
            id=id,
            surface=surface,
            consumer=consumer,
            context=context,
            at=at,
            returned_ids=returned_ids,
            rationales=rationales,
            suppression_counts=suppression_counts,
            evaluated_count=evaluated_count,
        )

        recall_record_output.additional_properties = d
        return recall_record_output

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
