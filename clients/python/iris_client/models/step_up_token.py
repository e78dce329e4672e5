from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="StepUpToken")


@_attrs_define
class StepUpToken:
    """
    Attributes:
        token (str): The bearer token; shown once, never stored.
        prefix (str):
        reauthenticated_at (datetime.datetime):
        expires_at (datetime.datetime): After this the token authenticates nothing: mint another.
    """

    token: str
    prefix: str
    reauthenticated_at: datetime.datetime
    expires_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        prefix = self.prefix

        reauthenticated_at = self.reauthenticated_at.isoformat()

        expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "token": token,
                "prefix": prefix,
                "reauthenticated_at": reauthenticated_at,
                "expires_at": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token = d.pop("token")

        prefix = d.pop("prefix")

        reauthenticated_at = datetime.datetime.fromisoformat(d.pop("reauthenticated_at"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        step_up_token = cls(
            token=token,
            prefix=prefix,
            reauthenticated_at=reauthenticated_at,
            expires_at=expires_at,
        )

        step_up_token.additional_properties = d
        return step_up_token

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
