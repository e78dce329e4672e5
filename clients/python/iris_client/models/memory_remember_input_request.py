from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_category_enum import MemoryCategoryEnum, check_memory_category_enum
from ..models.origin_enum import OriginEnum, check_origin_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.memory_multi_actor_write_request import MemoryMultiActorWriteRequest
    from ..models.memory_provenance_link_request import MemoryProvenanceLinkRequest
    from ..models.memory_scope_request import MemoryScopeRequest
    from ..models.memory_suppression_request import MemorySuppressionRequest


T = TypeVar("T", bound="MemoryRememberInputRequest")


@_attrs_define
class MemoryRememberInputRequest:
    """A memory a surface writes on the member's behalf.

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
        origin (OriginEnum): * `user-stated` - User Stated
            * `user-confirmed` - User Confirmed
            * `model-inferred` - Model Inferred
            * `operator-copilot` - Operator Copilot
            * `summarized-from-session` - Summarized From Session
            * `imported` - Imported
        subject (None | str | Unset):
        multi_actor (MemoryMultiActorWriteRequest | None | Unset):
        confidence (float | None | Unset): Left out: derived from the origin.
        provenance (list[MemoryProvenanceLinkRequest] | Unset):
        suppression (MemorySuppressionRequest | None | Unset):
    """

    scope: MemoryScopeRequest
    category: MemoryCategoryEnum
    body: str
    origin: OriginEnum
    subject: None | str | Unset = UNSET
    multi_actor: MemoryMultiActorWriteRequest | None | Unset = UNSET
    confidence: float | None | Unset = UNSET
    provenance: list[MemoryProvenanceLinkRequest] | Unset = UNSET
    suppression: MemorySuppressionRequest | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_multi_actor_write_request import MemoryMultiActorWriteRequest
        from ..models.memory_suppression_request import MemorySuppressionRequest

        scope = self.scope.to_dict()

        category: str = self.category

        body = self.body

        origin: str = self.origin

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

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        provenance: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.provenance, Unset):
            provenance = []
            for provenance_item_data in self.provenance:
                provenance_item = provenance_item_data.to_dict()
                provenance.append(provenance_item)

        suppression: dict[str, Any] | None | Unset
        if isinstance(self.suppression, Unset):
            suppression = UNSET
        elif isinstance(self.suppression, MemorySuppressionRequest):
            suppression = self.suppression.to_dict()
        else:
            suppression = self.suppression

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scope": scope,
                "category": category,
                "body": body,
                "origin": origin,
            }
        )
        if subject is not UNSET:
            field_dict["subject"] = subject
        if multi_actor is not UNSET:
            field_dict["multi_actor"] = multi_actor
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if provenance is not UNSET:
            field_dict["provenance"] = provenance
        if suppression is not UNSET:
            field_dict["suppression"] = suppression

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_multi_actor_write_request import MemoryMultiActorWriteRequest
        from ..models.memory_provenance_link_request import MemoryProvenanceLinkRequest
        from ..models.memory_scope_request import MemoryScopeRequest
        from ..models.memory_suppression_request import MemorySuppressionRequest

        d = dict(src_dict)
        scope = MemoryScopeRequest.from_dict(d.pop("scope"))

        category = check_memory_category_enum(d.pop("category"))

        body = d.pop("body")

        origin = check_origin_enum(d.pop("origin"))

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

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        _provenance = d.pop("provenance", UNSET)
        provenance: list[MemoryProvenanceLinkRequest] | Unset = UNSET
        if _provenance is not UNSET:
            provenance = []
            for provenance_item_data in _provenance:
                provenance_item = MemoryProvenanceLinkRequest.from_dict(provenance_item_data)

                provenance.append(provenance_item)

        def _parse_suppression(data: object) -> MemorySuppressionRequest | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                suppression_type_1 = MemorySuppressionRequest.from_dict(data)

                return suppression_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemorySuppressionRequest | None | Unset, data)

        suppression = _parse_suppression(d.pop("suppression", UNSET))

        memory_remember_input_request = cls(
            scope=scope,
            category=category,
            body=body,
            origin=origin,
            subject=subject,
            multi_actor=multi_actor,
            confidence=confidence,
            provenance=provenance,
            suppression=suppression,
        )

        memory_remember_input_request.additional_properties = d
        return memory_remember_input_request

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
