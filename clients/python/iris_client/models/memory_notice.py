from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_notice_kind_enum import MemoryNoticeKindEnum, check_memory_notice_kind_enum
from ..models.memory_notice_state_enum import MemoryNoticeStateEnum, check_memory_notice_state_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.memory_notice_stored_in import MemoryNoticeStoredIn


T = TypeVar("T", bound="MemoryNotice")


@_attrs_define
class MemoryNotice:
    """A question Iris asks instead of deciding silently ("you mentioned X earlier —
    should I update?"): the member's entry and the proposal that would replace it.

        Attributes:
            id (UUID):
            kind (MemoryNoticeKindEnum): * `conflict-question` - Conflict Question
                * `reconfirm` - Reconfirm
                * `promotion` - Promotion
            entry_id (UUID):
            entry_body (str):
            proposed_entry_id (None | UUID):
            proposed_body (None | str):
            stored_in (MemoryNoticeStoredIn | None): Where accepting stores the proposal (an open question) or stored it
                (accepted): the corrected memory's scope, as its kind and in the member's words. Null once declined, and for a
                question without a proposal.
            created_at (datetime.datetime):
            state (MemoryNoticeStateEnum | Unset): * `open` - Open
                * `accepted` - Accepted
                * `dismissed` - Dismissed
                * `confirmed` - Confirmed
                * `edited` - Edited
                * `forgotten` - Forgotten
                * `kept` - Kept
            rule (str | Unset):
            answered_at (datetime.datetime | None | Unset):
    """

    id: UUID
    kind: MemoryNoticeKindEnum
    entry_id: UUID
    entry_body: str
    proposed_entry_id: None | UUID
    proposed_body: None | str
    stored_in: MemoryNoticeStoredIn | None
    created_at: datetime.datetime
    state: MemoryNoticeStateEnum | Unset = UNSET
    rule: str | Unset = UNSET
    answered_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_notice_stored_in import MemoryNoticeStoredIn

        id = str(self.id)

        kind: str = self.kind

        entry_id = str(self.entry_id)

        entry_body = self.entry_body

        proposed_entry_id: None | str
        if isinstance(self.proposed_entry_id, UUID):
            proposed_entry_id = str(self.proposed_entry_id)
        else:
            proposed_entry_id = self.proposed_entry_id

        proposed_body: None | str
        proposed_body = self.proposed_body

        stored_in: dict[str, Any] | None
        if isinstance(self.stored_in, MemoryNoticeStoredIn):
            stored_in = self.stored_in.to_dict()
        else:
            stored_in = self.stored_in

        created_at = self.created_at.isoformat()

        state: str | Unset = UNSET
        if not isinstance(self.state, Unset):
            state = self.state

        rule = self.rule

        answered_at: None | str | Unset
        if isinstance(self.answered_at, Unset):
            answered_at = UNSET
        elif isinstance(self.answered_at, datetime.datetime):
            answered_at = self.answered_at.isoformat()
        else:
            answered_at = self.answered_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "entry_id": entry_id,
                "entry_body": entry_body,
                "proposed_entry_id": proposed_entry_id,
                "proposed_body": proposed_body,
                "stored_in": stored_in,
                "created_at": created_at,
            }
        )
        if state is not UNSET:
            field_dict["state"] = state
        if rule is not UNSET:
            field_dict["rule"] = rule
        if answered_at is not UNSET:
            field_dict["answered_at"] = answered_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.memory_notice_stored_in import MemoryNoticeStoredIn

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        kind = check_memory_notice_kind_enum(d.pop("kind"))

        entry_id = UUID(d.pop("entry_id"))

        entry_body = d.pop("entry_body")

        def _parse_proposed_entry_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                proposed_entry_id_type_0 = UUID(data)

                return proposed_entry_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        proposed_entry_id = _parse_proposed_entry_id(d.pop("proposed_entry_id"))

        def _parse_proposed_body(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        proposed_body = _parse_proposed_body(d.pop("proposed_body"))

        def _parse_stored_in(data: object) -> MemoryNoticeStoredIn | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                stored_in_type_1 = MemoryNoticeStoredIn.from_dict(data)

                return stored_in_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemoryNoticeStoredIn | None, data)

        stored_in = _parse_stored_in(d.pop("stored_in"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        _state = d.pop("state", UNSET)
        state: MemoryNoticeStateEnum | Unset
        if isinstance(_state, Unset):
            state = UNSET
        else:
            state = check_memory_notice_state_enum(_state)

        rule = d.pop("rule", UNSET)

        def _parse_answered_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                answered_at_type_0 = datetime.datetime.fromisoformat(data)

                return answered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        answered_at = _parse_answered_at(d.pop("answered_at", UNSET))

        memory_notice = cls(
            id=id,
            kind=kind,
            entry_id=entry_id,
            entry_body=entry_body,
            proposed_entry_id=proposed_entry_id,
            proposed_body=proposed_body,
            stored_in=stored_in,
            created_at=created_at,
            state=state,
            rule=rule,
            answered_at=answered_at,
        )

        memory_notice.additional_properties = d
        return memory_notice

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
