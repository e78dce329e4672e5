"""The memory wire contracts: pydantic v2 mirrors of seed 001's Zod schemas, snake_case.

Every model forbids unknown fields and is frozen (a revision never changes). Enum fields
accept exactly the vocabularies' `.values`; timestamps must carry a time zone.
"""

import uuid
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationInfo,
    WithJsonSchema,
    model_validator,
)

from memory.enums import (
    ConsentSource,
    EntryAuditAction,
    Lifecycle,
    MemoryCategory,
    Origin,
    ProvenanceKind,
    ScopeKind,
    SuppressionReason,
    is_sensitive_category,
)
from memory.policy.handles import ACTOR_HANDLE_PATTERN

MAX_BODY_LENGTH = 4000
MAX_SUBJECT_LENGTH = 200
MAX_NOTE_LENGTH = 500
MAX_IDENTIFIER_LENGTH = 128
MAX_PROVENANCE_REF_LENGTH = 256
MAX_ACTOR_NAME_LENGTH = 200

# Scope identifiers also exclude ':' so that `scope_key` is injective: with a colon
# allowed, scene ids "a:b" + room "c" and "a" + "b:c" would share one key.
Identifier = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_IDENTIFIER_LENGTH, pattern=r"^[^\s:]+$"),
]
# Free text must contain something visible, and no NUL (PostgreSQL text cannot hold it).
TEXT_PATTERN = r"^[^\x00]*[^\s\x00][^\x00]*$"
Body = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_BODY_LENGTH, pattern=TEXT_PATTERN)
]
Subject = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_SUBJECT_LENGTH, pattern=TEXT_PATTERN)
]
Note = Annotated[str, StringConstraints(max_length=MAX_NOTE_LENGTH, pattern=r"^[^\x00]*$")]
# A provenance ref names a record (a turn's or an entry's uuid, `short-term:<uuid>`, an
# importer's own id such as `crm-1` or `conv-26/session_1/D1:3`): an id, never prose.
# `provenance_chain` is stored in plain text (docs/encryption.md, "Where plaintext still
# exists"), so a ref with a space, or outside this ASCII id alphabet, is refused (400)
# rather than sealed: the member's words belong in the sealed body, not in a ref.
PROVENANCE_REF_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/#@+=-]*$"
ProvenanceRef = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=MAX_PROVENANCE_REF_LENGTH, pattern=PROVENANCE_REF_PATTERN
    ),
]
ActorHandle = Annotated[str, StringConstraints(pattern=ACTOR_HANDLE_PATTERN)]
Confidence = Annotated[float, Field(ge=0.0, le=1.0, strict=True, allow_inf_nan=False)]

CategoryValue = Literal[tuple(MemoryCategory.values)]
OriginValue = Literal[tuple(Origin.values)]
LifecycleValue = Literal[tuple(Lifecycle.values)]
SuppressionReasonValue = Literal[tuple(SuppressionReason.values)]
ProvenanceKindValue = Literal[tuple(ProvenanceKind.values)]
ConsentSourceValue = Literal[tuple(ConsentSource.values)]
AuditActionValue = Literal[tuple(EntryAuditAction.values)]


class Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- Scope keys --------------------------------------------------------------------------


class ProfileScope(Contract):
    kind: Literal["profile"]
    user_id: uuid.UUID


class SessionScope(Contract):
    kind: Literal["session"]
    user_id: uuid.UUID
    session_id: Identifier


class SceneScope(Contract):
    kind: Literal["scene"]
    user_id: uuid.UUID
    session_id: Identifier
    scene_id: Identifier
    room_id: Identifier


class PoseScope(Contract):
    kind: Literal["pose"]
    user_id: uuid.UUID
    session_id: Identifier
    scene_id: Identifier
    pose_id: Identifier
    avatar_id: Identifier


class NotebookScope(Contract):
    kind: Literal["notebook"]
    user_id: uuid.UUID
    notebook_id: Identifier


class CrisisScope(Contract):
    kind: Literal["crisis"]
    user_id: uuid.UUID


class OperatorCopilotScope(Contract):
    kind: Literal["operator-copilot"]
    user_id: uuid.UUID
    operator_id: uuid.UUID


class TenantScope(Contract):
    kind: Literal["tenant"]
    tenant_id: uuid.UUID
    user_id: uuid.UUID


MemoryScopeKey = Annotated[
    ProfileScope
    | SessionScope
    | SceneScope
    | PoseScope
    | NotebookScope
    | CrisisScope
    | OperatorCopilotScope
    | TenantScope,
    Field(discriminator="kind"),
]
SCOPE_KEY_ADAPTER: TypeAdapter[MemoryScopeKey] = TypeAdapter(MemoryScopeKey)

