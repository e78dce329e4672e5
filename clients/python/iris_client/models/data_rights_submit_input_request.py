from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.data_rights_kind_enum import DataRightsKindEnum, check_data_rights_kind_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.data_rights_submit_input_request_payload import (
        DataRightsSubmitInputRequestPayload,
    )


T = TypeVar("T", bound="DataRightsSubmitInputRequest")


@_attrs_define
class DataRightsSubmitInputRequest:
    """
    Attributes:
        kind (DataRightsKindEnum):
        payload (DataRightsSubmitInputRequestPayload): The kind's payload (delete: mode, scopes, categories,
            purge_consent_ledger, retention_grace_ms; export: scopes, format, include_* flags, delivery_channel, encrypted;
            access: include_operator_actions).
        passphrase (str | Unset): For an encrypted export only; never stored.
    """

    kind: DataRightsKindEnum
    payload: DataRightsSubmitInputRequestPayload
    passphrase: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        payload = self.payload.to_dict()

        passphrase = self.passphrase

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "payload": payload,
            }
        )
        if passphrase is not UNSET:
            field_dict["passphrase"] = passphrase

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.data_rights_submit_input_request_payload import (
            DataRightsSubmitInputRequestPayload,
        )

        d = dict(src_dict)
        kind = check_data_rights_kind_enum(d.pop("kind"))

        payload = DataRightsSubmitInputRequestPayload.from_dict(d.pop("payload"))

        passphrase = d.pop("passphrase", UNSET)

        data_rights_submit_input_request = cls(
            kind=kind,
            payload=payload,
            passphrase=passphrase,
        )

        data_rights_submit_input_request.additional_properties = d
        return data_rights_submit_input_request

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
