from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_enum import DeliveryEnum, check_delivery_enum

T = TypeVar("T", bound="CodeDelivery")


@_attrs_define
class CodeDelivery:
    """Where the request's one-time code went, while it waits to be verified.

    Attributes:
        method (str): `email-link`: a six-digit code by mail.
        sent_to (str): The account's address, masked.
        delivery (DeliveryEnum): * `pending` - Pending
            * `sent` - Sent
            * `failed` - Failed
        expires_at (datetime.datetime):
        verify_url (str): Where to send the code: POST `{"code": "123456"}`.
    """

    method: str
    sent_to: str
    delivery: DeliveryEnum
    expires_at: datetime.datetime
    verify_url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        method = self.method

        sent_to = self.sent_to

        delivery: str = self.delivery

        expires_at = self.expires_at.isoformat()

        verify_url = self.verify_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "method": method,
                "sent_to": sent_to,
                "delivery": delivery,
                "expires_at": expires_at,
                "verify_url": verify_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        method = d.pop("method")

        sent_to = d.pop("sent_to")

        delivery = check_delivery_enum(d.pop("delivery"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        verify_url = d.pop("verify_url")

        code_delivery = cls(
            method=method,
            sent_to=sent_to,
            delivery=delivery,
            expires_at=expires_at,
            verify_url=verify_url,
        )

        code_delivery.additional_properties = d
        return code_delivery

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
