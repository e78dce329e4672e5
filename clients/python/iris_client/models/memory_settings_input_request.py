from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.paused_consumers_enum import PausedConsumersEnum, check_paused_consumers_enum

if TYPE_CHECKING:
    from ..models.memory_settings_input_request_auto_forget_months import (
        MemorySettingsInputRequestAutoForgetMonths,
    )


T = TypeVar("T", bound="MemorySettingsInputRequest")


@_attrs_define
class MemorySettingsInputRequest:
    """Refuses fields it does not know, so a client never believes it set one.

    Attributes:
        stop_using (bool):
        auto_forget_months (MemorySettingsInputRequestAutoForgetMonths):
        paused_consumers (list[PausedConsumersEnum]):
    """

    stop_using: bool
    auto_forget_months: MemorySettingsInputRequestAutoForgetMonths
    paused_consumers: list[PausedConsumersEnum]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stop_using = self.stop_using

        auto_forget_months = self.auto_forget_months.to_dict()

        paused_consumers = []
        for paused_consumers_item_data in self.paused_consumers:
            paused_consumers_item: str = paused_consumers_item_data
            paused_consumers.append(paused_consumers_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stop_using": stop_using,
                "auto_forget_months": auto_forget_months,
                "paused_consumers": paused_consumers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_settings_input_request_auto_forget_months import (
            MemorySettingsInputRequestAutoForgetMonths,
        )

        d = dict(src_dict)
        stop_using = d.pop("stop_using")

        auto_forget_months = MemorySettingsInputRequestAutoForgetMonths.from_dict(
            d.pop("auto_forget_months")
        )

        paused_consumers = []
        _paused_consumers = d.pop("paused_consumers")
        for paused_consumers_item_data in _paused_consumers:
            paused_consumers_item = check_paused_consumers_enum(paused_consumers_item_data)

            paused_consumers.append(paused_consumers_item)

        memory_settings_input_request = cls(
            stop_using=stop_using,
            auto_forget_months=auto_forget_months,
            paused_consumers=paused_consumers,
        )

        memory_settings_input_request.additional_properties = d
        return memory_settings_input_request

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
