from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.capture_method_enum import CaptureMethodEnum, check_capture_method_enum
from ..models.consent_type_enum import ConsentTypeEnum, check_consent_type_enum
from ..models.input_kind_enum import InputKindEnum, check_input_kind_enum
from ..models.legal_basis_enum import LegalBasisEnum, check_legal_basis_enum
from ..models.terms_version_enum import TermsVersionEnum, check_terms_version_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="InputRequest")


@_attrs_define
class InputRequest:
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
        kind (InputKindEnum): * `grant` - grant
            * `withdrawal` - withdrawal
            * `denial` - denial
        legal_basis (LegalBasisEnum | Unset): * `consent` - Consent
            * `contract` - Contract
            * `legal_obligation` - Legal Obligation
            * `vital_interests` - Vital Interests
            * `public_task` - Public Task
            * `legitimate_interests` - Legitimate Interests Default: 'consent'.
        capture_method (CaptureMethodEnum | Unset): * `inline-prompt` - Inline Prompt
            * `settings-toggle` - Settings Toggle
            * `dsar-import` - Dsar Import
            * `api` - Api
            * `operator-recorded` - Operator Recorded Default: 'api'.
        terms_version (TermsVersionEnum | Unset): * `2026-11` - 2026-11 Default: '2026-11'.
        valid_until (datetime.datetime | None | Unset):
    """

    consent_type: ConsentTypeEnum
    kind: InputKindEnum
    legal_basis: LegalBasisEnum | Unset = "consent"
    capture_method: CaptureMethodEnum | Unset = "api"
    terms_version: TermsVersionEnum | Unset = "2026-11"
    valid_until: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        consent_type: str = self.consent_type

        kind: str = self.kind

        legal_basis: str | Unset = UNSET
        if not isinstance(self.legal_basis, Unset):
            legal_basis = self.legal_basis

        capture_method: str | Unset = UNSET
        if not isinstance(self.capture_method, Unset):
            capture_method = self.capture_method

        terms_version: str | Unset = UNSET
        if not isinstance(self.terms_version, Unset):
            terms_version = self.terms_version

        valid_until: None | str | Unset
        if isinstance(self.valid_until, Unset):
            valid_until = UNSET
        elif isinstance(self.valid_until, datetime.datetime):
            valid_until = self.valid_until.isoformat()
        else:
            valid_until = self.valid_until

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consent_type": consent_type,
                "kind": kind,
            }
        )
        if legal_basis is not UNSET:
            field_dict["legal_basis"] = legal_basis
        if capture_method is not UNSET:
            field_dict["capture_method"] = capture_method
        if terms_version is not UNSET:
            field_dict["terms_version"] = terms_version
        if valid_until is not UNSET:
            field_dict["valid_until"] = valid_until

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        consent_type = check_consent_type_enum(d.pop("consent_type"))

        kind = check_input_kind_enum(d.pop("kind"))

        _legal_basis = d.pop("legal_basis", UNSET)
        legal_basis: LegalBasisEnum | Unset
        if isinstance(_legal_basis, Unset):
            legal_basis = UNSET
        else:
            legal_basis = check_legal_basis_enum(_legal_basis)

        _capture_method = d.pop("capture_method", UNSET)
        capture_method: CaptureMethodEnum | Unset
        if isinstance(_capture_method, Unset):
            capture_method = UNSET
        else:
            capture_method = check_capture_method_enum(_capture_method)

        _terms_version = d.pop("terms_version", UNSET)
        terms_version: TermsVersionEnum | Unset
        if isinstance(_terms_version, Unset):
            terms_version = UNSET
        else:
            terms_version = check_terms_version_enum(_terms_version)

        def _parse_valid_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_until_type_0 = datetime.datetime.fromisoformat(data)

                return valid_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        valid_until = _parse_valid_until(d.pop("valid_until", UNSET))

        input_request = cls(
            consent_type=consent_type,
            kind=kind,
            legal_basis=legal_basis,
            capture_method=capture_method,
            terms_version=terms_version,
            valid_until=valid_until,
        )

        input_request.additional_properties = d
        return input_request

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
