"""The ContinuationToken wire contract: a pydantic v2 mirror of seed 001's strict Zod schema.

Strict in both senses: unknown fields are refused (a token has no place for content) and
nothing is coerced (`"5"` is not a number, `1700000000` is not a time). Validation runs in
JSON mode, where UUIDs and ISO 8601 times arrive as strings. Every reference is a bounded
run of visible characters without whitespace, so a sentence cannot pass as an anchor.
"""

import json
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from consent.enums import SensitiveCategory
from continuity.enums import Posture, Surface
from continuity.policy import RECENT_DEFAULT, RECENT_MAX
from iris_site.api.contracts import Instant

SCOPE_KEY_MAX_LENGTH = 160
DEVICE_ID_MAX_LENGTH = 96
SESSION_ID_MAX_LENGTH = 128
ANCHOR_ID_MAX_LENGTH = 128
CURSOR_MAX_LENGTH = 64
IDEMPOTENCY_KEY_MAX_LENGTH = 128
SENSITIVE_CATEGORIES_MAX = 16

# Visible characters only: no whitespace, no control characters.
REFERENCE_PATTERN = r"^[^\s\x00-\x1f\x7f]+$"


def _reference(max_length: int) -> Any:
    return Annotated[
        str, StringConstraints(min_length=1, max_length=max_length, pattern=REFERENCE_PATTERN)
    ]


ScopeKey = _reference(SCOPE_KEY_MAX_LENGTH)
DeviceId = _reference(DEVICE_ID_MAX_LENGTH)
SessionId = _reference(SESSION_ID_MAX_LENGTH)
AnchorId = _reference(ANCHOR_ID_MAX_LENGTH)
Cursor = _reference(CURSOR_MAX_LENGTH)
IdempotencyKey = _reference(IDEMPOTENCY_KEY_MAX_LENGTH)

SurfaceValue = Literal[tuple(Surface.values)]
PostureValue = Literal[tuple(Posture.values)]
SensitiveCategoryValue = Literal[tuple(SensitiveCategory.values)]


class Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class SurfaceContext(Contract):
    """Where the member was: the surface, and optionally its session and tenant."""

    surface: SurfaceValue
    session_id: SessionId | None = None
    tenant_id: uuid.UUID | None = None


class AnchorRef(Contract):
    """What to resume: an anchor on the surface and a locator inside it (seconds into
    audio, fold index in a scene, page in a Nisaba edition)."""

    surface: SurfaceValue = Field(description="Must equal `surface_context.surface`.")
    anchor_id: AnchorId
    cursor: Cursor = Field(description="Locator inside the anchor: seconds into audio, fold, page.")


class ContinuationToken(Contract):
    """A member's place on a surface, as references and posture only; never content."""

    token_id: uuid.UUID
    user_id: uuid.UUID = Field(description="Must be the member in the path.")
    scope_key: ScopeKey
    device_id: DeviceId
    surface_context: SurfaceContext
    anchor_ref: AnchorRef
    posture: PostureValue
    sensitive_categories: list[SensitiveCategoryValue] = Field(
        max_length=SENSITIVE_CATEGORIES_MAX,
        description="Each at most once; non-empty requires `cross_device_consent_id`.",
    )
    cross_device_consent_id: uuid.UUID | None = Field(
        description="The member's `cross_device` grant in force now (its consent event id)."
    )
    idempotency_key: IdempotencyKey = Field(
        description="The write's idempotency key: the same key and token answer the first "
        "answer again; an `Idempotency-Key` header, when sent, must equal it."
    )
    # One spelling per instant (UTC), so equal bodies fingerprint equally and read back as sent.
    last_updated_at: Instant = Field(description="The device's clock; never ordered by.")

    @field_validator("sensitive_categories")
    @classmethod
    def _categories_once(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise PydanticCustomError(
                "duplicate_category", "Each sensitive category may appear only once."
            )
        return value

    @model_validator(mode="after")
    def _invariants(self) -> "ContinuationToken":
        # seed 001's superRefine; `field` names the culprit for the error envelope.
        if self.anchor_ref.surface != self.surface_context.surface:
            raise PydanticCustomError(
                "anchor_surface_mismatch",
                "anchor_ref.surface must equal surface_context.surface.",
                {"field": "anchor_ref.surface"},
            )
        if self.sensitive_categories and self.cross_device_consent_id is None:
            raise PydanticCustomError(
                "cross_device_consent_required",
                "A token with sensitive categories requires a cross_device_consent_id.",
                {"field": "cross_device_consent_id"},
            )
        return self

    @property
    def surface(self) -> str:
        return self.surface_context.surface

    def wire(self) -> dict[str, Any]:
        """The token as JSON-ready data, keys in the contract's order."""
        return self.model_dump(mode="json")


READABLE_MESSAGES = {
    "string_pattern_mismatch": "Must be a reference: visible characters, no whitespace.",
    "extra_forbidden": "Unknown field: a token carries references and posture only.",
}


def token_parse(raw: Mapping[str, Any] | str | bytes) -> ContinuationToken:
    """Validate a token from its JSON text or a parsed JSON object (raises ValidationError)."""
    text = raw if isinstance(raw, str | bytes) else json.dumps(raw, allow_nan=False)
    return ContinuationToken.model_validate_json(text)


def contract_error_fields(exc: ValidationError) -> dict[str, list[str]]:
    """`{"anchor_ref.surface": ["..."]}`: cross-field errors are filed under their culprit."""
    fields: dict[str, list[str]] = {}
    for error in exc.errors(include_input=False, include_url=False):
        key = (error.get("ctx") or {}).get("field") or ".".join(str(p) for p in error["loc"])
        message = READABLE_MESSAGES.get(error["type"], error["msg"])
        fields.setdefault(key or "non_field_errors", []).append(message)
    return fields


# --- Query contracts (`iris_site.api.contracts.contract`): a query string is text, so lax --


class _Query(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_DEVICE_NOTE = (
    "The reading device: a sensitive token stays readable to the client that wrote it, on "
    "the device it wrote it from (both recorded at write)."
)


class ContinuationReadQuery(_Query):
    device_id: DeviceId | None = Field(default=None, description=_DEVICE_NOTE)


class ContinuationListQuery(ContinuationReadQuery):
    device_id: DeviceId | None = Field(
        default=None,
        description=_DEVICE_NOTE + " The device's pending notices are delivered with this read.",
    )
    limit: int = Field(default=RECENT_DEFAULT, ge=1, le=RECENT_MAX)
    surface: SurfaceValue | None = None
