from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ChangeFeedAckRequest")


@_attrs_define
class ChangeFeedAckRequest:
    """
    Attributes:
        cursor (str): The `next` of the last page applied.
    """

    cursor: str

    def to_dict(self) -> dict[str, Any]:
        cursor = self.cursor

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cursor": cursor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cursor = d.pop("cursor")

        change_feed_ack_request = cls(
            cursor=cursor,
        )

        return change_feed_ack_request
