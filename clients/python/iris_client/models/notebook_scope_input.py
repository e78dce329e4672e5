from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.notebook_scope_input_kind_enum import (
    NotebookScopeInputKindEnum,
    check_notebook_scope_input_kind_enum,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="NotebookScopeInput")


@_attrs_define
class NotebookScopeInput:
    """
    Attributes:
        kind (NotebookScopeInputKindEnum):
        notebook_id (str):
        user_id (UUID | Unset): Left out: the member the path names; anyone else's id is refused.
    """

    kind: NotebookScopeInputKindEnum
    notebook_id: str
    user_id: UUID | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        notebook_id = self.notebook_id

        user_id: str | Unset = UNSET
        if not isinstance(self.user_id, Unset):
            user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "notebook_id": notebook_id,
            }
        )
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = check_notebook_scope_input_kind_enum(d.pop("kind"))

        notebook_id = d.pop("notebook_id")

        _user_id = d.pop("user_id", UNSET)
        user_id: UUID | Unset
        if isinstance(_user_id, Unset):
            user_id = UNSET
        else:
            user_id = UUID(_user_id)

        notebook_scope_input = cls(
            kind=kind,
            notebook_id=notebook_id,
            user_id=user_id,
        )

        return notebook_scope_input
