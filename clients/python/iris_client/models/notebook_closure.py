from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="NotebookClosure")


@_attrs_define
class NotebookClosure:
    """
    Attributes:
        notebook_id (str):
        state (str): `closed` or `deleted`.
        closed_at (datetime.datetime):
        erase_after (datetime.datetime):
        erased_at (datetime.datetime | None | Unset):
    """

    notebook_id: str
    state: str
    closed_at: datetime.datetime
    erase_after: datetime.datetime
    erased_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        notebook_id = self.notebook_id

        state = self.state

        closed_at = self.closed_at.isoformat()

        erase_after = self.erase_after.isoformat()

        erased_at: None | str | Unset
        if isinstance(self.erased_at, Unset):
            erased_at = UNSET
        elif isinstance(self.erased_at, datetime.datetime):
            erased_at = self.erased_at.isoformat()
        else:
            erased_at = self.erased_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "notebook_id": notebook_id,
                "state": state,
                "closed_at": closed_at,
                "erase_after": erase_after,
            }
        )
        if erased_at is not UNSET:
            field_dict["erased_at"] = erased_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        notebook_id = d.pop("notebook_id")

        state = d.pop("state")

        closed_at = datetime.datetime.fromisoformat(d.pop("closed_at"))

        erase_after = datetime.datetime.fromisoformat(d.pop("erase_after"))

        def _parse_erased_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                erased_at_type_0 = datetime.datetime.fromisoformat(data)

                return erased_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        erased_at = _parse_erased_at(d.pop("erased_at", UNSET))

        notebook_closure = cls(
            notebook_id=notebook_id,
            state=state,
            closed_at=closed_at,
            erase_after=erase_after,
            erased_at=erased_at,
        )

        notebook_closure.additional_properties = d
        return notebook_closure

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
