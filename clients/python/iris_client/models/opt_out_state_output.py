from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.opt_out_category_enum import OptOutCategoryEnum, check_opt_out_category_enum

T = TypeVar("T", bound="OptOutStateOutput")


@_attrs_define
class OptOutStateOutput:
    """
    Attributes:
        category (OptOutCategoryEnum): * `memory` - Memory
            * `personalization` - Personalisation
            * `conversation_history` - Conversation history
            * `embodied` - Scenes and movement
            * `cross_domain_sharing` - Sharing between products
        label (str): The category's name as the member page shows it.
        opted_out (bool): True: the member turned this category off.
        event_id (None | UUID): The event in force; null when never turned off.
        changed_at (datetime.datetime | None):
    """

    category: OptOutCategoryEnum
    label: str
    opted_out: bool
    event_id: None | UUID
    changed_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        label = self.label

        opted_out = self.opted_out

        event_id: None | str
        if isinstance(self.event_id, UUID):
            event_id = str(self.event_id)
        else:
            event_id = self.event_id

        changed_at: None | str
        if isinstance(self.changed_at, datetime.datetime):
            changed_at = self.changed_at.isoformat()
        else:
            changed_at = self.changed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
                "label": label,
                "opted_out": opted_out,
                "event_id": event_id,
                "changed_at": changed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        category = check_opt_out_category_enum(d.pop("category"))

        label = d.pop("label")

        opted_out = d.pop("opted_out")

        def _parse_event_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                event_id_type_0 = UUID(data)

                return event_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        event_id = _parse_event_id(d.pop("event_id"))

        def _parse_changed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                changed_at_type_0 = datetime.datetime.fromisoformat(data)

                return changed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        changed_at = _parse_changed_at(d.pop("changed_at"))

        opt_out_state_output = cls(
            category=category,
            label=label,
            opted_out=opted_out,
            event_id=event_id,
            changed_at=changed_at,
        )

        opt_out_state_output.additional_properties = d
        return opt_out_state_output

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
