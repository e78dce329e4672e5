from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.origin_enum import OriginEnum, check_origin_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.short_term_consolidate_request_scope_type_0 import (
        ShortTermConsolidateRequestScopeType0,
    )


T = TypeVar("T", bound="ShortTermConsolidateRequest")


@_attrs_define
class ShortTermConsolidateRequest:
    """
    Attributes:
        explicit (bool | Unset): An explicit consolidation. Into the profile it is the member's explicit request only
            when it quotes them (`origin: user-stated` with their `turns`); otherwise the fact must recur 3 times. Default:
            True.
        scope (None | ShortTermConsolidateRequestScopeType0 | Unset): Target scope (kind + identifiers); default: the
            session for a user_session row, else the profile.
        subject (None | str | Unset):
        origin (OriginEnum | Unset): * `user-stated` - User Stated
            * `user-confirmed` - User Confirmed
            * `model-inferred` - Model Inferred
            * `operator-copilot` - Operator Copilot
            * `summarized-from-session` - Summarized From Session
            * `imported` - Imported Default: 'model-inferred'.
        confidence (float | None | Unset):
        turns (list[UUID] | Unset): The member's turns the row came from: `session-turn` provenance, checked against the
            stored turns. With a turn the member spoke, the row may be consolidated as `user-stated`.
        entry_id (None | Unset | UUID): Refused (409 illegal-transition): entries are never rewritten in place.
    """

    explicit: bool | Unset = True
    scope: None | ShortTermConsolidateRequestScopeType0 | Unset = UNSET
    subject: None | str | Unset = UNSET
    origin: OriginEnum | Unset = "model-inferred"
    confidence: float | None | Unset = UNSET
    turns: list[UUID] | Unset = UNSET
    entry_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.short_term_consolidate_request_scope_type_0 import (
            ShortTermConsolidateRequestScopeType0,
        )

        explicit = self.explicit

        scope: dict[str, Any] | None | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        elif isinstance(self.scope, ShortTermConsolidateRequestScopeType0):
            scope = self.scope.to_dict()
        else:
            scope = self.scope

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        origin: str | Unset = UNSET
        if not isinstance(self.origin, Unset):
            origin = self.origin

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        turns: list[str] | Unset = UNSET
        if not isinstance(self.turns, Unset):
            turns = []
            for turns_item_data in self.turns:
                turns_item = str(turns_item_data)
                turns.append(turns_item)

        entry_id: None | str | Unset
        if isinstance(self.entry_id, Unset):
            entry_id = UNSET
        elif isinstance(self.entry_id, UUID):
            entry_id = str(self.entry_id)
        else:
            entry_id = self.entry_id

        field_dict: dict[str, Any] = {}

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
        from ..models.short_term_consolidate_request_scope_type_0 import (
            ShortTermConsolidateRequestScopeType0,
        )

        d = dict(src_dict)
        explicit = d.pop("explicit", UNSET)

        def _parse_scope(data: object) -> None | ShortTermConsolidateRequestScopeType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_0 = ShortTermConsolidateRequestScopeType0.from_dict(data)

                return scope_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ShortTermConsolidateRequestScopeType0 | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        _origin = d.pop("origin", UNSET)
        origin: OriginEnum | Unset
        if isinstance(_origin, Unset):
            origin = UNSET
        else:
            origin = check_origin_enum(_origin)

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        _turns = d.pop("turns", UNSET)
        turns: list[UUID] | Unset = UNSET
        if _turns is not UNSET:
            turns = []
            for turns_item_data in _turns:
                turns_item = UUID(turns_item_data)

                turns.append(turns_item)

        def _parse_entry_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                entry_id_type_0 = UUID(data)

                return entry_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        entry_id = _parse_entry_id(d.pop("entry_id", UNSET))

        short_term_consolidate_request = cls(
            explicit=explicit,
            scope=scope,
            subject=subject,
            origin=origin,
            confidence=confidence,
            turns=turns,
            entry_id=entry_id,
        )

        return short_term_consolidate_request