# The identifiers of each kind in the seed's order: the order of the canonical key
# (seed 001, "The canonical contract: eight scope kinds"). The one table: the read
# gate's `ScopeKey` (`memory.access.gate`) checks and prints keys by it too.
SCOPE_IDENTIFIERS: dict[str, tuple[str, ...]] = {
    ScopeKind.PROFILE: ("user_id",),
    ScopeKind.SESSION: ("user_id", "session_id"),
    ScopeKind.SCENE: ("user_id", "session_id", "scene_id", "room_id"),
    ScopeKind.POSE: ("user_id", "session_id", "scene_id", "pose_id", "avatar_id"),
    ScopeKind.NOTEBOOK: ("user_id", "notebook_id"),
    ScopeKind.CRISIS: ("user_id",),
    ScopeKind.OPERATOR_COPILOT: ("user_id", "operator_id"),
    ScopeKind.TENANT: ("tenant_id", "user_id"),
}


def _member_scope_schema() -> dict[str, Any]:
    """The scope keys' JSON schema as a request states one for the member its path names:
    inline, each kind's `user_id` optional (the member's own when left out)."""
    schema = SCOPE_KEY_ADAPTER.json_schema()
    kinds = schema.pop("$defs")
    for kind in kinds.values():
        kind["required"] = [name for name in kind["required"] if name != "user_id"]
        kind["properties"]["user_id"]["description"] = (
            "Left out: the member the path names; anyone else's id is refused."
        )
    return {
        "oneOf": [kinds[ref["$ref"].rsplit("/", 1)[1]] for ref in schema["oneOf"]],
        "discriminator": {"propertyName": "kind"},
        "description": "Where the memory lives: `kind` plus that kind's identifiers (a "
        "session needs `session_id`, a notebook `notebook_id`, ...).",
    }


# A scope key in a request about one member (the path's): `user_id` may be left out.
MemberScopeKey = Annotated[MemoryScopeKey, WithJsonSchema(_member_scope_schema())]


class MemberScoped(Contract):
    """A request about the member the path names, carrying a `scope: MemberScopeKey`.

    Validate with `context={"user_id": member_id}`: a scope without `user_id` is filled in
    from the member, and a `user_id` naming anyone else is refused."""

    @model_validator(mode="before")
    @classmethod
    def _fill_member(cls, data: Any, info: ValidationInfo) -> Any:
        member = (info.context or {}).get("user_id")
        if member is None or not isinstance(data, dict):
            return data
        scope = data.get("scope")
        if isinstance(scope, dict) and "user_id" not in scope:
            data = {**data, "scope": {**scope, "user_id": str(member)}}
        return data

    @model_validator(mode="after")
    def _own_scope(self, info: ValidationInfo) -> "MemberScoped":
        member = (info.context or {}).get("user_id")
        if member is not None and self.scope.user_id != uuid.UUID(str(member)):
            raise ValueError("scope.user_id must be the member's own id")
        return self


def scope_key(scope: MemoryScopeKey) -> str:
    """The canonical string: "session:<user_id>:<session_id>", identifiers in seed order."""
    parts = [str(getattr(scope, name)) for name in SCOPE_IDENTIFIERS[scope.kind]]
    return ":".join((scope.kind, *parts))


def parse_scope_key(key: str) -> MemoryScopeKey:
    """The inverse of `scope_key`; raises ValueError (pydantic's, for bad identifiers)."""
    kind, _, rest = key.partition(":")
    values = rest.split(":") if rest else []
    names = SCOPE_IDENTIFIERS.get(kind)
    if names is not None and len(values) != len(names):
        raise ValueError(f"a {kind} scope key has {len(names)} identifiers, not {len(values)}")
    identifiers = dict(zip(names, values, strict=True)) if names is not None else {}
    return SCOPE_KEY_ADAPTER.validate_python({"kind": kind, **identifiers})


# --- Entry parts ---------------------------------------------------------------------------


class MemorySuppression(Contract):
    """Why an entry is held back from recall; a single nullable object on the entry."""

    reason: SuppressionReasonValue
    started_at: AwareDatetime
    ends_at: AwareDatetime | None = None
    notes: Note = ""

    @model_validator(mode="after")
    def _ends_after_start(self) -> "MemorySuppression":
        if self.ends_at is not None and self.ends_at < self.started_at:
            raise ValueError("ends_at cannot be before started_at")
        return self


class MultiActor(Contract):
    """A masked mention of another person: a handle and a relationship, never a profile."""

    actor_handle: ActorHandle
    relationship_note: Note = ""
    sensitive_interaction: bool = Field(default=False, strict=True)


class ConsentEntry(Contract):
    category: CategoryValue
    granted_at: AwareDatetime
    revoked_at: AwareDatetime | None = None
    source: ConsentSourceValue

    @model_validator(mode="after")
    def _revoked_after_grant(self) -> "ConsentEntry":
        if self.revoked_at is not None and self.revoked_at < self.granted_at:
            raise ValueError("revoked_at cannot be before granted_at")
        return self


