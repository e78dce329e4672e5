from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.audit_envelope_output_suppression_counts import (
        AuditEnvelopeOutputSuppressionCounts,
    )


T = TypeVar("T", bound="AuditEnvelopeOutput")


@_attrs_define
class AuditEnvelopeOutput:
    """
    Attributes:
        scope_key (str):
        returned_ids (list[UUID]):
        suppression_counts (AuditEnvelopeOutputSuppressionCounts): How many entries the read gate withheld, by the first
            check each failed; keys (in the order of the checks): `tenant-mismatch`, `user-mismatch`, `scope-mismatch`,
            `surface-paused`, `consumer-not-allowed-for-scope`, `full-clear-pending`, `off-the-record`, `member-stopped-
            use`, `scope-suppressed`, `crisis-frame`, `user-pause`, `sensitive-category`, `tenant-quarantine`, `lifecycle-
            draft`, `lifecycle-paused`, `lifecycle-superseded`, `lifecycle-tombstoned`, `deletion-hold`, `member-auto-
            forget`, `sensitive-category-without-consent`, `sensitive-category-outside-relevant-context`. Exact for the
            kinds withheld as a whole (allow-list, base consents, full clear pending, off the record: every entry of the
            kind in reach); otherwise over the entries the recall weighed, which include the query's matches it read
            whatever their lifecycle or hold.
        evaluated_count (int): Entries the recall weighed: those counted by kind plus those it read.
    """

    scope_key: str
    returned_ids: list[UUID]
    suppression_counts: AuditEnvelopeOutputSuppressionCounts
    evaluated_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scope_key = self.scope_key

        returned_ids = []
        for returned_ids_item_data in self.returned_ids:
            returned_ids_item = str(returned_ids_item_data)
            returned_ids.append(returned_ids_item)

        suppression_counts = self.suppression_counts.to_dict()

        evaluated_count = self.evaluated_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scope_key": scope_key,
                "returned_ids": returned_ids,
                "suppression_counts": suppression_counts,
                "evaluated_count": evaluated_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_envelope_output_suppression_counts import (
            AuditEnvelopeOutputSuppressionCounts,
        )

        d = dict(src_dict)
        scope_key = d.pop("scope_key")

        returned_ids = []
        _returned_ids = d.pop("returned_ids")
        for returned_ids_item_data in _returned_ids:
            returned_ids_item = UUID(returned_ids_item_data)

            returned_ids.append(returned_ids_item)

        suppression_counts = AuditEnvelopeOutputSuppressionCounts.from_dict(
            d.pop("suppression_counts")
        )

        evaluated_count = d.pop("evaluated_count")

        audit_envelope_output = cls(
            scope_key=scope_key,
            returned_ids=returned_ids,
            suppression_counts=suppression_counts,
            evaluated_count=evaluated_count,
        )

        audit_envelope_output.additional_properties = d
        return audit_envelope_output

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
