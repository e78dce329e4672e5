from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.memory_notice import MemoryNotice
    from ..models.open_questions_output_withheld import OpenQuestionsOutputWithheld


T = TypeVar("T", bound="OpenQuestionsOutput")


@_attrs_define
class OpenQuestionsOutput:
    """
    Attributes:
        questions (list[MemoryNotice]):
        withheld (OpenQuestionsOutputWithheld): Open questions the read gate withheld from this client, by reason.
    """

    questions: list[MemoryNotice]
    withheld: OpenQuestionsOutputWithheld
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        questions = []
        for questions_item_data in self.questions:
            questions_item = questions_item_data.to_dict()
            questions.append(questions_item)

        withheld = self.withheld.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "questions": questions,
                "withheld": withheld,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_notice import MemoryNotice
        from ..models.open_questions_output_withheld import OpenQuestionsOutputWithheld

        d = dict(src_dict)
        questions = []
        _questions = d.pop("questions")
        for questions_item_data in _questions:
            questions_item = MemoryNotice.from_dict(questions_item_data)

            questions.append(questions_item)

        withheld = OpenQuestionsOutputWithheld.from_dict(d.pop("withheld"))

        open_questions_output = cls(
            questions=questions,
            withheld=withheld,
        )

        open_questions_output.additional_properties = d
        return open_questions_output

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
