from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.context_enum import ContextEnum, check_context_enum
from ..models.scope_kind_enum import ScopeKindEnum, check_scope_kind_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="ContextBundleInputRequest")


@_attrs_define
class ContextBundleInputRequest:
    """Refuses fields it does not know, so a client never believes it set one.

    Attributes:
        scope_id (str):
        scope_kind (ScopeKindEnum | Unset):
        query (str | Unset):  Default: ''.
        include_episodic (bool | Unset):  Default: True.
        surface (str | Unset): The budget to use; default the client's own (`assistant`, `notebook`) where it has one,
            else `shell`.
        context (ContextEnum | Unset): * `general` - General
            * `health` - Health
            * `identity` - Identity
            * `spiritual` - Spiritual
            * `financial` - Financial
            * `legal` - Legal
            * `relationship` - Relationship
            * `safety` - Safety
            * `crisis` - Crisis Default: 'general'.
        entity (UUID | Unset): Only long-term entries about this entity of the member; another member's, a forgotten one
            or none is 404.
        as_of (datetime.datetime | Unset): Long-term recall of what held then (entries not superseded by then,
            relationships valid then).
    """

    scope_id: str
    scope_kind: ScopeKindEnum | Unset = UNSET
    query: str | Unset = ""
    include_episodic: bool | Unset = True
    surface: str | Unset = UNSET
    context: ContextEnum | Unset = "general"
    entity: UUID | Unset = UNSET
    as_of: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scope_id = self.scope_id

        scope_kind: str | Unset = UNSET
        if not isinstance(self.scope_kind, Unset):
            scope_kind = self.scope_kind

        query = self.query

        include_episodic = self.include_episodic

        surface = self.surface

        context: str | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context

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
                "scope_id": scope_id,
            }
        )
        if scope_kind is not UNSET:
            field_dict["scope_kind"] = scope_kind
        if query is not UNSET:
            field_dict["query"] = query
        if include_episodic is not UNSET:
            field_dict["include_episodic"] = include_episodic
        if surface is not UNSET:
            field_dict["surface"] = surface
        if context is not UNSET:
            field_dict["context"] = context
        if entity is not UNSET:
            field_dict["entity"] = entity
        if as_of is not UNSET:
            field_dict["as_of"] = as_of

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        scope_id = d.pop("scope_id")

        _scope_kind = d.pop("scope_kind", UNSET)
        scope_kind: ScopeKindEnum | Unset
        if isinstance(_scope_kind, Unset):
            scope_kind = UNSET
        else:
            scope_kind = check_scope_kind_enum(_scope_kind)

        query = d.pop("query", UNSET)

        include_episodic = d.pop("include_episodic", UNSET)

        surface = d.pop("surface", UNSET)

        _context = d.pop("context", UNSET)
        context: ContextEnum | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = check_context_enum(_context)

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

        context_bundle_input_request = cls(
            scope_id=scope_id,
            scope_kind=scope_kind,
            query=query,
            include_episodic=include_episodic,
            surface=surface,
            context=context,
            entity=entity,
            as_of=as_of,
        )

        context_bundle_input_request.additional_properties = d
        return context_bundle_input_request

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
