from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.posture_enum import PostureEnum, check_posture_enum
from ..models.sensitive_categories_enum import (
    SensitiveCategoriesEnum,
    check_sensitive_categories_enum,
)

if TYPE_CHECKING:
    from ..models.continuation_anchor_ref_output import ContinuationAnchorRefOutput
    from ..models.continuation_surface_context_output import ContinuationSurfaceContextOutput


T = TypeVar("T", bound="ContinuationTokenOutput")


@_attrs_define
class ContinuationTokenOutput:
    """
    Attributes:
        id (UUID): The slot (card) id: stable across writes.
        token_id (UUID):
        user_id (UUID):
        scope_key (str):
        device_id (str):
        surface_context (ContinuationSurfaceContextOutput):
        anchor_ref (ContinuationAnchorRefOutput):
        posture (PostureEnum): * `reading` - Reading
            * `listening` - Listening
            * `co-watching` - Co-watching
            * `practicing` - Practicing
            * `studying` - Studying
            * `reviewing` - Reviewing
            * `paused` - Paused
        sensitive_categories (list[SensitiveCategoriesEnum]):
        cross_device_consent_id (None | UUID):
        idempotency_key (str):
        last_updated_at (datetime.datetime): As the device sent it.
        recorded_at (datetime.datetime): Server time of the winning write.
        revision (int): Writes applied to this slot so far.
    """

    id: UUID
    token_id: UUID
    user_id: UUID
    scope_key: str
    device_id: str
    surface_context: ContinuationSurfaceContextOutput
    anchor_ref: ContinuationAnchorRefOutput
    posture: PostureEnum
    sensitive_categories: list[SensitiveCategoriesEnum]
    cross_device_consent_id: None | UUID
    idempotency_key: str
    last_updated_at: datetime.datetime
    recorded_at: datetime.datetime
    revision: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        token_id = str(self.token_id)

        user_id = str(self.user_id)

        scope_key = self.scope_key

        device_id = self.device_id

        surface_context = self.surface_context.to_dict()

        anchor_ref = self.anchor_ref.to_dict()

        posture: str = self.posture

        sensitive_categories = []
        for sensitive_categories_item_data in self.sensitive_categories:
            sensitive_categories_item: str = sensitive_categories_item_data
            sensitive_categories.append(sensitive_categories_item)

        cross_device_consent_id: None | str
        if isinstance(self.cross_device_consent_id, UUID):
            cross_device_consent_id = str(self.cross_device_consent_id)
        else:
            cross_device_consent_id = self.cross_device_consent_id

        idempotency_key = self.idempotency_key

        last_updated_at = self.last_updated_at.isoformat()

        recorded_at = self.recorded_at.isoformat()

        revision = self.revision

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "token_id": token_id,
                "user_id": user_id,
                "scope_key": scope_key,
                "device_id": device_id,
                "surface_context": surface_context,
                "anchor_ref": anchor_ref,
                "posture": posture,
                "sensitive_categories": sensitive_categories,
                "cross_device_consent_id": cross_device_consent_id,
                "idempotency_key": idempotency_key,
                "last_updated_at": last_updated_at,
                "recorded_at": recorded_at,
                "revision": revision,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.continuation_anchor_ref_output import ContinuationAnchorRefOutput
        from ..models.continuation_surface_context_output import ContinuationSurfaceContextOutput

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        token_id = UUID(d.pop("token_id"))

        user_id = UUID(d.pop("user_id"))

        scope_key = d.pop("scope_key")

        device_id = d.pop("device_id")

        surface_context = ContinuationSurfaceContextOutput.from_dict(d.pop("surface_context"))

        anchor_ref = ContinuationAnchorRefOutput.from_dict(d.pop("anchor_ref"))

        posture = check_posture_enum(d.pop("posture"))

        sensitive_categories = []
        _sensitive_categories = d.pop("sensitive_categories")
        for sensitive_categories_item_data in _sensitive_categories:
            sensitive_categories_item = check_sensitive_categories_enum(
                sensitive_categories_item_data
            )

            sensitive_categories.append(sensitive_categories_item)

        def _parse_cross_device_consent_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cross_device_consent_id_type_0 = UUID(data)

                return cross_device_consent_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        cross_device_consent_id = _parse_cross_device_consent_id(d.pop("cross_device_consent_id"))

        idempotency_key = d.pop("idempotency_key")

        last_updated_at = datetime.datetime.fromisoformat(d.pop("last_updated_at"))

        recorded_at = datetime.datetime.fromisoformat(d.pop("recorded_at"))

        revision = d.pop("revision")

        continuation_token_output = cls(
            id=id,
            token_id=token_id,
            user_id=user_id,
            scope_key=scope_key,
            device_id=device_id,
            surface_context=surface_context,
            anchor_ref=anchor_ref,
            posture=posture,
            sensitive_categories=sensitive_categories,
            cross_device_consent_id=cross_device_consent_id,
            idempotency_key=idempotency_key,
            last_updated_at=last_updated_at,
            recorded_at=recorded_at,
            revision=revision,
        )

        continuation_token_output.additional_properties = d
        return continuation_token_output

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
