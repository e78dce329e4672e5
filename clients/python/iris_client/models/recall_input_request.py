from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.context_enum import ContextEnum, check_context_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.recall_input_request_scope import RecallInputRequestScope


T = TypeVar("T", bound="RecallInputRequest")


@_attrs_define
class RecallInputRequest:
    """
    Attributes:
        surface (str): The budget to recall under: one of the surfaces the calling client's consumer may use; any other
            is 403 `surface-not-allowed`, never silently changed, and no client may use `admin`.

            | consumer | surfaces (budgets) | contexts | scope kinds (read, write) | why |
            |---|---|---|---|---|
            | `assistant` | `assistant`, `shell` | `crisis`, `financial`, `general`, `health`, `identity`, `legal`,
            `relationship`, `safety`, `spiritual` | `crisis`, `notebook`, `pose`, `profile`, `scene`, `session` | The
            member's general conversational surface: it routes into every domain, so it may claim every context; its own
            budget (12) or the shell's. |
            | `shell` | `shell` | `crisis`, `general`, `safety` | `crisis`, `notebook`, `profile`, `session` | Intent
            routing with a three-entry budget: it hands sensitive topics to the domain surfaces and keeps only the safety
            frame (it is on the crisis blueprint). |
            | `notebook` | `notebook`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Study notebooks:
            the only surface with the notebook budget (999, rationales shown); notes are not a sensitive context. |
            | `tara` | `shell`, `tara` | `general`, `health`, `safety` | `notebook`, `pose`, `profile`, `scene`, `session` |
            Recovery companion: the seed's own example of health memory surfacing ("in Tara recovery"), with the safety
            frame. |
            | `veritas` | `shell`, `veritas` | `general` | `notebook`, `profile`, `session` | Briefings: the seed's own
            example of where health memory never surfaces; no sensitive context at all. |
            | `nyx` | `nyx`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the seed gives no
            sensitive role: general context only. |
            | `arete` | `arete`, `shell` | `general` | `notebook`, `profile`, `session` | A domain product the seed gives no
            sensitive role: general context only. |
            | `nisaba` | `nisaba`, `shell` | `general` | `notebook`, `profile`, `session` | Editions and reading: general
            context only. |
            | `metis` | `metis`, `shell` | `general` | `notebook`, `profile`, `session`, `tenant` | Courses and
            institutional learner state: general context only. |
            | `studio` | `shell`, `studio` | `general`, `health` | `notebook`, `pose`, `profile`, `scene`, `session` | On
            the pose blueprint: pose alignment is health-context memory, so it needs the health context to use what it may
            read. |
            | `psyche` | `psyche`, `shell` | `crisis`, `general`, `safety` | `crisis`, `profile`, `scene`, `session` | The
            real-time runtime, on the crisis blueprint: the safety frame only. |
            | `living-scene` | `living-scene`, `shell` | `general` | `profile`, `scene`, `session` | Scene rendering:
            general context only. |
        scope (RecallInputRequestScope): A scope key: kind plus its identifiers. A kind the client may not read is 403
            `consumer-not-allowed-for-scope`.
        query (str | Unset):  Default: ''.
        context (ContextEnum | Unset): * `general` - General
            * `health` - Health
            * `identity` - Identity
            * `spiritual` - Spiritual
            * `financial` - Financial
            * `legal` - Legal
            * `relationship` - Relationship
            * `safety` - Safety
            * `crisis` - Crisis Default: 'general'.
        crisis_frame (bool | Unset):  Default: False.
        safety_critical_context (bool | Unset):  Default: False.
        consented_categories (list[str] | Unset):
        tenant_id (None | Unset | UUID):
        budget (int | Unset):
        entity (UUID | Unset): Only the entries about this entity of the member (an id a recall listed under entities);
            another member's, a forgotten one or none is 404.
        as_of (datetime.datetime | Unset): Recall what held then: entries created by then and not superseded by then,
            relationships valid then. Today's consent, pauses and settings apply.
    """

    surface: str
    scope: RecallInputRequestScope
    query: str | Unset = ""
    context: ContextEnum | Unset = "general"
    crisis_frame: bool | Unset = False
    safety_critical_context: bool | Unset = False
    consented_categories: list[str] | Unset = UNSET
    tenant_id: None | Unset | UUID = UNSET
    budget: int | Unset = UNSET
    entity: UUID | Unset = UNSET
    as_of: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        surface = self.surface

        scope = self.scope.to_dict()

        query = self.query

        context: str | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context

        crisis_frame = self.crisis_frame

        safety_critical_context = self.safety_critical_context

        consented_categories: list[str] | Unset = UNSET
        if not isinstance(self.consented_categories, Unset):
            consented_categories = self.consented_categories

        tenant_id: None | str | Unset
        if isinstance(self.tenant_id, Unset):
            tenant_id = UNSET
        elif isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id

        budget = self.budget

        entity: str | Unset = UNSET
        if not isinstance(self.entity, Unset):
            entity = str(self.entity)

        as_of: str | Unset = UNSET
        if not isinstance(self.as_of, Unset):
            as_of = self.as_of.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
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
        from ..models.recall_input_request_scope import RecallInputRequestScope

        d = dict(src_dict)
        surface = d.pop("surface")

        scope = RecallInputRequestScope.from_dict(d.pop("scope"))

        query = d.pop("query", UNSET)

        _context = d.pop("context", UNSET)
        context: ContextEnum | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = check_context_enum(_context)

        crisis_frame = d.pop("crisis_frame", UNSET)

        safety_critical_context = d.pop("safety_critical_context", UNSET)

        consented_categories = cast(list[str], d.pop("consented_categories", UNSET))

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

        budget = d.pop("budget", UNSET)

        _entity = d.pop("entity", UNSET)
        entity: UUID | Unset
        if isinstance(_entity, Unset):
            entity = UNSET
        else:
            entity = UUID(_entity)

        _as_of = d.pop("as_of", UNSET)
        as_of: datetime.datetime | Unset
        if isinstance(_as_of, Unset):
            as_of = UNSET
        else:
            as_of = datetime.datetime.fromisoformat(_as_of)

        recall_input_request = cls(
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

        recall_input_request.additional_properties = d
        return recall_input_request

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
