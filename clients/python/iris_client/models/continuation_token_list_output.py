from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.continuation_token_list_output_withheld import ContinuationTokenListOutputWithheld
    from ..models.continuation_token_output import ContinuationTokenOutput
    from ..models.continuity_notice_output import ContinuityNoticeOutput


T = TypeVar("T", bound="ContinuationTokenListOutput")


@_attrs_define
class ContinuationTokenListOutput:
    """
    Attributes:
        results (list[ContinuationTokenOutput]):
        withheld (ContinuationTokenListOutputWithheld): The member's tokens (of these surfaces) the read gate withholds
            from this reader, by reason (`cross-device-consent-required`); never named.
        notices (list[ContinuityNoticeOutput]): Pending notices for `device_id`, delivered once.
    """

    results: list[ContinuationTokenOutput]
    withheld: ContinuationTokenListOutputWithheld
    notices: list[ContinuityNoticeOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        withheld = self.withheld.to_dict()

        notices = []
        for notices_item_data in self.notices:
            notices_item = notices_item_data.to_dict()
            notices.append(notices_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "results": results,
                "withheld": withheld,
                "notices": notices,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.continuation_token_list_output_withheld import (
            ContinuationTokenListOutputWithheld,
        )
        from ..models.continuation_token_output import ContinuationTokenOutput
        from ..models.continuity_notice_output import ContinuityNoticeOutput

        d = dict(src_dict)
        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = ContinuationTokenOutput.from_dict(results_item_data)

            results.append(results_item)

        withheld = ContinuationTokenListOutputWithheld.from_dict(d.pop("withheld"))

        notices = []
        _notices = d.pop("notices")
        for notices_item_data in _notices:
            notices_item = ContinuityNoticeOutput.from_dict(notices_item_data)

            notices.append(notices_item)

        continuation_token_list_output = cls(
            results=results,
            withheld=withheld,
            notices=notices,
        )

        continuation_token_list_output.additional_properties = d
        return continuation_token_list_output

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
