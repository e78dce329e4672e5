from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.memory_category_enum import MemoryCategoryEnum, check_memory_category_enum
from ..models.origin_enum import OriginEnum, check_origin_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.crisis_scope_input import CrisisScopeInput
    from ..models.memory_suppression_input import MemorySuppressionInput
    from ..models.multi_actor_write_input import MultiActorWriteInput
    from ..models.notebook_scope_input import NotebookScopeInput
    from ..models.operator_copilot_scope_input import OperatorCopilotScopeInput
    from ..models.pose_scope_input import PoseScopeInput
    from ..models.profile_scope_input import ProfileScopeInput
    from ..models.provenance_link_input import ProvenanceLinkInput
    from ..models.scene_scope_input import SceneScopeInput
    from ..models.session_scope_input import SessionScopeInput
    from ..models.tenant_scope_input import TenantScopeInput


T = TypeVar("T", bound="MemoryWriteRequest")


@_attrs_define
class MemoryWriteRequest:
    """The remember input, shared by the member API and the service API (`MemberScoped`:
    the scope's `user_id` may be left out). `confidence` left out means "derive it from
    the origin" (`policy.confidence_for_origin`).

        Attributes:
            scope (CrisisScopeInput | NotebookScopeInput | OperatorCopilotScopeInput | PoseScopeInput | ProfileScopeInput |
                SceneScopeInput | SessionScopeInput | TenantScopeInput): Where the memory lives: `kind` plus that kind's
                identifiers (a session needs `session_id`, a notebook `notebook_id`, ...).
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
            confidence (float | None | Unset):
            multi_actor (MultiActorWriteInput | None | Unset):
            provenance (list[ProvenanceLinkInput] | Unset):
            suppression (MemorySuppressionInput | None | Unset):
    """

    scope: (
        CrisisScopeInput
        | NotebookScopeInput
        | OperatorCopilotScopeInput
        | PoseScopeInput
        | ProfileScopeInput
        | SceneScopeInput
        | SessionScopeInput
        | TenantScopeInput
    )
    category: MemoryCategoryEnum
    body: str
    origin: OriginEnum
    subject: None | str | Unset = UNSET
    confidence: float | None | Unset = UNSET
    multi_actor: MultiActorWriteInput | None | Unset = UNSET
    provenance: list[ProvenanceLinkInput] | Unset = UNSET
    suppression: MemorySuppressionInput | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.crisis_scope_input import CrisisScopeInput
        from ..models.memory_suppression_input import MemorySuppressionInput
        from ..models.multi_actor_write_input import MultiActorWriteInput
        from ..models.notebook_scope_input import NotebookScopeInput
        from ..models.operator_copilot_scope_input import OperatorCopilotScopeInput
        from ..models.pose_scope_input import PoseScopeInput
        from ..models.profile_scope_input import ProfileScopeInput
        from ..models.scene_scope_input import SceneScopeInput
        from ..models.session_scope_input import SessionScopeInput

        scope: dict[str, Any]
        if (
            isinstance(self.scope, ProfileScopeInput)
            or isinstance(self.scope, SessionScopeInput)
            or isinstance(self.scope, SceneScopeInput)
            or isinstance(self.scope, PoseScopeInput)
            or isinstance(self.scope, NotebookScopeInput)
            or isinstance(self.scope, CrisisScopeInput)
            or isinstance(self.scope, OperatorCopilotScopeInput)
        ):
            scope = self.scope.to_dict()
        else:
            scope = self.scope.to_dict()

        category: str = self.category

        body = self.body

        origin: str = self.origin

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        multi_actor: dict[str, Any] | None | Unset
        if isinstance(self.multi_actor, Unset):
            multi_actor = UNSET
        elif isinstance(self.multi_actor, MultiActorWriteInput):
            multi_actor = self.multi_actor.to_dict()
        else:
            multi_actor = self.multi_actor

        provenance: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.provenance, Unset):
            provenance = []
            for provenance_item_data in self.provenance:
                provenance_item = provenance_item_data.to_dict()
                provenance.append(provenance_item)

        suppression: dict[str, Any] | None | Unset
        if isinstance(self.suppression, Unset):
            suppression = UNSET
        elif isinstance(self.suppression, MemorySuppressionInput):
            suppression = self.suppression.to_dict()
        else:
            suppression = self.suppression

        field_dict: dict[str, Any] = {}

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
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if multi_actor is not UNSET:
            field_dict["multi_actor"] = multi_actor
        if provenance is not UNSET:
            field_dict["provenance"] = provenance
        if suppression is not UNSET:
            field_dict["suppression"] = suppression

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.crisis_scope_input import CrisisScopeInput
        from ..models.memory_suppression_input import MemorySuppressionInput
        from ..models.multi_actor_write_input import MultiActorWriteInput
        from ..models.notebook_scope_input import NotebookScopeInput
        from ..models.operator_copilot_scope_input import OperatorCopilotScopeInput
        from ..models.pose_scope_input import PoseScopeInput
        from ..models.profile_scope_input import ProfileScopeInput
        from ..models.provenance_link_input import ProvenanceLinkInput
        from ..models.scene_scope_input import SceneScopeInput
        from ..models.session_scope_input import SessionScopeInput
        from ..models.tenant_scope_input import TenantScopeInput

        d = dict(src_dict)

        def _parse_scope(
            data: object,
        ) -> (
            CrisisScopeInput
            | NotebookScopeInput
            | OperatorCopilotScopeInput
            | PoseScopeInput
            | ProfileScopeInput
            | SceneScopeInput
            | SessionScopeInput
            | TenantScopeInput
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_0 = ProfileScopeInput.from_dict(data)

                return scope_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_1 = SessionScopeInput.from_dict(data)

                return scope_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_2 = SceneScopeInput.from_dict(data)

                return scope_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_3 = PoseScopeInput.from_dict(data)

                return scope_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_4 = NotebookScopeInput.from_dict(data)

                return scope_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_5 = CrisisScopeInput.from_dict(data)

                return scope_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_6 = OperatorCopilotScopeInput.from_dict(data)

                return scope_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            scope_type_7 = TenantScopeInput.from_dict(data)

            return scope_type_7

        scope = _parse_scope(d.pop("scope"))

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

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        def _parse_multi_actor(data: object) -> MultiActorWriteInput | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                multi_actor_type_1 = MultiActorWriteInput.from_dict(data)

                return multi_actor_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MultiActorWriteInput | None | Unset, data)

        multi_actor = _parse_multi_actor(d.pop("multi_actor", UNSET))

        _provenance = d.pop("provenance", UNSET)
        provenance: list[ProvenanceLinkInput] | Unset = UNSET
        if _provenance is not UNSET:
            provenance = []
            for provenance_item_data in _provenance:
                provenance_item = ProvenanceLinkInput.from_dict(provenance_item_data)

                provenance.append(provenance_item)

        def _parse_suppression(data: object) -> MemorySuppressionInput | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                suppression_type_1 = MemorySuppressionInput.from_dict(data)

                return suppression_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemorySuppressionInput | None | Unset, data)

        suppression = _parse_suppression(d.pop("suppression", UNSET))

        memory_write_request = cls(
            scope=scope,
            category=category,
            body=body,
            origin=origin,
            subject=subject,
            confidence=confidence,
            multi_actor=multi_actor,
            provenance=provenance,
            suppression=suppression,
        )

        return memory_write_request
