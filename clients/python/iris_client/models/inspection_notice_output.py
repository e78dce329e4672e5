from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.inspection_notice_output_state_enum import (
    InspectionNoticeOutputStateEnum,
    check_inspection_notice_output_state_enum,
)
from ..models.operator_role_enum import OperatorRoleEnum, check_operator_role_enum
from ..models.path_enum import PathEnum, check_path_enum
from ..models.sensitive_categories_enum import (
    SensitiveCategoriesEnum,
    check_sensitive_categories_enum,
)

T = TypeVar("T", bound="InspectionNoticeOutput")


@_attrs_define
class InspectionNoticeOutput:
    """Told to the member: who (by role) looked at which of their memories, why, and when.

    Attributes:
        id (UUID):
        inspection_id (UUID):
        state (InspectionNoticeOutputStateEnum): * `pending` - Pending
            * `delivered` - Delivered
        path (PathEnum): * `dsar-fulfillment` - dsar-fulfillment
            * `incident-escalation` - incident-escalation
            * `routine-review` - routine-review
        operator_role (OperatorRoleEnum): * `support` - Support
            * `admin` - Admin
            * `t&s` - Trust & Safety
            * `legal` - Legal
        scope_kind (str): One of: profile, session, scene, pose, notebook, crisis, operator-copilot, tenant.
        entry_ids (list[UUID]):
        sensitive_categories (list[SensitiveCategoriesEnum]):
        granted_at (datetime.datetime):
        closed_at (datetime.datetime):
        queued_at (datetime.datetime):
        due_at (datetime.datetime):
        delivered_at (datetime.datetime):
        summary (str):
    """

    id: UUID
    inspection_id: UUID
    state: InspectionNoticeOutputStateEnum
    path: PathEnum
    operator_role: OperatorRoleEnum
    scope_kind: str
    entry_ids: list[UUID]
    sensitive_categories: list[SensitiveCategoriesEnum]
    granted_at: datetime.datetime
    closed_at: datetime.datetime
    queued_at: datetime.datetime
    due_at: datetime.datetime
    delivered_at: datetime.datetime
    summary: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        inspection_id = str(self.inspection_id)

        state: str = self.state

        path: str = self.path

        operator_role: str = self.operator_role

        scope_kind = self.scope_kind

        entry_ids = []
        for entry_ids_item_data in self.entry_ids:
            entry_ids_item = str(entry_ids_item_data)
            entry_ids.append(entry_ids_item)

        sensitive_categories = []
        for sensitive_categories_item_data in self.sensitive_categories:
            sensitive_categories_item: str = sensitive_categories_item_data
            sensitive_categories.append(sensitive_categories_item)

        granted_at = self.granted_at.isoformat()

        closed_at = self.closed_at.isoformat()

        queued_at = self.queued_at.isoformat()

        due_at = self.due_at.isoformat()

        delivered_at = self.delivered_at.isoformat()

        summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "inspection_id": inspection_id,
                "state": state,
                "path": path,
                "operator_role": operator_role,
                "scope_kind": scope_kind,
                "entry_ids": entry_ids,
                "sensitive_categories": sensitive_categories,
                "granted_at": granted_at,
                "closed_at": closed_at,
                "queued_at": queued_at,
                "due_at": due_at,
                "delivered_at": delivered_at,
                "summary": summary,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        inspection_id = UUID(d.pop("inspection_id"))

        state = check_inspection_notice_output_state_enum(d.pop("state"))

        path = check_path_enum(d.pop("path"))

        operator_role = check_operator_role_enum(d.pop("operator_role"))

        scope_kind = d.pop("scope_kind")

        entry_ids = []
        _entry_ids = d.pop("entry_ids")
        for entry_ids_item_data in _entry_ids:
            entry_ids_item = UUID(entry_ids_item_data)

            entry_ids.append(entry_ids_item)

        sensitive_categories = []
        _sensitive_categories = d.pop("sensitive_categories")
        for sensitive_categories_item_data in _sensitive_categories:
            sensitive_categories_item = check_sensitive_categories_enum(
                sensitive_categories_item_data
            )

            sensitive_categories.append(sensitive_categories_item)

        granted_at = datetime.datetime.fromisoformat(d.pop("granted_at"))

        closed_at = datetime.datetime.fromisoformat(d.pop("closed_at"))

        queued_at = datetime.datetime.fromisoformat(d.pop("queued_at"))

        due_at = datetime.datetime.fromisoformat(d.pop("due_at"))

        delivered_at = datetime.datetime.fromisoformat(d.pop("delivered_at"))

        summary = d.pop("summary")

        inspection_notice_output = cls(
            id=id,
            inspection_id=inspection_id,
            state=state,
            path=path,
            operator_role=operator_role,
            scope_kind=scope_kind,
            entry_ids=entry_ids,
            sensitive_categories=sensitive_categories,
            granted_at=granted_at,
            closed_at=closed_at,
            queued_at=queued_at,
            due_at=due_at,
            delivered_at=delivered_at,
            summary=summary,
        )

        inspection_notice_output.additional_properties = d
        return inspection_notice_output

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
