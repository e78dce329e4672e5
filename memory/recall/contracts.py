"""The recall operation's input contract (`memory.recall.apis.RecallApi`): it validates
the request, documents it, and is what the MCP `recall` tool takes."""

import uuid
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from iris_site.api.contracts import Instant
from memory.access.capabilities import CONTEXT_NOT_ALLOWED, KIND_NOT_ALLOWED, SURFACE_NOT_ALLOWED
from memory.contracts import MemberScoped, MemberScopeKey
from memory.enums import RecallContext
from memory.recall.pipeline import MAX_QUERY_CHARS

SURFACE_PATTERN = r"^[a-z][a-z0-9-]{0,31}$"


class RecallRequest(MemberScoped):
    surface: str = Field(
        pattern=SURFACE_PATTERN,
        description="The budget to recall under: one of the surfaces the calling client's "
        f"consumer may use (`assistant`, `shell`, `notebook`, ...); any other is 403 "
        f"`{SURFACE_NOT_ALLOWED}`, never silently changed, and no client may use `admin`.",
    )
    scope: MemberScopeKey = Field(
        description="The scope to recall: kind plus its identifiers (`user_id` left out: "
        f"the member). A kind the client may not read is 403 `{KIND_NOT_ALLOWED}`."
    )
    query: str = Field(default="", max_length=MAX_QUERY_CHARS, description="What to recall about.")
    context: Literal[tuple(RecallContext.values)] = Field(
        default=RecallContext.GENERAL.value,
        description="The sensitive context the recall is in; one the client's consumer may "
        f"claim, else 403 `{CONTEXT_NOT_ALLOWED}`. The safety and crisis contexts hold only "
        "with `crisis_frame` and `safety_critical_context` both true (and then only safety "
        "memory surfaces); otherwise the recall is judged as general.",
    )
    crisis_frame: bool = Field(default=False, description="In a crisis frame.")
    safety_critical_context: bool = False
    consented_categories: list[Annotated[str, StringConstraints(max_length=32)]] | None = Field(
        default=None,
        max_length=64,
        description="Narrow the member's consented categories (never widen them).",
    )
    tenant_id: uuid.UUID | None = Field(default=None, description="The tenant you act in.")
    budget: int | None = Field(
        default=None, ge=0, le=999, description="At most this many (never above the surface's)."
    )
    entity: uuid.UUID | None = Field(
        default=None,
        description="Only the entries about this entity of the member (an id a recall listed "
        "under `entities`); another member's, a forgotten one or none is 404.",
    )
    as_of: Instant | None = Field(
        default=None,
        description="Recall what held then (an ISO time with its zone): entries created by "
        "then and not superseded by then, relationships valid then. Today's consent, pauses "
        "and settings apply.",
    )
