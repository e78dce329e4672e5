from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.context_enum import ContextEnum, check_context_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.crisis_scope_input import CrisisScopeInput
    from ..models.notebook_scope_input import NotebookScopeInput
    from ..models.operator_copilot_scope_input import OperatorCopilotScopeInput
    from ..models.pose_scope_input import PoseScopeInput
    from ..models.profile_scope_input import ProfileScopeInput
    from ..models.scene_scope_input import SceneScopeInput
    from ..models.session_scope_input import SessionScopeInput
    from ..models.tenant_scope_input import TenantScopeInput


T = TypeVar("T", bound="RecallRequest")


@_attrs_define
class RecallRequest:
    """
    Attributes:
        surface (str): The budget to recall under: one of the surfaces the calling client's consumer may use
            (`assistant`, `shell`, `notebook`, ...); any other is 403 `surface-not-allowed`, never silently changed, and no
            client may use `admin`.
        scope (CrisisScopeInput | NotebookScopeInput | OperatorCopilotScopeInput | PoseScopeInput | ProfileScopeInput |
            SceneScopeInput | SessionScopeInput | TenantScopeInput): The scope to recall: kind plus its identifiers
            (`user_id` left out: the member). A kind the client may not read is 403 `consumer-not-allowed-for-scope`.
        query (str | Unset): What to recall about. Default: ''.
        context (ContextEnum | Unset):  Default: 'general'.
        crisis_frame (bool | Unset): In a crisis frame. Default: False.
        safety_critical_context (bool | Unset):  Default: False.
        consented_categories (list[str] | None | Unset): Narrow the member's consented categories (never widen them).
        tenant_id (None | Unset | UUID): The tenant you act in.
        budget (int | None | Unset): At most this many (never above the surface's).
        entity (None | Unset | UUID): Only the entries about this entity of the member (an id a recall listed under
            `entities`); another member's, a forgotten one or none is 404.
        as_of (datetime.datetime | None | Unset): Recall what held then (an ISO time with its zone): entries created by
            then and not superseded by then, relationships valid then. Today's consent, pauses and settings apply.
    """

    surface: str
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
    query: str | Unset = ""
    context: ContextEnum | Unset = "general"
    crisis_frame: bool | Unset = False
    safety_critical_context: bool | Unset = False
    consented_categories: list[str] | None | Unset = UNSET
    tenant_id: None | Unset | UUID = UNSET
    budget: int | None | Unset = UNSET
    entity: None | Unset | UUID = UNSET
    as_of: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.crisis_scope_input import CrisisScopeInput
        from ..models.notebook_scope_input import NotebookScopeInput
        from ..models.operator_copilot_scope_input import OperatorCopilotScopeInput
        from ..models.pose_scope_input import PoseScopeInput
        from ..models.profile_scope_input import ProfileScopeInput
        from ..models.scene_scope_input import SceneScopeInput
        from ..models.session_scope_input import SessionScopeInput

        surface = self.surface

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

        query = self.query

        context: str | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context

        crisis_frame = self.crisis_frame

        safety_critical_context = self.safety_critical_context

        consented_categories: list[str] | None | Unset
        if isinstance(self.consented_categories, Unset):
            consented_categories = UNSET
        elif isinstance(self.consented_categories, list):
            consented_categories = self.consented_categories

        else:
            consented_categories = self.consented_categories

        tenant_id: None | str | Unset
        if isinstance(self.tenant_id, Unset):
            tenant_id = UNSET
        elif isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id

        budget: int | None | Unset
        if isinstance(self.budget, Unset):
            budget = UNSET
        else:
            budget = self.budget

        entity: None | str | Unset
        if isinstance(self.entity, Unset):
            entity = UNSET
        elif isinstance(self.entity, UUID):
            entity = str(self.entity)
        else:
            entity = self.entity

        as_of: None | str | Unset
        if isinstance(self.as_of, Unset):
            as_of = UNSET
        elif isinstance(self.as_of, datetime.datetime):
            as_of = self.as_of.isoformat()
        else:
            as_of = self.as_of

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "surface": surface,
                "scope": scope,
            }
        )
        if query is not UNSET:
            field_dict["query"] = query
        if context is not UNSET:
            field_dict["context"] = context
        if crisis_frame is not UNSET:
            field_dict["crisis_frame"] = crisis_frame
        if safety_critical_context is not UNSET:
            field_dict["safety_critical_context"] = safety_critical_context
        if consented_categories is not UNSET:
            field_dict["consented_categories"] = consented_categories
        if tenant_id is not UNSET:
            field_dict["tenant_id"] = tenant_id
        if budget is not UNSET:
            field_dict["budget"] = budget
        if entity is not UNSET:
            field_dict["entity"] = entity
        if as_of is not UNSET:
            field_dict["as_of"] = as_of

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.crisis_scope_input import CrisisScopeInput
        from ..models.notebook_scope_input import NotebookScopeInput
        from ..models.operator_copilot_scope_input import OperatorCopilotScopeInput
        from ..models.pose_scope_input import PoseScopeInput
        from ..models.profile_scope_input import ProfileScopeInput
        from ..models.scene_scope_input import SceneScopeInput
        from ..models.session_scope_input import SessionScopeInput
        from ..models.tenant_scope_input import TenantScopeInput

        d = dict(src_dict)
        surface = d.pop("surface")

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

        query = d.pop("query", UNSET)

        _context = d.pop("context", UNSET)
        context: ContextEnum | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = check_context_enum(_context)

        crisis_frame = d.pop("crisis_frame", UNSET)

        safety_critical_context = d.pop("safety_critical_context", UNSET)

        def _parse_consented_categories(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                consented_categories_type_0 = cast(list[str], data)

                return consented_categories_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        consented_categories = _parse_consented_categories(d.pop("consented_categories", UNSET))

        def _parse_tenant_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tenant_id_type_0 = UUID(data)

                return tenant_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        tenant_id = _parse_tenant_id(d.pop("tenant_id", UNSET))

        def _parse_budget(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        budget = _parse_budget(d.pop("budget", UNSET))

        def _parse_entity(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                entity_type_0 = UUID(data)

                return entity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        entity = _parse_entity(d.pop("entity", UNSET))

        def _parse_as_of(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                as_of_type_0 = datetime.datetime.fromisoformat(data)

                return as_of_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        as_of = _parse_as_of(d.pop("as_of", UNSET))

        recall_request = cls(
            surface=surface,
            scope=scope,
            query=query,
            context=context,
            crisis_frame=crisis_frame,
            safety_critical_context=safety_critical_context,
            consented_categories=consented_categories,
            tenant_id=tenant_id,
            budget=budget,
            entity=entity,
            as_of=as_of,
        )

        return recall_request
