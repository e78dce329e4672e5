from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.continuity_surface_enum import ContinuitySurfaceEnum, check_continuity_surface_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="SurfaceContextInput")


@_attrs_define
class SurfaceContextInput:
    """Where the member was: the surface, and optionally its session and tenant.

    Attributes:
        surface (ContinuitySurfaceEnum):
        session_id (None | str | Unset):
        tenant_id (None | Unset | UUID):
    """

    surface: ContinuitySurfaceEnum
    session_id: None | str | Unset = UNSET
    tenant_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        surface: str = self.surface

        session_id: None | str | Unset
        if isinstance(self.session_id, Unset):
            session_id = UNSET
        else:
            session_id = self.session_id

        tenant_id: None | str | Unset
        if isinstance(self.tenant_id, Unset):
            tenant_id = UNSET
        elif isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "surface": surface,
            }
        )
        if session_id is not UNSET:
            field_dict["session_id"] = session_id
        if tenant_id is not UNSET:
            field_dict["tenant_id"] = tenant_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        surface = check_continuity_surface_enum(d.pop("surface"))

        def _parse_session_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session_id = _parse_session_id(d.pop("session_id", UNSET))

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

        surface_context_input = cls(
            surface=surface,
            session_id=session_id,
            tenant_id=tenant_id,
        )

        return surface_context_input
