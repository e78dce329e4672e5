from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.memory_category_enum import MemoryCategoryEnum, check_memory_category_enum
from ..models.short_term_write_scope_kind_enum import (
    ShortTermWriteScopeKindEnum,
    check_short_term_write_scope_kind_enum,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="ShortTermWriteRequest")


@_attrs_define
class ShortTermWriteRequest:
    """
    Attributes:
        scope_kind (ShortTermWriteScopeKindEnum):
        scope_id (str): The short-term scope's id (e.g. the session id of a `user_session`).
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
        content (str): The working note.
        related_entry_ids (list[UUID] | Unset): Long-term entries it relates to.
        consolidate_on_critic_promote (bool | Unset):  Default: False.
        ttl_seconds (int | None | Unset): Left out: the scope kind's default TTL.
    """

    scope_kind: ShortTermWriteScopeKindEnum
    scope_id: str
    category: MemoryCategoryEnum
    content: str
    related_entry_ids: list[UUID] | Unset = UNSET
    consolidate_on_critic_promote: bool | Unset = False
    ttl_seconds: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        scope_kind: str = self.scope_kind

        scope_id = self.scope_id

        category: str = self.category

        content = self.content

        related_entry_ids: list[str] | Unset = UNSET
        if not isinstance(self.related_entry_ids, Unset):
            related_entry_ids = []
            for related_entry_ids_item_data in self.related_entry_ids:
                related_entry_ids_item = str(related_entry_ids_item_data)
                related_entry_ids.append(related_entry_ids_item)

        consolidate_on_critic_promote = self.consolidate_on_critic_promote

        ttl_seconds: int | None | Unset
        if isinstance(self.ttl_seconds, Unset):
            ttl_seconds = UNSET
        else:
            ttl_seconds = self.ttl_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "scope_kind": scope_kind,
                "scope_id": scope_id,
                "category": category,
                "content": content,
            }
        )
        if related_entry_ids is not UNSET:
            field_dict["related_entry_ids"] = related_entry_ids
        if consolidate_on_critic_promote is not UNSET:
            field_dict["consolidate_on_critic_promote"] = consolidate_on_critic_promote
        if ttl_seconds is not UNSET:
            field_dict["ttl_seconds"] = ttl_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        scope_kind = check_short_term_write_scope_kind_enum(d.pop("scope_kind"))

        scope_id = d.pop("scope_id")

        category = check_memory_category_enum(d.pop("category"))

        content = d.pop("content")

        _related_entry_ids = d.pop("related_entry_ids", UNSET)
        related_entry_ids: list[UUID] | Unset = UNSET
        if _related_entry_ids is not UNSET:
            related_entry_ids = []
            for related_entry_ids_item_data in _related_entry_ids:
                related_entry_ids_item = UUID(related_entry_ids_item_data)

                related_entry_ids.append(related_entry_ids_item)

        consolidate_on_critic_promote = d.pop("consolidate_on_critic_promote", UNSET)

        def _parse_ttl_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_seconds = _parse_ttl_seconds(d.pop("ttl_seconds", UNSET))

        short_term_write_request = cls(
            scope_kind=scope_kind,
            scope_id=scope_id,
            category=category,
            content=content,
            related_entry_ids=related_entry_ids,
            consolidate_on_critic_promote=consolidate_on_critic_promote,
            ttl_seconds=ttl_seconds,
        )

        return short_term_write_request
