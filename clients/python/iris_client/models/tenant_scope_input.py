from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.tenant_scope_input_kind_enum import (
    TenantScopeInputKindEnum,
    check_tenant_scope_input_kind_enum,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="TenantScopeInput")


@_attrs_define
class TenantScopeInput:
    """
    Attributes:
        kind (TenantScopeInputKindEnum):
        tenant_id (UUID):
        user_id (UUID | Unset): Left out: the member the path names; anyone else's id is refused.
    """

    kind: TenantScopeInputKindEnum
    tenant_id: UUID
    user_id: UUID | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        tenant_id = str(self.tenant_id)

        user_id: str | Unset = UNSET
        if not isinstance(self.user_id, Unset):
            user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "tenant_id": tenant_id,
            }
        )
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = check_tenant_scope_input_kind_enum(d.pop("kind"))

        tenant_id = UUID(d.pop("tenant_id"))

        _user_id = d.pop("user_id", UNSET)
        user_id: UUID | Unset
        if isinstance(_user_id, Unset):
            user_id = UNSET
        else:
            user_id = UUID(_user_id)

        tenant_scope_input = cls(
            kind=kind,
            tenant_id=tenant_id,
            user_id=user_id,
        )

        return tenant_scope_input
