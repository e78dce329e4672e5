from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.lifecycle_enum import LifecycleEnum, check_lifecycle_enum
from ..models.memory_category_enum import MemoryCategoryEnum, check_memory_category_enum
from ..models.origin_enum import OriginEnum, check_origin_enum

if TYPE_CHECKING:
    from ..models.memory_audit_entry import MemoryAuditEntry
    from ..models.memory_consent_entry import MemoryConsentEntry
    from ..models.memory_multi_actor import MemoryMultiActor
    from ..models.memory_provenance_link import MemoryProvenanceLink
    from ..models.memory_scope import MemoryScope
    from ..models.memory_suppression import MemorySuppression


T = TypeVar("T", bound="MemoryEntry")


@_attrs_define
class MemoryEntry:
    """One memory as the seed's `MemoryEntry` contract (plus `subject`).

    Attributes:
        id (UUID):
        revision_id (UUID):
        previous_revision_id (None | UUID):
        user_id (UUID):
        tenant_id (None | UUID):
        scope (MemoryScope): A scope key: `kind` plus exactly the identifiers that kind needs.
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
        subject (None | str):
        body (str):
        confidence (float):
        origin (OriginEnum): * `user-stated` - User Stated
            * `user-confirmed` - User Confirmed
            * `model-inferred` - Model Inferred
            * `operator-copilot` - Operator Copilot
            * `summarized-from-session` - Summarized From Session
            * `imported` - Imported
        lifecycle (LifecycleEnum): * `draft` - Draft
            * `active` - Active
            * `paused` - Paused
            * `superseded` - Superseded
            * `tombstoned` - Tombstoned
        consent (list[MemoryConsentEntry]):
        provenance_chain (list[MemoryProvenanceLink]):
        expires_at (datetime.datetime | None):
        last_referenced_at (datetime.datetime | None):
        reference_count (int):
        suppression (MemorySuppression | None):
        multi_actor (MemoryMultiActor | None):
        audit_chain (list[MemoryAuditEntry]):
        created_at (datetime.datetime): When Iris first learned it.
        updated_at (datetime.datetime):
        valid_from (datetime.datetime | None): When it became true, as the member's words said ("since 2019": the first
            instant of the year, month or day they named); null when they did not say.
        valid_from_precision (str): What `valid_from` was said to; empty when unsaid.
        valid_to (datetime.datetime | None): When it stopped being true, as the member said ("until March"); null when
            they did not say.
        valid_to_precision (str): What `valid_to` was said to; empty when unsaid.
    """

    id: UUID
    revision_id: UUID
    previous_revision_id: None | UUID
    user_id: UUID
    tenant_id: None | UUID
    scope: MemoryScope
    category: MemoryCategoryEnum
    subject: None | str
    body: str
    confidence: float
    origin: OriginEnum
    lifecycle: LifecycleEnum
    consent: list[MemoryConsentEntry]
    provenance_chain: list[MemoryProvenanceLink]
    expires_at: datetime.datetime | None
    last_referenced_at: datetime.datetime | None
    reference_count: int
    suppression: MemorySuppression | None
    multi_actor: MemoryMultiActor | None
    audit_chain: list[MemoryAuditEntry]
    created_at: datetime.datetime
    updated_at: datetime.datetime
    valid_from: datetime.datetime | None
    valid_from_precision: str
    valid_to: datetime.datetime | None
    valid_to_precision: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_multi_actor import MemoryMultiActor
        from ..models.memory_suppression import MemorySuppression

        id = str(self.id)

        revision_id = str(self.revision_id)

        previous_revision_id: None | str
        if isinstance(self.previous_revision_id, UUID):
            previous_revision_id = str(self.previous_revision_id)
        else:
            previous_revision_id = self.previous_revision_id

        user_id = str(self.user_id)

        tenant_id: None | str
        if isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id

        scope = self.scope.to_dict()

        category: str = self.category

        subject: None | str
        subject = self.subject

        body = self.body

        confidence = self.confidence

        origin: str = self.origin

        lifecycle: str = self.lifecycle

        consent = []
        for consent_item_data in self.consent:
            consent_item = consent_item_data.to_dict()
            consent.append(consent_item)

        provenance_chain = []
        for provenance_chain_item_data in self.provenance_chain:
            provenance_chain_item = provenance_chain_item_data.to_dict()
            provenance_chain.append(provenance_chain_item)

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        last_referenced_at: None | str
        if isinstance(self.last_referenced_at, datetime.datetime):
            last_referenced_at = self.last_referenced_at.isoformat()
        else:
            last_referenced_at = self.last_referenced_at

        reference_count = self.reference_count

        suppression: dict[str, Any] | None
        if isinstance(self.suppression, MemorySuppression):
            suppression = self.suppression.to_dict()
        else:
            suppression = self.suppression

        multi_actor: dict[str, Any] | None
        if isinstance(self.multi_actor, MemoryMultiActor):
            multi_actor = self.multi_actor.to_dict()
        else:
            multi_actor = self.multi_actor

        audit_chain = []
        for audit_chain_item_data in self.audit_chain:
            audit_chain_item = audit_chain_item_data.to_dict()
            audit_chain.append(audit_chain_item)

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        valid_from: None | str
        if isinstance(self.valid_from, datetime.datetime):
            valid_from = self.valid_from.isoformat()
        else:
            valid_from = self.valid_from

        valid_from_precision = self.valid_from_precision

        valid_to: None | str
        if isinstance(self.valid_to, datetime.datetime):
            valid_to = self.valid_to.isoformat()
        else:
            valid_to = self.valid_to

        valid_to_precision = self.valid_to_precision

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "revision_id": revision_id,
                "previous_revision_id": previous_revision_id,
                "user_id": user_id,
                "tenant_id": tenant_id,
                "scope": scope,
                "category": category,
                "subject": subject,
                "body": body,
                "confidence": confidence,
                "origin": origin,
                "lifecycle": lifecycle,
                "consent": consent,
                "provenance_chain": provenance_chain,
                "expires_at": expires_at,
                "last_referenced_at": last_referenced_at,
                "reference_count": reference_count,
                "suppression": suppression,
                "multi_actor": multi_actor,
                "audit_chain": audit_chain,
                "created_at": created_at,
                "updated_at": updated_at,
                "valid_from": valid_from,
                "valid_from_precision": valid_from_precision,
                "valid_to": valid_to,
                "valid_to_precision": valid_to_precision,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_audit_entry import MemoryAuditEntry
        from ..models.memory_consent_entry import MemoryConsentEntry
        from ..models.memory_multi_actor import MemoryMultiActor
        from ..models.memory_provenance_link import MemoryProvenanceLink
        from ..models.memory_scope import MemoryScope
        from ..models.memory_suppression import MemorySuppression

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        revision_id = UUID(d.pop("revision_id"))

        def _parse_previous_revision_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_revision_id_type_0 = UUID(data)

                return previous_revision_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        previous_revision_id = _parse_previous_revision_id(d.pop("previous_revision_id"))

        user_id = UUID(d.pop("user_id"))

        def _parse_tenant_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tenant_id_type_0 = UUID(data)

                return tenant_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        tenant_id = _parse_tenant_id(d.pop("tenant_id"))

        scope = MemoryScope.from_dict(d.pop("scope"))

        category = check_memory_category_enum(d.pop("category"))

        def _parse_subject(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        subject = _parse_subject(d.pop("subject"))

        body = d.pop("body")

        confidence = d.pop("confidence")

        origin = check_origin_enum(d.pop("origin"))

        lifecycle = check_lifecycle_enum(d.pop("lifecycle"))

        consent = []
        _consent = d.pop("consent")
        for consent_item_data in _consent:
            consent_item = MemoryConsentEntry.from_dict(consent_item_data)

            consent.append(consent_item)

        provenance_chain = []
        _provenance_chain = d.pop("provenance_chain")
        for provenance_chain_item_data in _provenance_chain:
            provenance_chain_item = MemoryProvenanceLink.from_dict(provenance_chain_item_data)

            provenance_chain.append(provenance_chain_item)

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        def _parse_last_referenced_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_referenced_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_referenced_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_referenced_at = _parse_last_referenced_at(d.pop("last_referenced_at"))

        reference_count = d.pop("reference_count")

        def _parse_suppression(data: object) -> MemorySuppression | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                suppression_type_1 = MemorySuppression.from_dict(data)

                return suppression_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemorySuppression | None, data)

        suppression = _parse_suppression(d.pop("suppression"))

        def _parse_multi_actor(data: object) -> MemoryMultiActor | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                multi_actor_type_1 = MemoryMultiActor.from_dict(data)

                return multi_actor_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemoryMultiActor | None, data)

        multi_actor = _parse_multi_actor(d.pop("multi_actor"))

        audit_chain = []
        _audit_chain = d.pop("audit_chain")
        for audit_chain_item_data in _audit_chain:
            audit_chain_item = MemoryAuditEntry.from_dict(audit_chain_item_data)

            audit_chain.append(audit_chain_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_valid_from(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_from_type_0 = datetime.datetime.fromisoformat(data)

                return valid_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        valid_from = _parse_valid_from(d.pop("valid_from"))

        valid_from_precision = d.pop("valid_from_precision")

        def _parse_valid_to(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_to_type_0 = datetime.datetime.fromisoformat(data)

                return valid_to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        valid_to = _parse_valid_to(d.pop("valid_to"))

        valid_to_precision = d.pop("valid_to_precision")

        memory_entry = cls(
            id=id,
            revision_id=revision_id,
            previous_revision_id=previous_revision_id,
            user_id=user_id,
            tenant_id=tenant_id,
            scope=scope,
            category=category,
            subject=subject,
            body=body,
            confidence=confidence,
            origin=origin,
            lifecycle=lifecycle,
            consent=consent,
            provenance_chain=provenance_chain,
            expires_at=expires_at,
            last_referenced_at=last_referenced_at,
            reference_count=reference_count,
            suppression=suppression,
            multi_actor=multi_actor,
            audit_chain=audit_chain,
            created_at=created_at,
            updated_at=updated_at,
            valid_from=valid_from,
            valid_from_precision=valid_from_precision,
            valid_to=valid_to,
            valid_to_precision=valid_to_precision,
        )

        memory_entry.additional_properties = d
        return memory_entry

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
