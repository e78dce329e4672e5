from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.opt_out_category_enum import OptOutCategoryEnum, check_opt_out_category_enum

T = TypeVar("T", bound="OptOutInputRequest")


@_attrs_define
class OptOutInputRequest:
    """
    Attributes:
        category (OptOutCategoryEnum): * `memory` - Memory
            * `personalization` - Personalisation
            * `conversation_history` - Conversation history
            * `embodied` - Scenes and movement
            * `cross_domain_sharing` - Sharing between products
        opted_out (bool): true: turn the category off; false: turn it back on.
    """

    category: OptOutCategoryEnum
    opted_out: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        opted_out = self.opted_out

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
                "opted_out": opted_out,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        category = check_opt_out_category_enum(d.pop("category"))

        opted_out = d.pop("opted_out")

        opt_out_input_request = cls(
            category=category,
            opted_out=opted_out,
        )

        opt_out_input_request.additional_properties = d
        return opt_out_input_request

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
