from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ConsolidateOutput")


@_attrs_define
class ConsolidateOutput:
    """
    Attributes:
        stm_id (UUID):
        entry_id (None | UUID): The entry made, or the one the conflict ladder kept; null when the kept one is withheld
            from this surface (a memory the member paused, say): it is never named.
        created (bool): False when the conflict ladder kept an existing entry (then 200).
        conflict_rule (None | str):
        promotion_reason (None | str):
        trigger (str):
        consolidated_at (datetime.datetime):
    """

    stm_id: UUID
    entry_id: None | UUID
    created: bool
    conflict_rule: None | str
    promotion_reason: None | str
    trigger: str
    consolidated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stm_id = str(self.stm_id)

        entry_id: None | str
        if isinstance(self.entry_id, UUID):
            entry_id = str(self.entry_id)
        else:
            entry_id = self.entry_id

        created = self.created

        conflict_rule: None | str
        conflict_rule = self.conflict_rule

        promotion_reason: None | str
        promotion_reason = self.promotion_reason

        trigger = self.trigger

        consolidated_at = self.consolidated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stm_id": stm_id,
                "entry_id": entry_id,
                "created": created,
                "conflict_rule": conflict_rule,
                "promotion_reason": promotion_reason,
                "trigger": trigger,
                "consolidated_at": consolidated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        stm_id = UUID(d.pop("stm_id"))

        def _parse_entry_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                entry_id_type_0 = UUID(data)

                return entry_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        entry_id = _parse_entry_id(d.pop("entry_id"))

        created = d.pop("created")

        def _parse_conflict_rule(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        conflict_rule = _parse_conflict_rule(d.pop("conflict_rule"))

        def _parse_promotion_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        promotion_reason = _parse_promotion_reason(d.pop("promotion_reason"))

        trigger = d.pop("trigger")

        consolidated_at = datetime.datetime.fromisoformat(d.pop("consolidated_at"))

        consolidate_output = cls(
            stm_id=stm_id,
            entry_id=entry_id,
            created=created,
            conflict_rule=conflict_rule,
            promotion_reason=promotion_reason,
            trigger=trigger,
            consolidated_at=consolidated_at,
        )

        consolidate_output.additional_properties = d
        return consolidate_output

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
