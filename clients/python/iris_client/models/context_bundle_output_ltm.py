from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ContextBundleOutputLtm")


@_attrs_define
class ContextBundleOutputLtm:
    """{"entries": [...], "entities": [...], "relationships": [...], "audit_envelope": {...}}: each entry has its
    `freshness` and `entity_ids`, when it was true as the member said it (`valid_from`, `valid_to`, null when unsaid,
    with what each was said to in `valid_from_precision`, `valid_to_precision`) and when Iris learned it (`learned_at`),
    as recall gives them; the entities and relationships are those of the returned entries; the envelope's
    `suppression_counts` count the withheld entries by reason.

    """

    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        context_bundle_output_ltm = cls()

        context_bundle_output_ltm.additional_properties = d
        return context_bundle_output_ltm

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
