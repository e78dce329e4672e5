from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_category_enum import MemoryCategoryEnum, check_memory_category_enum

T = TypeVar("T", bound="MemoryForgetCategoryInputRequest")


@_attrs_define
class MemoryForgetCategoryInputRequest:
    """Refuses fields it does not know, so a client never believes it set one.

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
    """

    category: MemoryCategoryEnum
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        category = check_memory_category_enum(d.pop("category"))

        memory_forget_category_input_request = cls(
            category=category,
        )

        memory_forget_category_input_request.additional_properties = d
        return memory_forget_category_input_request

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
