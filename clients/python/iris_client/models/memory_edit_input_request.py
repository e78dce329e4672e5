from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_category_enum import MemoryCategoryEnum, check_memory_category_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemoryEditInputRequest")


@_attrs_define
class MemoryEditInputRequest:
    """Refuses fields it does not know, so a client never believes it set one.

    Attributes:
        body (str | Unset):
        subject (None | str | Unset): null clears the subject.
        category (MemoryCategoryEnum | Unset): * `fact` - Fact
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
        revision_id (UUID | Unset): The revision being edited (the entry's `revision_id` as read): when it is no longer
            the head, 409 `not-head` names the current one.
    """

    body: str | Unset = UNSET
    subject: None | str | Unset = UNSET
    category: MemoryCategoryEnum | Unset = UNSET
    revision_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        category: str | Unset = UNSET
        if not isinstance(self.category, Unset):
            category = self.category

        revision_id: str | Unset = UNSET
        if not isinstance(self.revision_id, Unset):
            revision_id = str(self.revision_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if body is not UNSET:
            field_dict["body"] = body
        if subject is not UNSET:
            field_dict["subject"] = subject
        if category is not UNSET:
            field_dict["category"] = category
        if revision_id is not UNSET:
            field_dict["revision_id"] = revision_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        body = d.pop("body", UNSET)

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        _category = d.pop("category", UNSET)
        category: MemoryCategoryEnum | Unset
        if isinstance(_category, Unset):
            category = UNSET
        else:
            category = check_memory_category_enum(_category)

        _revision_id = d.pop("revision_id", UNSET)
        revision_id: UUID | Unset
        if isinstance(_revision_id, Unset):
            revision_id = UNSET
        else:
            revision_id = UUID(_revision_id)

        memory_edit_input_request = cls(
            body=body,
            subject=subject,
            category=category,
            revision_id=revision_id,
        )

        memory_edit_input_request.additional_properties = d
        return memory_edit_input_request

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
