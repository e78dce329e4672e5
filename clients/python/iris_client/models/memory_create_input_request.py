from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_category_enum import MemoryCategoryEnum, check_memory_category_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.memory_multi_actor_write_request import MemoryMultiActorWriteRequest
    from ..models.memory_scope_request import MemoryScopeRequest


T = TypeVar("T", bound="MemoryCreateInputRequest")


@_attrs_define
class MemoryCreateInputRequest:
    """A memory the member states: `origin` is always `user-stated`.

    Attributes:
        scope (MemoryScopeRequest): A scope key: `kind` plus exactly the identifiers that kind needs.
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
        body (str):
        subject (None | str | Unset):
        multi_actor (MemoryMultiActorWriteRequest | None | Unset):
    """

    scope: MemoryScopeRequest
    category: MemoryCategoryEnum
    body: str
    subject: None | str | Unset = UNSET
    multi_actor: MemoryMultiActorWriteRequest | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_multi_actor_write_request import MemoryMultiActorWriteRequest

        scope = self.scope.to_dict()

        category: str = self.category

        body = self.body

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        multi_actor: dict[str, Any] | None | Unset
        if isinstance(self.multi_actor, Unset):
            multi_actor = UNSET
        elif isinstance(self.multi_actor, MemoryMultiActorWriteRequest):
            multi_actor = self.multi_actor.to_dict()
        else:
            multi_actor = self.multi_actor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scope": scope,
                "category": category,
                "body": body,
            }
        )
        if subject is not UNSET:
            field_dict["subject"] = subject
        if multi_actor is not UNSET:
            field_dict["multi_actor"] = multi_actor

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_multi_actor_write_request import MemoryMultiActorWriteRequest
        from ..models.memory_scope_request import MemoryScopeRequest

        d = dict(src_dict)
        scope = MemoryScopeRequest.from_dict(d.pop("scope"))

        category = check_memory_category_enum(d.pop("category"))

        body = d.pop("body")

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        def _parse_multi_actor(data: object) -> MemoryMultiActorWriteRequest | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                multi_actor_type_1 = MemoryMultiActorWriteRequest.from_dict(data)

                return multi_actor_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemoryMultiActorWriteRequest | None | Unset, data)

        multi_actor = _parse_multi_actor(d.pop("multi_actor", UNSET))

        memory_create_input_request = cls(
            scope=scope,
            category=category,
            body=body,
            subject=subject,
            multi_actor=multi_actor,
        )

        memory_create_input_request.additional_properties = d
        return memory_create_input_request

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
