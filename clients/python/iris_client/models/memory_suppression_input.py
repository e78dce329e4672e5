from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.reason_enum import ReasonEnum, check_reason_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemorySuppressionInput")


@_attrs_define
class MemorySuppressionInput:
    """Why an entry is held back from recall; a single nullable object on the entry.

    Attributes:
        reason (ReasonEnum): * `crisis-frame` - Crisis Frame
            * `user-pause` - User Pause
            * `sensitive-category` - Sensitive Category
            * `tenant-quarantine` - Tenant Quarantine
        started_at (datetime.datetime):
        ends_at (datetime.datetime | None | Unset):
        notes (str | Unset):  Default: ''.
    """

    reason: ReasonEnum
    started_at: datetime.datetime
    ends_at: datetime.datetime | None | Unset = UNSET
    notes: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        reason: str = self.reason

        started_at = self.started_at.isoformat()

        ends_at: None | str | Unset
        if isinstance(self.ends_at, Unset):
            ends_at = UNSET
        elif isinstance(self.ends_at, datetime.datetime):
            ends_at = self.ends_at.isoformat()
        else:
            ends_at = self.ends_at

        notes = self.notes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "reason": reason,
                "started_at": started_at,
            }
        )
        if ends_at is not UNSET:
            field_dict["ends_at"] = ends_at
        if notes is not UNSET:
            field_dict["notes"] = notes

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reason = check_reason_enum(d.pop("reason"))

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        def _parse_ends_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ends_at_type_0 = datetime.datetime.fromisoformat(data)

                return ends_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        ends_at = _parse_ends_at(d.pop("ends_at", UNSET))

        notes = d.pop("notes", UNSET)

        memory_suppression_input = cls(
            reason=reason,
            started_at=started_at,
            ends_at=ends_at,
            notes=notes,
        )

        return memory_suppression_input
