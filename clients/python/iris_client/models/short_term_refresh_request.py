from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ShortTermRefreshRequest")


@_attrs_define
class ShortTermRefreshRequest:
    """
    Attributes:
        ttl_seconds (int | None | Unset): Keep it this much longer (capped by the scope's maximum lifetime); left out:
            the scope kind's TTL.
    """

    ttl_seconds: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        ttl_seconds: int | None | Unset
        if isinstance(self.ttl_seconds, Unset):
            ttl_seconds = UNSET
        else:
            ttl_seconds = self.ttl_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if ttl_seconds is not UNSET:
            field_dict["ttl_seconds"] = ttl_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_ttl_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_seconds = _parse_ttl_seconds(d.pop("ttl_seconds", UNSET))

        short_term_refresh_request = cls(
            ttl_seconds=ttl_seconds,
        )

        return short_term_refresh_request
