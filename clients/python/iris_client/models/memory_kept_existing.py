from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_kept_existing_outcome_enum import (
    MemoryKeptExistingOutcomeEnum,
    check_memory_kept_existing_outcome_enum,
)

if TYPE_CHECKING:
    from ..models.memory_entry import MemoryEntry


T = TypeVar("T", bound="MemoryKeptExisting")


@_attrs_define
class MemoryKeptExisting:
    """Nothing was stored: `kept-existing`, the conflict ladder kept the existing memory
    (a notice asks the member when a fact they stated would otherwise be overturned); or
    `unchanged`, the scope already holds this fact in these words (case, spacing and
    punctuation aside) from a source at least as strong, and `entry` is that memory:
    writing a fact twice stores it once, with or without an Idempotency-Key.

        Attributes:
            outcome (MemoryKeptExistingOutcomeEnum): * `kept-existing` - kept-existing
                * `unchanged` - unchanged
            conflict_rule (None | str): The ladder's rule for `kept-existing`; null for `unchanged`.
            entry (MemoryEntry | None): The memory that was kept; null to a surface the read gate withholds it from (paused,
                another scope or category, opted out): a write's answer never hands over what the writer may not read.
            notice_id (None | UUID):
    """

    outcome: MemoryKeptExistingOutcomeEnum
    conflict_rule: None | str
    entry: MemoryEntry | None
    notice_id: None | UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_entry import MemoryEntry

        outcome: str = self.outcome

        conflict_rule: None | str
        conflict_rule = self.conflict_rule

        entry: dict[str, Any] | None
        if isinstance(self.entry, MemoryEntry):
            entry = self.entry.to_dict()
        else:
            entry = self.entry

        notice_id: None | str
        if isinstance(self.notice_id, UUID):
            notice_id = str(self.notice_id)
        else:
            notice_id = self.notice_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "outcome": outcome,
                "conflict_rule": conflict_rule,
                "entry": entry,
                "notice_id": notice_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_entry import MemoryEntry

        d = dict(src_dict)
        outcome = check_memory_kept_existing_outcome_enum(d.pop("outcome"))

        def _parse_conflict_rule(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        conflict_rule = _parse_conflict_rule(d.pop("conflict_rule"))

        def _parse_entry(data: object) -> MemoryEntry | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                entry_type_1 = MemoryEntry.from_dict(data)

                return entry_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemoryEntry | None, data)

        entry = _parse_entry(d.pop("entry"))

        def _parse_notice_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                notice_id_type_0 = UUID(data)

                return notice_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        notice_id = _parse_notice_id(d.pop("notice_id"))

        memory_kept_existing = cls(
            outcome=outcome,
            conflict_rule=conflict_rule,
            entry=entry,
            notice_id=notice_id,
        )

        memory_kept_existing.additional_properties = d
        return memory_kept_existing

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
