from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.data_rights_kind_enum import DataRightsKindEnum, check_data_rights_kind_enum
from ..models.data_rights_status_enum import DataRightsStatusEnum, check_data_rights_status_enum
from ..models.data_rights_verification_method_enum import (
    DataRightsVerificationMethodEnum,
    check_data_rights_verification_method_enum,
)

if TYPE_CHECKING:
    from ..models.code_delivery import CodeDelivery
    from ..models.extension import Extension
    from ..models.notified_surface import NotifiedSurface
    from ..models.trail_row import TrailRow


T = TypeVar("T", bound="Receipt")


@_attrs_define
class Receipt:
    """The seed's receipt (`toIrisDataRightsReceipt`): status, clocks, proof.

    Attributes:
        id (UUID):
        kind (DataRightsKindEnum):
        status (DataRightsStatusEnum):
        payload (Any):
        received_at (datetime.datetime):
        verify_by (datetime.datetime):
        verified_at (datetime.datetime | None):
        verification_method (DataRightsVerificationMethodEnum | None):
        verification (CodeDelivery | None):
        deadline_at (datetime.datetime):
        due_at (datetime.datetime):
        extension (Extension | None):
        is_past_deadline (bool):
        ms_remaining_to_deadline (int):
        started_at (datetime.datetime | None):
        finished_at (datetime.datetime | None):
        result_fingerprint (None | str): SHA-256 binding the result: of the export bundle, of the sorted deleted-id set,
            or of the access report.
        failure_code (None | str):
        failure_reason (None | str): Why an operator failed the request, as they wrote it.
        grace_ends_at (datetime.datetime | None):
        download_url (None | str):
        download_expires_at (datetime.datetime | None):
        access_report (Any):
        notified_surfaces (list[NotifiedSurface] | None): A delete's proof of notification: the surfaces its erasure
            told (only those that had received the member's memory), when, and whether they acknowledged. Null for another
            kind, or before the erasure begins.
        audit_trail (list[TrailRow]):
    """

    id: UUID
    kind: DataRightsKindEnum
    status: DataRightsStatusEnum
    payload: Any
    received_at: datetime.datetime
    verify_by: datetime.datetime
    verified_at: datetime.datetime | None
    verification_method: DataRightsVerificationMethodEnum | None
    verification: CodeDelivery | None
    deadline_at: datetime.datetime
    due_at: datetime.datetime
    extension: Extension | None
    is_past_deadline: bool
    ms_remaining_to_deadline: int
    started_at: datetime.datetime | None
    finished_at: datetime.datetime | None
    result_fingerprint: None | str
    failure_code: None | str
    failure_reason: None | str
    grace_ends_at: datetime.datetime | None
    download_url: None | str
    download_expires_at: datetime.datetime | None
    access_report: Any
    notified_surfaces: list[NotifiedSurface] | None
    audit_trail: list[TrailRow]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.code_delivery import CodeDelivery
        from ..models.extension import Extension

        id = str(self.id)

        kind: str = self.kind

        status: str = self.status

        payload = self.payload

        received_at = self.received_at.isoformat()

        verify_by = self.verify_by.isoformat()

        verified_at: None | str
        if isinstance(self.verified_at, datetime.datetime):
            verified_at = self.verified_at.isoformat()
        else:
            verified_at = self.verified_at

        verification_method: None | str
        if isinstance(self.verification_method, str):
            verification_method = self.verification_method
        else:
            verification_method = self.verification_method

        verification: dict[str, Any] | None
        if isinstance(self.verification, CodeDelivery):
            verification = self.verification.to_dict()
        else:
            verification = self.verification

        deadline_at = self.deadline_at.isoformat()

        due_at = self.due_at.isoformat()

        extension: dict[str, Any] | None
        if isinstance(self.extension, Extension):
            extension = self.extension.to_dict()
        else:
            extension = self.extension

        is_past_deadline = self.is_past_deadline

        ms_remaining_to_deadline = self.ms_remaining_to_deadline

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        result_fingerprint: None | str
        result_fingerprint = self.result_fingerprint

        failure_code: None | str
        failure_code = self.failure_code

        failure_reason: None | str
        failure_reason = self.failure_reason

        grace_ends_at: None | str
        if isinstance(self.grace_ends_at, datetime.datetime):
            grace_ends_at = self.grace_ends_at.isoformat()
        else:
            grace_ends_at = self.grace_ends_at

        download_url: None | str
        download_url = self.download_url

        download_expires_at: None | str
        if isinstance(self.download_expires_at, datetime.datetime):
            download_expires_at = self.download_expires_at.isoformat()
        else:
            download_expires_at = self.download_expires_at

        access_report = self.access_report

        notified_surfaces: list[dict[str, Any]] | None
        if isinstance(self.notified_surfaces, list):
            notified_surfaces = []
            for notified_surfaces_type_0_item_data in self.notified_surfaces:
                notified_surfaces_type_0_item = notified_surfaces_type_0_item_data.to_dict()
                notified_surfaces.append(notified_surfaces_type_0_item)

        else:
            notified_surfaces = self.notified_surfaces

        audit_trail = []
        for audit_trail_item_data in self.audit_trail:
            audit_trail_item = audit_trail_item_data.to_dict()
            audit_trail.append(audit_trail_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "status": status,
                "payload": payload,
                "received_at": received_at,
                "verify_by": verify_by,
                "verified_at": verified_at,
                "verification_method": verification_method,
                "verification": verification,
                "deadline_at": deadline_at,
                "due_at": due_at,
                "extension": extension,
                "is_past_deadline": is_past_deadline,
                "ms_remaining_to_deadline": ms_remaining_to_deadline,
                "started_at": started_at,
                "finished_at": finished_at,
                "result_fingerprint": result_fingerprint,
                "failure_code": failure_code,
                "failure_reason": failure_reason,
                "grace_ends_at": grace_ends_at,
                "download_url": download_url,
                "download_expires_at": download_expires_at,
                "access_report": access_report,
                "notified_surfaces": notified_surfaces,
                "audit_trail": audit_trail,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.code_delivery import CodeDelivery
        from ..models.extension import Extension
        from ..models.notified_surface import NotifiedSurface
        from ..models.trail_row import TrailRow

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        kind = check_data_rights_kind_enum(d.pop("kind"))

        status = check_data_rights_status_enum(d.pop("status"))

        payload = d.pop("payload")

        received_at = datetime.datetime.fromisoformat(d.pop("received_at"))

        verify_by = datetime.datetime.fromisoformat(d.pop("verify_by"))

        def _parse_verified_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verified_at_type_0 = datetime.datetime.fromisoformat(data)

                return verified_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        verified_at = _parse_verified_at(d.pop("verified_at"))

        def _parse_verification_method(data: object) -> DataRightsVerificationMethodEnum | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verification_method_type_1 = check_data_rights_verification_method_enum(data)

                return verification_method_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DataRightsVerificationMethodEnum | None, data)

        verification_method = _parse_verification_method(d.pop("verification_method"))

        def _parse_verification(data: object) -> CodeDelivery | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                verification_type_1 = CodeDelivery.from_dict(data)

                return verification_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CodeDelivery | None, data)

        verification = _parse_verification(d.pop("verification"))

        deadline_at = datetime.datetime.fromisoformat(d.pop("deadline_at"))

        due_at = datetime.datetime.fromisoformat(d.pop("due_at"))

        def _parse_extension(data: object) -> Extension | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                extension_type_1 = Extension.from_dict(data)

                return extension_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Extension | None, data)

        extension = _parse_extension(d.pop("extension"))

        is_past_deadline = d.pop("is_past_deadline")

        ms_remaining_to_deadline = d.pop("ms_remaining_to_deadline")

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        def _parse_result_fingerprint(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        result_fingerprint = _parse_result_fingerprint(d.pop("result_fingerprint"))

        def _parse_failure_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failure_code = _parse_failure_code(d.pop("failure_code"))

        def _parse_failure_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason"))

        def _parse_grace_ends_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                grace_ends_at_type_0 = datetime.datetime.fromisoformat(data)

                return grace_ends_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        grace_ends_at = _parse_grace_ends_at(d.pop("grace_ends_at"))

        def _parse_download_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        download_url = _parse_download_url(d.pop("download_url"))

        def _parse_download_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                download_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return download_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        download_expires_at = _parse_download_expires_at(d.pop("download_expires_at"))

        access_report = d.pop("access_report")

        def _parse_notified_surfaces(data: object) -> list[NotifiedSurface] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                notified_surfaces_type_0 = []
                _notified_surfaces_type_0 = data
                for notified_surfaces_type_0_item_data in _notified_surfaces_type_0:
                    notified_surfaces_type_0_item = NotifiedSurface.from_dict(
                        notified_surfaces_type_0_item_data
                    )

                    notified_surfaces_type_0.append(notified_surfaces_type_0_item)

                return notified_surfaces_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[NotifiedSurface] | None, data)

        notified_surfaces = _parse_notified_surfaces(d.pop("notified_surfaces"))

        audit_trail = []
        _audit_trail = d.pop("audit_trail")
        for audit_trail_item_data in _audit_trail:
            audit_trail_item = TrailRow.from_dict(audit_trail_item_data)

            audit_trail.append(audit_trail_item)

        receipt = cls(
            id=id,
            kind=kind,
            status=status,
            payload=payload,
            received_at=received_at,
            verify_by=verify_by,
            verified_at=verified_at,
            verification_method=verification_method,
            verification=verification,
            deadline_at=deadline_at,
            due_at=due_at,
            extension=extension,
            is_past_deadline=is_past_deadline,
            ms_remaining_to_deadline=ms_remaining_to_deadline,
            started_at=started_at,
            finished_at=finished_at,
            result_fingerprint=result_fingerprint,
            failure_code=failure_code,
            failure_reason=failure_reason,
            grace_ends_at=grace_ends_at,
            download_url=download_url,
            download_expires_at=download_expires_at,
            access_report=access_report,
            notified_surfaces=notified_surfaces,
            audit_trail=audit_trail,
        )

        receipt.additional_properties = d
        return receipt

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
