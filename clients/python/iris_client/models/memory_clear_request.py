from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_clear_state_enum import MemoryClearStateEnum, check_memory_clear_state_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemoryClearRequest")


@_attrs_define
class MemoryClearRequest:
    """
    Attributes:
        id (UUID):
        requested_at (datetime.datetime):
        purge_after (datetime.datetime):
        entry_count (int):
        state (MemoryClearStateEnum | Unset): * `pending` - Pending
            * `cancelled` - Cancelled
            * `purged` - Purged
        finished_at (datetime.datetime | None | Unset):
    """

    id: UUID
    requested_at: datetime.datetime
    purge_after: datetime.datetime
    entry_count: int
    state: MemoryClearStateEnum | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        requested_at = self.requested_at.isoformat()

        purge_after = self.purge_after.isoformat()

        entry_count = self.entry_count

        state: str | Unset = UNSET
        if not isinstance(self.state, Unset):
            state = self.state

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "requested_at": requested_at,
                "purge_after": purge_after,
                "entry_count": entry_count,
            }
        )
        if state is not UNSET:
            field_dict["state"] = state
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        requested_at = datetime.datetime.fromisoformat(d.pop("requested_at"))

        purge_after = datetime.datetime.fromisoformat(d.pop("purge_after"))

        entry_count = d.pop("entry_count")

        _state = d.pop("state", UNSET)
        state: MemoryClearStateEnum | Unset
        if isinstance(_state, Unset):
            state = UNSET
        else:
            state = check_memory_clear_state_enum(_state)

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        memory_clear_request = cls(
            id=id,
            requested_at=requested_at,
            purge_after=purge_after,
            entry_count=entry_count,
            state=state,
            finished_at=finished_at,
        )

        memory_clear_request.additional_properties = d
        return memory_clear_request

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
