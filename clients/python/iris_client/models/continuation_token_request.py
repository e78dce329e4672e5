from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.posture_enum import PostureEnum, check_posture_enum
from ..models.sensitive_categories_enum import (
    SensitiveCategoriesEnum,
    check_sensitive_categories_enum,
)

if TYPE_CHECKING:
    from ..models.anchor_ref_input import AnchorRefInput
    from ..models.surface_context_input import SurfaceContextInput


T = TypeVar("T", bound="ContinuationTokenRequest")


@_attrs_define
class ContinuationTokenRequest:
    """A member's place on a surface, as references and posture only; never content.

    Attributes:
        token_id (UUID):
        user_id (UUID): Must be the member in the path.
        scope_key (str):
        device_id (str):
        surface_context (SurfaceContextInput): Where the member was: the surface, and optionally its session and tenant.
        anchor_ref (AnchorRefInput): What to resume: an anchor on the surface and a locator inside it (seconds into
            audio, fold index in a scene, page in a Nisaba edition).
        posture (PostureEnum): * `reading` - Reading
            * `listening` - Listening
            * `co-watching` - Co-watching
            * `practicing` - Practicing
            * `studying` - Studying
            * `reviewing` - Reviewing
            * `paused` - Paused
        sensitive_categories (list[SensitiveCategoriesEnum]): Each at most once; non-empty requires
            `cross_device_consent_id`.
        cross_device_consent_id (None | UUID): The member's `cross_device` grant in force now (its consent event id).
        idempotency_key (str): The write's idempotency key: the same key and token answer the first answer again; an
            `Idempotency-Key` header, when sent, must equal it.
        last_updated_at (datetime.datetime): The device's clock; never ordered by.
    """

    token_id: UUID
    user_id: UUID
    scope_key: str
    device_id: str
    surface_context: SurfaceContextInput
    anchor_ref: AnchorRefInput
    posture: PostureEnum
    sensitive_categories: list[SensitiveCategoriesEnum]
    cross_device_consent_id: None | UUID
    idempotency_key: str
    last_updated_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
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

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
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
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.anchor_ref_input import AnchorRefInput
        from ..models.surface_context_input import SurfaceContextInput

        d = dict(src_dict)
        token_id = UUID(d.pop("token_id"))

        user_id = UUID(d.pop("user_id"))

        scope_key = d.pop("scope_key")

        device_id = d.pop("device_id")

        surface_context = SurfaceContextInput.from_dict(d.pop("surface_context"))

        anchor_ref = AnchorRefInput.from_dict(d.pop("anchor_ref"))

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

        continuation_token_request = cls(
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
        )

        return continuation_token_request
