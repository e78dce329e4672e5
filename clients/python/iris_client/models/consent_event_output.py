from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.capture_method_enum import CaptureMethodEnum, check_capture_method_enum
from ..models.consent_event_kind_enum import ConsentEventKindEnum, check_consent_event_kind_enum
from ..models.consent_type_enum import ConsentTypeEnum, check_consent_type_enum
from ..models.legal_basis_enum import LegalBasisEnum, check_legal_basis_enum
from ..models.status_enum import StatusEnum, check_status_enum

T = TypeVar("T", bound="ConsentEventOutput")


@_attrs_define
class ConsentEventOutput:
    """
    Attributes:
        id (UUID):
        sequence (int):
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
        kind (ConsentEventKindEnum): * `grant` - Grant
            * `withdrawal` - Withdrawal
            * `expiry` - Expiry
            * `denial` - Denial
        status (StatusEnum): * `granted` - Granted
            * `withdrawn` - Withdrawn
            * `expired` - Expired
            * `denied` - Denied
        legal_basis (LegalBasisEnum): * `consent` - Consent
            * `contract` - Contract
            * `legal_obligation` - Legal Obligation
            * `vital_interests` - Vital Interests
            * `public_task` - Public Task
            * `legitimate_interests` - Legitimate Interests
        capture_method (CaptureMethodEnum): * `inline-prompt` - Inline Prompt
            * `settings-toggle` - Settings Toggle
            * `dsar-import` - Dsar Import
            * `api` - Api
            * `operator-recorded` - Operator Recorded
        terms_version (str):
        terms_hash (str):
        witness (str):
        occurred_at (datetime.datetime):
        recorded_at (datetime.datetime):
        valid_until (datetime.datetime | None):
        supersedes (None | UUID):
        record_version (int):
        fingerprint (str):
        previous_hash (str):
        hash_ (str):
    """

    id: UUID
    sequence: int
    consent_type: ConsentTypeEnum
    kind: ConsentEventKindEnum
    status: StatusEnum
    legal_basis: LegalBasisEnum
    capture_method: CaptureMethodEnum
    terms_version: str
    terms_hash: str
    witness: str
    occurred_at: datetime.datetime
    recorded_at: datetime.datetime
    valid_until: datetime.datetime | None
    supersedes: None | UUID
    record_version: int
    fingerprint: str
    previous_hash: str
    hash_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        sequence = self.sequence

        consent_type: str = self.consent_type

        kind: str = self.kind

        status: str = self.status

        legal_basis: str = self.legal_basis

        capture_method: str = self.capture_method

        terms_version = self.terms_version

        terms_hash = self.terms_hash

        witness = self.witness

        occurred_at = self.occurred_at.isoformat()

        recorded_at = self.recorded_at.isoformat()

        valid_until: None | str
        if isinstance(self.valid_until, datetime.datetime):
            valid_until = self.valid_until.isoformat()
        else:
            valid_until = self.valid_until

        supersedes: None | str
        if isinstance(self.supersedes, UUID):
            supersedes = str(self.supersedes)
        else:
            supersedes = self.supersedes

        record_version = self.record_version

        fingerprint = self.fingerprint

        previous_hash = self.previous_hash

        hash_ = self.hash_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "sequence": sequence,
                "consent_type": consent_type,
                "kind": kind,
                "status": status,
                "legal_basis": legal_basis,
                "capture_method": capture_method,
                "terms_version": terms_version,
                "terms_hash": terms_hash,
                "witness": witness,
                "occurred_at": occurred_at,
                "recorded_at": recorded_at,
                "valid_until": valid_until,
                "supersedes": supersedes,
                "record_version": record_version,
                "fingerprint": fingerprint,
                "previous_hash": previous_hash,
                "hash": hash_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        sequence = d.pop("sequence")

        consent_type = check_consent_type_enum(d.pop("consent_type"))

        kind = check_consent_event_kind_enum(d.pop("kind"))

        status = check_status_enum(d.pop("status"))

        legal_basis = check_legal_basis_enum(d.pop("legal_basis"))

        capture_method = check_capture_method_enum(d.pop("capture_method"))

        terms_version = d.pop("terms_version")

        terms_hash = d.pop("terms_hash")

        witness = d.pop("witness")

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))

        recorded_at = datetime.datetime.fromisoformat(d.pop("recorded_at"))

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

        def _parse_supersedes(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                supersedes_type_0 = UUID(data)

                return supersedes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        supersedes = _parse_supersedes(d.pop("supersedes"))

        record_version = d.pop("record_version")

        fingerprint = d.pop("fingerprint")

        previous_hash = d.pop("previous_hash")

        hash_ = d.pop("hash")

        consent_event_output = cls(
            id=id,
            sequence=sequence,
            consent_type=consent_type,
            kind=kind,
            status=status,
            legal_basis=legal_basis,
            capture_method=capture_method,
            terms_version=terms_version,
            terms_hash=terms_hash,
            witness=witness,
            occurred_at=occurred_at,
            recorded_at=recorded_at,
            valid_until=valid_until,
            supersedes=supersedes,
            record_version=record_version,
            fingerprint=fingerprint,
            previous_hash=previous_hash,
            hash_=hash_,
        )

        consent_event_output.additional_properties = d
        return consent_event_output

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
