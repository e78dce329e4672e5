from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AuditEnvelopeOutputSuppressionCounts")


@_attrs_define
class AuditEnvelopeOutputSuppressionCounts:
    """How many entries the read gate withheld, by the first check each failed; keys (in the order of the checks): `tenant-
    mismatch`, `user-mismatch`, `scope-mismatch`, `surface-paused`, `consumer-not-allowed-for-scope`, `full-clear-
    pending`, `off-the-record`, `member-stopped-use`, `scope-suppressed`, `crisis-frame`, `user-pause`, `sensitive-
    category`, `tenant-quarantine`, `lifecycle-draft`, `lifecycle-paused`, `lifecycle-superseded`, `lifecycle-
    tombstoned`, `deletion-hold`, `member-auto-forget`, `sensitive-category-without-consent`, `sensitive-category-
    outside-relevant-context`. Exact for the kinds withheld as a whole (allow-list, base consents, full clear pending,
    off the record: every entry of the kind in reach); otherwise over the entries the recall weighed, which include the
    query's matches it read whatever their lifecycle or hold.

    """

    additional_properties: dict[str, int] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        audit_envelope_output_suppression_counts = cls()

        audit_envelope_output_suppression_counts.additional_properties = d
        return audit_envelope_output_suppression_counts

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> int:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: int) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
