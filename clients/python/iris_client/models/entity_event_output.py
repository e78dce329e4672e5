from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="EntityEventOutput")


@_attrs_define
class EntityEventOutput:
    """
    Attributes:
        action (str):
        from_state (None | str):
        to_state (None | str):
        occurred_at (datetime.datetime):
    """

    action: str
    from_state: None | str
    to_state: None | str
    occurred_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        from_state: None | str
        from_state = self.from_state

        to_state: None | str
        to_state = self.to_state

        occurred_at = self.occurred_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "from_state": from_state,
                "to_state": to_state,
                "occurred_at": occurred_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = d.pop("action")

        def _parse_from_state(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        from_state = _parse_from_state(d.pop("from_state"))

        def _parse_to_state(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        to_state = _parse_to_state(d.pop("to_state"))

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))

        entity_event_output = cls(
            action=action,
            from_state=from_state,
            to_state=to_state,
            occurred_at=occurred_at,
        )

        entity_event_output.additional_properties = d
        return entity_event_output

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
