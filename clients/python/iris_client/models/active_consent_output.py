from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.consent_type_enum import ConsentTypeEnum, check_consent_type_enum
from ..models.status_enum import StatusEnum, check_status_enum

T = TypeVar("T", bound="ActiveConsentOutput")


@_attrs_define
class ActiveConsentOutput:
    """
    Attributes:
        consent_type (ConsentTypeEnum): * `data_processing` - data_processing
            * `data_storage` - data_storage
            * `sensitive_data` - sensitive_data
            * `cross_device` - cross_device
            * `multi-actor-sensitive` - multi-actor-sensitive
            * `category:pose_alignment` - category:pose_alignment
            * `category:biometric` - category:biometric
            * `category:spiritual` - category:spiritual
            * `category:medical` - category:medical
            * `category:sexual` - category:sexual
            * `category:financial` - category:financial
            * `category:legal` - category:legal
            * `category:safety` - category:safety
            * `category:physical_health` - category:physical_health
            * `category:mental_health` - category:mental_health
            * `category:substance_use` - category:substance_use
            * `category:sexuality` - category:sexuality
            * `category:gender_identity` - category:gender_identity
            * `category:religion_user_redacted` - category:religion_user_redacted
            * `category:abuse_history` - category:abuse_history
            * `category:immigration_status` - category:immigration_status
            * `category:financial_distress` - category:financial_distress
            * `category:relationship_violence` - category:relationship_violence
            * `category:legal_jeopardy` - category:legal_jeopardy
        status (StatusEnum): * `granted` - Granted
            * `withdrawn` - Withdrawn
            * `expired` - Expired
            * `denied` - Denied
        in_force (bool): Granted and not past its end date.
        event_id (UUID):
        valid_until (datetime.datetime | None):
    """

    consent_type: ConsentTypeEnum
    status: StatusEnum
    in_force: bool
    event_id: UUID
    valid_until: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        consent_type: str = self.consent_type

        status: str = self.status

        in_force = self.in_force

        event_id = str(self.event_id)

        valid_until: None | str
        if isinstance(self.valid_until, datetime.datetime):
            valid_until = self.valid_until.isoformat()
        else:
            valid_until = self.valid_until

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consent_type": consent_type,
                "status": status,
                "in_force": in_force,
                "event_id": event_id,
                "valid_until": valid_until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        consent_type = check_consent_type_enum(d.pop("consent_type"))

        status = check_status_enum(d.pop("status"))

        in_force = d.pop("in_force")

        event_id = UUID(d.pop("event_id"))

        def _parse_valid_until(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_until_type_0 = datetime.datetime.fromisoformat(data)

                return valid_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        valid_until = _parse_valid_until(d.pop("valid_until"))

        active_consent_output = cls(
            consent_type=consent_type,
            status=status,
            in_force=in_force,
            event_id=event_id,
            valid_until=valid_until,
        )

        active_consent_output.additional_properties = d
        return active_consent_output

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
