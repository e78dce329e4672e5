from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.context_enum import ContextEnum, check_context_enum
from ..models.stm_scope_kind_enum import StmScopeKindEnum, check_stm_scope_kind_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="ContextBundleRequest")


@_attrs_define
class ContextBundleRequest:
    """
    Attributes:
        scope_id (str): The short-term scope's id (e.g. the session id of a `user_session`).
        scope_kind (None | StmScopeKindEnum | Unset): Narrow to one kind.
        query (str | Unset): What to recall about. Default: ''.
        include_episodic (bool | Unset):  Default: True.
        surface (None | str | Unset): The budget to use; default the client's own (`assistant`, `notebook`) where it has
            one, else `shell`.
        context (ContextEnum | Unset):  Default: 'general'.
        entity (None | Unset | UUID): Only long-term entries about this entity of the member (an id a recall listed
            under `entities`); another member's, a forgotten one or none is 404.
        as_of (datetime.datetime | None | Unset): Long-term recall of what held then (an ISO time with its zone):
            entries not superseded by then, relationships valid then.
    """

    scope_id: str
    scope_kind: None | StmScopeKindEnum | Unset = UNSET
    query: str | Unset = ""
    include_episodic: bool | Unset = True
    surface: None | str | Unset = UNSET
    context: ContextEnum | Unset = "general"
    entity: None | Unset | UUID = UNSET
    as_of: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        scope_id = self.scope_id

        scope_kind: None | str | Unset
        if isinstance(self.scope_kind, Unset):
            scope_kind = UNSET
        elif isinstance(self.scope_kind, str):
            scope_kind = self.scope_kind
        else:
            scope_kind = self.scope_kind

        query = self.query

        include_episodic = self.include_episodic

        surface: None | str | Unset
        if isinstance(self.surface, Unset):
            surface = UNSET
        else:
            surface = self.surface

        context: str | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context

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

        def _parse_scope_kind(data: object) -> None | StmScopeKindEnum | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scope_kind_type_1 = check_stm_scope_kind_enum(data)

                return scope_kind_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StmScopeKindEnum | Unset, data)

        scope_kind = _parse_scope_kind(d.pop("scope_kind", UNSET))

        query = d.pop("query", UNSET)

        include_episodic = d.pop("include_episodic", UNSET)

        def _parse_surface(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        surface = _parse_surface(d.pop("surface", UNSET))

        _context = d.pop("context", UNSET)
        context: ContextEnum | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = check_context_enum(_context)

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

        context_bundle_request = cls(
            scope_id=scope_id,
            scope_kind=scope_kind,
            query=query,
            include_episodic=include_episodic,
            surface=surface,
            context=context,
            entity=entity,
            as_of=as_of,
        )

        return context_bundle_request
