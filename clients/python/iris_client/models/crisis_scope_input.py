from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.crisis_scope_input_kind_enum import (
    CrisisScopeInputKindEnum,
    check_crisis_scope_input_kind_enum,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="CrisisScopeInput")


@_attrs_define
class CrisisScopeInput:
    """
    Attributes:
        kind (CrisisScopeInputKindEnum):
        user_id (UUID | Unset): Left out: the member the path names; anyone else's id is refused.
    """

    kind: CrisisScopeInputKindEnum
    user_id: UUID | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        user_id: str | Unset = UNSET
        if not isinstance(self.user_id, Unset):
            user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = check_crisis_scope_input_kind_enum(d.pop("kind"))

        _user_id = d.pop("user_id", UNSET)
        user_id: UUID | Unset
        if isinstance(_user_id, Unset):
            user_id = UNSET
        else:
            user_id = UUID(_user_id)

        crisis_scope_input = cls(
            kind=kind,
            user_id=user_id,
        )

        return crisis_scope_input
