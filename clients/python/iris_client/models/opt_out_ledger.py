from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.opt_out_category_enum import OptOutCategoryEnum, check_opt_out_category_enum

if TYPE_CHECKING:
    from ..models.opt_out_event_output import OptOutEventOutput
    from ..models.opt_out_state_output import OptOutStateOutput


T = TypeVar("T", bound="OptOutLedger")


@_attrs_define
class OptOutLedger:
    """
    Attributes:
        opted_out (list[OptOutCategoryEnum]): The categories turned off right now.
        categories (list[OptOutStateOutput]):
        history (list[OptOutEventOutput]):
        history_count (int): Events in the ledger; `history` holds the newest 200.
    """

    opted_out: list[OptOutCategoryEnum]
    categories: list[OptOutStateOutput]
    history: list[OptOutEventOutput]
    history_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        opted_out = []
        for opted_out_item_data in self.opted_out:
            opted_out_item: str = opted_out_item_data
            opted_out.append(opted_out_item)

        categories = []
        for categories_item_data in self.categories:
            categories_item = categories_item_data.to_dict()
            categories.append(categories_item)

        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

        history_count = self.history_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "opted_out": opted_out,
                "categories": categories,
                "history": history,
                "history_count": history_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.opt_out_event_output import OptOutEventOutput
        from ..models.opt_out_state_output import OptOutStateOutput

        d = dict(src_dict)
        opted_out = []
        _opted_out = d.pop("opted_out")
        for opted_out_item_data in _opted_out:
            opted_out_item = check_opt_out_category_enum(opted_out_item_data)

            opted_out.append(opted_out_item)

        categories = []
        _categories = d.pop("categories")
        for categories_item_data in _categories:
            categories_item = OptOutStateOutput.from_dict(categories_item_data)

            categories.append(categories_item)

        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = OptOutEventOutput.from_dict(history_item_data)

            history.append(history_item)

        history_count = d.pop("history_count")

        opt_out_ledger = cls(
            opted_out=opted_out,
            categories=categories,
            history=history,
            history_count=history_count,
        )

        opt_out_ledger.additional_properties = d
        return opt_out_ledger

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
