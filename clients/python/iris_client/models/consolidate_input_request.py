from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.origin_enum import OriginEnum, check_origin_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.consolidate_input_request_scope import ConsolidateInputRequestScope


T = TypeVar("T", bound="ConsolidateInputRequest")


@_attrs_define
class ConsolidateInputRequest:
    """Refuses fields it does not know, so a client never believes it set one.

    Attributes:
        explicit (bool | Unset): An explicit consolidation. Into the profile it is the member's explicit request only
            when it quotes them (`origin: user-stated` with their `turns`); otherwise the fact must recur 3 times. Default:
            True.
        scope (ConsolidateInputRequestScope | Unset): Target scope (kind + identifiers); default: the session for a
            user_session row, else the profile.
        subject (str | Unset):
        origin (OriginEnum | Unset): * `user-stated` - User Stated
            * `user-confirmed` - User Confirmed
            * `model-inferred` - Model Inferred
            * `operator-copilot` - Operator Copilot
            * `summarized-from-session` - Summarized From Session
            * `imported` - Imported Default: 'model-inferred'.
        confidence (float | Unset):
        turns (list[UUID] | Unset): The member's turns the row came from: `session-turn` provenance, checked against the
            stored turns. With a turn the member spoke, the row may be consolidated as `user-stated`.
        entry_id (UUID | Unset): Refused (409 illegal-transition): entries are never rewritten in place.
    """

    explicit: bool | Unset = True
    scope: ConsolidateInputRequestScope | Unset = UNSET
    subject: str | Unset = UNSET
    origin: OriginEnum | Unset = "model-inferred"
    confidence: float | Unset = UNSET
    turns: list[UUID] | Unset = UNSET
    entry_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        explicit = self.explicit

        scope: dict[str, Any] | Unset = UNSET
        if not isinstance(self.scope, Unset):
            scope = self.scope.to_dict()

        subject = self.subject

        origin: str | Unset = UNSET
        if not isinstance(self.origin, Unset):
            origin = self.origin

        confidence = self.confidence

        turns: list[str] | Unset = UNSET
        if not isinstance(self.turns, Unset):
            turns = []
            for turns_item_data in self.turns:
                turns_item = str(turns_item_data)
                turns.append(turns_item)

        entry_id: str | Unset = UNSET
        if not isinstance(self.entry_id, Unset):
            entry_id = str(self.entry_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if explicit is not UNSET:
            field_dict["explicit"] = explicit
        if scope is not UNSET:
            field_dict["scope"] = scope
        if subject is not UNSET:
            field_dict["subject"] = subject
        if origin is not UNSET:
            field_dict["origin"] = origin
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if turns is not UNSET:
            field_dict["turns"] = turns
        if entry_id is not UNSET:
            field_dict["entry_id"] = entry_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.consolidate_input_request_scope import ConsolidateInputRequestScope

        d = dict(src_dict)
        explicit = d.pop("explicit", UNSET)

        _scope = d.pop("scope", UNSET)
        scope: ConsolidateInputRequestScope | Unset
        if isinstance(_scope, Unset):
            scope = UNSET
        else:
            scope = ConsolidateInputRequestScope.from_dict(_scope)

        subject = d.pop("subject", UNSET)

        _origin = d.pop("origin", UNSET)
        origin: OriginEnum | Unset
        if isinstance(_origin, Unset):
            origin = UNSET
        else:
            origin = check_origin_enum(_origin)

        confidence = d.pop("confidence", UNSET)

        _turns = d.pop("turns", UNSET)
        turns: list[UUID] | Unset = UNSET
        if _turns is not UNSET:
            turns = []
            for turns_item_data in _turns:
                turns_item = UUID(turns_item_data)

                turns.append(turns_item)

        _entry_id = d.pop("entry_id", UNSET)
        entry_id: UUID | Unset
        if isinstance(_entry_id, Unset):
            entry_id = UNSET
        else:
            entry_id = UUID(_entry_id)

        consolidate_input_request = cls(
            explicit=explicit,
            scope=scope,
            subject=subject,
            origin=origin,
            confidence=confidence,
            turns=turns,
            entry_id=entry_id,
        )

        consolidate_input_request.additional_properties = d
        return consolidate_input_request

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
