"""The three data-rights payloads: pydantic v2 mirrors of the seed's
`IrisDataRightsDeletePayload`, `IrisDataRightsExportPayload` and
`IrisDataRightsAccessPayload`, snake_case, unknown fields rejected.

Seed rules: a hard delete has a zero grace window; a delete names at least one scope or
category; scene and pose memory are exported only with their include flags (which, like
every include flag, default to on: the default export is every memory the member has). Iris adds:
a soft delete has a grace window (7 days when left out, at most 30), purging the consent
ledger needs a sensitive category to purge, and session / notebook scopes likewise need
their include flags (which default to on) so a payload never contradicts itself.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from datarights.enums import DeleteMode, DeliveryChannel, ExportFormat
from memory.enums import SENSITIVE_CATEGORIES, MemoryCategory, ScopeKind

DAY_MS = 24 * 60 * 60 * 1000
DEFAULT_SOFT_GRACE_MS = 7 * DAY_MS
MAX_GRACE_MS = 30 * DAY_MS

ScopeKindValue = Literal[tuple(ScopeKind.values)]
CategoryValue = Literal[tuple(MemoryCategory.values)]

# Scope kinds an export ships only when the matching include flag is on.
EXPORT_SCOPE_FLAGS: dict[str, str] = {
    ScopeKind.SESSION: "include_session_memory",
    ScopeKind.NOTEBOOK: "include_notebooks",
    ScopeKind.SCENE: "include_scene_memory",
    ScopeKind.POSE: "include_pose_memory",
}


class Payload(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _unique_sorted(values) -> tuple:
    return tuple(sorted(set(values)))


class DeletePayload(Payload):
    mode: Literal[tuple(DeleteMode.values)]
    scopes: tuple[ScopeKindValue, ...] = ()
    categories: tuple[CategoryValue, ...] = ()
    purge_consent_ledger: bool = Field(default=False, strict=True)
    retention_grace_ms: int = Field(default=0, ge=0, le=MAX_GRACE_MS, strict=True)

    @field_validator("scopes", "categories")
    @classmethod
    def _normalise(cls, values: tuple) -> tuple:
        return _unique_sorted(values)

    @model_validator(mode="before")
    @classmethod
    def _default_grace(cls, data: Any) -> Any:
        # Left out: a hard delete has none, a soft delete the default window.
        if isinstance(data, dict) and data.get("retention_grace_ms") is None:
            data = dict(data)
            data["retention_grace_ms"] = (
                DEFAULT_SOFT_GRACE_MS if data.get("mode") == DeleteMode.SOFT else 0
            )
        return data

    @model_validator(mode="after")
    def _rules(self) -> "DeletePayload":
        if not self.scopes and not self.categories:
            raise ValueError("name at least one scope or category to delete")
        if self.mode == DeleteMode.HARD and self.retention_grace_ms != 0:
            raise ValueError("a hard delete has no grace window (retention_grace_ms must be 0)")
        if self.mode == DeleteMode.SOFT and self.retention_grace_ms == 0:
            raise ValueError("a soft delete needs a grace window (retention_grace_ms > 0)")
        if self.purge_consent_ledger and not set(self.categories) & SENSITIVE_CATEGORIES:
            raise ValueError(
                "purge_consent_ledger purges the consents of the deleted sensitive "
                "categories: name at least one"
            )
        return self

    @property
    def consent_types_to_purge(self) -> list[str]:
        if not self.purge_consent_ledger:
            return []
        return [f"category:{c}" for c in self.categories if c in SENSITIVE_CATEGORIES]


class ExportPayload(Payload):
    scopes: tuple[ScopeKindValue, ...] = ()
    format: Literal[tuple(ExportFormat.values)] = ExportFormat.JSON
    include_consents: bool = Field(default=True, strict=True)
    include_opt_outs: bool = Field(default=True, strict=True)
    include_notebooks: bool = Field(default=True, strict=True)
    include_session_memory: bool = Field(default=True, strict=True)
    # On by default like the others: the default export is every memory the member has.
    include_scene_memory: bool = Field(default=True, strict=True)
    include_pose_memory: bool = Field(default=True, strict=True)
    delivery_channel: Literal[tuple(DeliveryChannel.values)] = DeliveryChannel.DOWNLOAD
    encrypted: bool = Field(default=False, strict=True)

    @field_validator("scopes")
    @classmethod
    def _normalise(cls, values: tuple) -> tuple:
        return _unique_sorted(values)

    @model_validator(mode="after")
    def _rules(self) -> "ExportPayload":
        for kind in self.scopes:
            flag = EXPORT_SCOPE_FLAGS.get(kind)
            if flag is not None and not getattr(self, flag):
                raise ValueError(f"the {kind} scope is exported only with {flag} set")
        return self

    @property
    def scope_kinds(self) -> tuple[str, ...]:
        """The kinds this export ships: those named, or every kind its flags allow."""
        if self.scopes:
            return self.scopes
        return tuple(
            kind
            for kind in ScopeKind.values
            if kind not in EXPORT_SCOPE_FLAGS or getattr(self, EXPORT_SCOPE_FLAGS[kind])
        )


class AccessPayload(Payload):
    include_operator_actions: bool = Field(default=False, strict=True)


PAYLOADS: dict[str, type[Payload]] = {
    "delete": DeletePayload,
    "export": ExportPayload,
    "access": AccessPayload,
}


def parse_payload(kind: str, data: Any) -> Payload:
    """Validate `data` as the payload of `kind`; raises KeyError / pydantic.ValidationError."""
    return PAYLOADS[kind].model_validate(data if data is not None else {})
