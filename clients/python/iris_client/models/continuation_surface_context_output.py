from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.continuity_surface_enum import ContinuitySurfaceEnum, check_continuity_surface_enum

T = TypeVar("T", bound="ContinuationSurfaceContextOutput")


@_attrs_define
class ContinuationSurfaceContextOutput:
    """
    Attributes:
        surface (ContinuitySurfaceEnum):
        session_id (None | str):
        tenant_id (None | UUID):
    """

    surface: ContinuitySurfaceEnum
    session_id: None | str
    tenant_id: None | UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        surface: str = self.surface

        session_id: None | str
        session_id = self.session_id

        tenant_id: None | str
        if isinstance(self.tenant_id, UUID):
            tenant_id = str(self.tenant_id)
        else:
            tenant_id = self.tenant_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "surface": surface,
                "session_id": session_id,
                "tenant_id": tenant_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        surface = check_continuity_surface_enum(d.pop("surface"))

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        def _parse_tenant_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tenant_id_type_0 = UUID(data)

                return tenant_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        tenant_id = _parse_tenant_id(d.pop("tenant_id"))

        continuation_surface_context_output = cls(
            surface=surface,
            session_id=session_id,
            tenant_id=tenant_id,
        )

        continuation_surface_context_output.additional_properties = d
        return continuation_surface_context_output

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