class ProvenanceLink(Contract):
    kind: ProvenanceKindValue
    ref: ProvenanceRef
    captured_at: AwareDatetime


class AuditEntry(Contract):
    """One step of the entry's own append-only audit chain (ids and names only).

    `actor` is a short token: `member`, `system`, `consumer:<name>` or `operator:<uuid>`.
    """

    at: AwareDatetime
    action: AuditActionValue
    actor: Annotated[str, StringConstraints(min_length=1, max_length=160, pattern=r"^\S+$")]
    revision_id: uuid.UUID


# --- The entry -------------------------------------------------------------------------------


class MemoryEntry(Contract):
    """One revision of a remembered fact (the seed's `MemoryEntrySchema` plus `subject`)."""

    id: uuid.UUID
    revision_id: uuid.UUID
    previous_revision_id: uuid.UUID | None = None
    user_id: uuid.UUID
    tenant_id: uuid.UUID | None = None
    scope: MemoryScopeKey
    category: CategoryValue
    subject: Subject | None = None
    body: Body
    confidence: Confidence
    origin: OriginValue
    lifecycle: LifecycleValue
    consent: tuple[ConsentEntry, ...] = ()
    provenance_chain: tuple[ProvenanceLink, ...] = ()
    expires_at: AwareDatetime | None = None
    last_referenced_at: AwareDatetime | None = None
    reference_count: int = Field(default=0, ge=0, strict=True)
    suppression: MemorySuppression | None = None
    multi_actor: MultiActor | None = None
    audit_chain: tuple[AuditEntry, ...] = ()
    created_at: AwareDatetime
    updated_at: AwareDatetime
    # When it was true, as the member's words said (issue 47); None/"" where unsaid.
    valid_from: AwareDatetime | None = None
    valid_from_precision: Literal["", "year", "month", "day"] = ""
    valid_to: AwareDatetime | None = None
    valid_to_precision: Literal["", "year", "month", "day"] = ""

    @model_validator(mode="after")
    def _consistent(self) -> "MemoryEntry":
        if self.scope.user_id != self.user_id:
            raise ValueError("scope.user_id must equal user_id")
        if isinstance(self.scope, TenantScope):
            if self.tenant_id != self.scope.tenant_id:
                raise ValueError("tenant_id must equal scope.tenant_id for tenant memory")
        elif isinstance(self.scope, ProfileScope) and self.tenant_id is not None:
            # Tenant memory never blends into consumer profile memory.
            raise ValueError("profile memory cannot carry a tenant_id")
        if self.previous_revision_id == self.revision_id:
            raise ValueError("previous_revision_id cannot be the revision itself")
        if self.updated_at < self.created_at:
            raise ValueError("updated_at cannot be before created_at")
        if is_sensitive_category(self.category):
            self._check_sensitive_consent()
        return self

    def _check_sensitive_consent(self) -> None:
        # The seed: consent is mandatory for sensitive categories. Its record says when the
        # grant ended (`revoked_at`, as the ledger stands): a live entry may show a revoked
        # one for the moment between a withdrawal or lapse and its cascade, which forgets
        # the entry; the storage gate never stores one without a grant in force.
        own = [entry for entry in self.consent if entry.category == self.category]
        if not own:
            raise ValueError(f"a {self.category} entry must carry a consent entry for it")

    @property
    def scope_key(self) -> str:
        return scope_key(self.scope)


# --- Write input ---------------------------------------------------------------------------------


class MultiActorWrite(Contract):
    """A mention in a write: the writer names the person (hashed server-side) or reuses a
    handle it got back earlier, exactly one of the two."""

    actor_name: (
        Annotated[
            str,
            # At least one letter or digit: a name is compared by its letters and digits.
            StringConstraints(
                min_length=1, max_length=MAX_ACTOR_NAME_LENGTH, pattern=r"[\p{L}\p{N}]"
            ),
        ]
        | None
    ) = None
    actor_handle: ActorHandle | None = None
    relationship_note: Note = ""
    sensitive_interaction: bool = Field(default=False, strict=True)

    @model_validator(mode="after")
    def _exactly_one_reference(self) -> "MultiActorWrite":
        if (self.actor_name is None) == (self.actor_handle is None):
            raise ValueError("give exactly one of actor_name and actor_handle")
        return self


class MemoryWriteRequest(MemberScoped):
    """The remember input, shared by the member API and the service API (`MemberScoped`:
    the scope's `user_id` may be left out). `confidence` left out means "derive it from
    the origin" (`policy.confidence_for_origin`).
    """

    scope: MemberScopeKey
    category: CategoryValue
    subject: Subject | None = None
    body: Body
    origin: OriginValue
    confidence: Confidence | None = None
    multi_actor: MultiActorWrite | None = None
    provenance: tuple[ProvenanceLink, ...] = ()
    suppression: MemorySuppression | None = None
