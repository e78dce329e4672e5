from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ConsentLedgerVerification")


@_attrs_define
class ConsentLedgerVerification:
    """
    Attributes:
        valid (bool):
        first_invalid_event_id (None | UUID):
        reason (None | str):
    """

    valid: bool
    first_invalid_event_id: None | UUID
    reason: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        valid = self.valid

        first_invalid_event_id: None | str
        if isinstance(self.first_invalid_event_id, UUID):
            first_invalid_event_id = str(self.first_invalid_event_id)
        else:
            first_invalid_event_id = self.first_invalid_event_id

        reason: None | str
        reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "valid": valid,
                "first_invalid_event_id": first_invalid_event_id,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        valid = d.pop("valid")

        def _parse_first_invalid_event_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                first_invalid_event_id_type_0 = UUID(data)

                return first_invalid_event_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        first_invalid_event_id = _parse_first_invalid_event_id(d.pop("first_invalid_event_id"))

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        consent_ledger_verification = cls(
            valid=valid,
            first_invalid_event_id=first_invalid_event_id,
            reason=reason,
        )

        consent_ledger_verification.additional_properties = d
        return consent_ledger_verification

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
