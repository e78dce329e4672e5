from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stm_scope_kind_enum import StmScopeKindEnum, check_stm_scope_kind_enum

T = TypeVar("T", bound="ShortTermOutput")


@_attrs_define
class ShortTermOutput:
    """
    Attributes:
        id (UUID):
        member_id (UUID):
        scope_kind (StmScopeKindEnum): * `research_task` - Research Task
            * `agent_run` - Agent Run
            * `user_session` - User Session
            * `admin_session` - Admin Session
        scope_id (str):
        category (str):
        sensitive (bool): Encrypted at rest.
        content (str):
        related_entry_ids (list[UUID]):
        consolidate_on_critic_promote (bool):
        consolidated_to (None | UUID): The memory this row was consolidated into, named only while the read gate shows
            that memory to this client (else null, as for a row not consolidated).
        consolidation_trigger (str):
        consolidated_at (datetime.datetime | None):
        ttl_seconds (int):
        created_at (datetime.datetime):
        refreshed_at (datetime.datetime | None):
        ttl_expires (datetime.datetime):
        warn_emitted_at (datetime.datetime | None):
    """

    id: UUID
    member_id: UUID
    scope_kind: StmScopeKindEnum
    scope_id: str
    category: str
    sensitive: bool
    content: str
    related_entry_ids: list[UUID]
    consolidate_on_critic_promote: bool
    consolidated_to: None | UUID
    consolidation_trigger: str
    consolidated_at: datetime.datetime | None
    ttl_seconds: int
    created_at: datetime.datetime
    refreshed_at: datetime.datetime | None
    ttl_expires: datetime.datetime
    warn_emitted_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        member_id = str(self.member_id)

        scope_kind: str = self.scope_kind

        scope_id = self.scope_id

        category = self.category

        sensitive = self.sensitive

        content = self.content

        related_entry_ids = []
        for related_entry_ids_item_data in self.related_entry_ids:
            related_entry_ids_item = str(related_entry_ids_item_data)
            related_entry_ids.append(related_entry_ids_item)

        consolidate_on_critic_promote = self.consolidate_on_critic_promote

        consolidated_to: None | str
        if isinstance(self.consolidated_to, UUID):
            consolidated_to = str(self.consolidated_to)
        else:
            consolidated_to = self.consolidated_to

        consolidation_trigger = self.consolidation_trigger

        consolidated_at: None | str
        if isinstance(self.consolidated_at, datetime.datetime):
            consolidated_at = self.consolidated_at.isoformat()
        else:
            consolidated_at = self.consolidated_at

        ttl_seconds = self.ttl_seconds

        created_at = self.created_at.isoformat()

        refreshed_at: None | str
        if isinstance(self.refreshed_at, datetime.datetime):
            refreshed_at = self.refreshed_at.isoformat()
        else:
            refreshed_at = self.refreshed_at

        ttl_expires = self.ttl_expires.isoformat()

        warn_emitted_at: None | str
        if isinstance(self.warn_emitted_at, datetime.datetime):
            warn_emitted_at = self.warn_emitted_at.isoformat()
        else:
            warn_emitted_at = self.warn_emitted_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "member_id": member_id,
                "scope_kind": scope_kind,
                "scope_id": scope_id,
                "category": category,
                "sensitive": sensitive,
                "content": content,
                "related_entry_ids": related_entry_ids,
                "consolidate_on_critic_promote": consolidate_on_critic_promote,
                "consolidated_to": consolidated_to,
                "consolidation_trigger": consolidation_trigger,
                "consolidated_at": consolidated_at,
                "ttl_seconds": ttl_seconds,
                "created_at": created_at,
                "refreshed_at": refreshed_at,
                "ttl_expires": ttl_expires,
                "warn_emitted_at": warn_emitted_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        member_id = UUID(d.pop("member_id"))

        scope_kind = check_stm_scope_kind_enum(d.pop("scope_kind"))

        scope_id = d.pop("scope_id")

        category = d.pop("category")

        sensitive = d.pop("sensitive")

        content = d.pop("content")

        related_entry_ids = []
        _related_entry_ids = d.pop("related_entry_ids")
        for related_entry_ids_item_data in _related_entry_ids:
            related_entry_ids_item = UUID(related_entry_ids_item_data)

            related_entry_ids.append(related_entry_ids_item)

        consolidate_on_critic_promote = d.pop("consolidate_on_critic_promote")

        def _parse_consolidated_to(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                consolidated_to_type_0 = UUID(data)

                return consolidated_to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        consolidated_to = _parse_consolidated_to(d.pop("consolidated_to"))

        consolidation_trigger = d.pop("consolidation_trigger")

        def _parse_consolidated_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                consolidated_at_type_0 = datetime.datetime.fromisoformat(data)

                return consolidated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        consolidated_at = _parse_consolidated_at(d.pop("consolidated_at"))

        ttl_seconds = d.pop("ttl_seconds")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_refreshed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                refreshed_at_type_0 = datetime.datetime.fromisoformat(data)

                return refreshed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        refreshed_at = _parse_refreshed_at(d.pop("refreshed_at"))

        ttl_expires = datetime.datetime.fromisoformat(d.pop("ttl_expires"))

        def _parse_warn_emitted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                warn_emitted_at_type_0 = datetime.datetime.fromisoformat(data)

                return warn_emitted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        warn_emitted_at = _parse_warn_emitted_at(d.pop("warn_emitted_at"))

        short_term_output = cls(
            id=id,
            member_id=member_id,
            scope_kind=scope_kind,
            scope_id=scope_id,
            category=category,
            sensitive=sensitive,
            content=content,
            related_entry_ids=related_entry_ids,
            consolidate_on_critic_promote=consolidate_on_critic_promote,
            consolidated_to=consolidated_to,
            consolidation_trigger=consolidation_trigger,
            consolidated_at=consolidated_at,
            ttl_seconds=ttl_seconds,
            created_at=created_at,
            refreshed_at=refreshed_at,
            ttl_expires=ttl_expires,
            warn_emitted_at=warn_emitted_at,
        )

        short_term_output.additional_properties = d
        return short_term_output

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
