from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_category_enum import MemoryCategoryEnum, check_memory_category_enum
from ..models.source_enum import SourceEnum, check_source_enum

T = TypeVar("T", bound="MemoryConsentEntry")


@_attrs_define
class MemoryConsentEntry:
    """
    Attributes:
        category (MemoryCategoryEnum): * `fact` - Fact
            * `preference` - Preference
            * `goal` - Goal
            * `relationship` - Relationship
            * `commitment` - Commitment
            * `identity` - Identity
            * `spatial` - Spatial
            * `pose_alignment` - Pose Alignment
            * `biometric` - Biometric
            * `spiritual` - Spiritual
            * `medical` - Medical
            * `sexual` - Sexual
            * `financial` - Financial
            * `legal` - Legal
            * `work` - Work
            * `family` - Family
            * `safety` - Safety
            * `physical_health` - Physical Health
            * `mental_health` - Mental Health
            * `substance_use` - Substance Use
            * `sexuality` - Sexuality
            * `gender_identity` - Gender Identity
            * `religion_user_redacted` - Religion User Redacted
            * `abuse_history` - Abuse History
            * `immigration_status` - Immigration Status
            * `financial_distress` - Financial Distress
            * `relationship_violence` - Relationship Violence
            * `legal_jeopardy` - Legal Jeopardy
            * `other` - Other
        granted_at (datetime.datetime):
        revoked_at (datetime.datetime | None):
        source (SourceEnum): * `inline-prompt` - Inline Prompt
            * `settings-toggle` - Settings Toggle
            * `dsar-import` - Dsar Import
    """

    category: MemoryCategoryEnum
    granted_at: datetime.datetime
    revoked_at: datetime.datetime | None
    source: SourceEnum
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        granted_at = self.granted_at.isoformat()

        revoked_at: None | str
        if isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        source: str = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
                "granted_at": granted_at,
                "revoked_at": revoked_at,
                "source": source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        category = check_memory_category_enum(d.pop("category"))

        granted_at = datetime.datetime.fromisoformat(d.pop("granted_at"))

        def _parse_revoked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)

                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at"))

        source = check_source_enum(d.pop("source"))

        memory_consent_entry = cls(
            category=category,
            granted_at=granted_at,
            revoked_at=revoked_at,
            source=source,
        )

        memory_consent_entry.additional_properties = d
        return memory_consent_entry

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
