from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Notebook")


@_attrs_define
class Notebook:
    """
    Attributes:
        notebook_id (str):
        state (str): `open`; `closed`: no new memory, erased after `erase_after`; `deleted`: its memory erased
            (tombstones keep ids and times only).
        entry_count (int): Memories in it not forgotten.
        last_written_at (datetime.datetime):
        closed_at (datetime.datetime | None):
        erase_after (datetime.datetime | None):
    """

    notebook_id: str
    state: str
    entry_count: int
    last_written_at: datetime.datetime
    closed_at: datetime.datetime | None
    erase_after: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        notebook_id = self.notebook_id

        state = self.state

        entry_count = self.entry_count

        last_written_at = self.last_written_at.isoformat()

        closed_at: None | str
        if isinstance(self.closed_at, datetime.datetime):
            closed_at = self.closed_at.isoformat()
        else:
            closed_at = self.closed_at

        erase_after: None | str
        if isinstance(self.erase_after, datetime.datetime):
            erase_after = self.erase_after.isoformat()
        else:
            erase_after = self.erase_after

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "notebook_id": notebook_id,
                "state": state,
                "entry_count": entry_count,
                "last_written_at": last_written_at,
                "closed_at": closed_at,
                "erase_after": erase_after,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        notebook_id = d.pop("notebook_id")

        state = d.pop("state")

        entry_count = d.pop("entry_count")

        last_written_at = datetime.datetime.fromisoformat(d.pop("last_written_at"))

        def _parse_closed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                closed_at_type_0 = datetime.datetime.fromisoformat(data)

                return closed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        closed_at = _parse_closed_at(d.pop("closed_at"))

        def _parse_erase_after(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                erase_after_type_0 = datetime.datetime.fromisoformat(data)

                return erase_after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        erase_after = _parse_erase_after(d.pop("erase_after"))

        notebook = cls(
            notebook_id=notebook_id,
            state=state,
            entry_count=entry_count,
            last_written_at=last_written_at,
            closed_at=closed_at,
            erase_after=erase_after,
        )

        notebook.additional_properties = d
        return notebook

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
