"""The input contracts of the surfaces' short-term, context-bundle and open-questions
operations (`hierarchy.stm_apis`, `hierarchy.question_apis`): each validates a request's
body or query (`iris_site.api.contracts.contract`), documents it, and is what the MCP
tools take."""

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hierarchy.enums import StmScopeKind
from hierarchy.stm_policy import MAX_RELATED_ENTRY_IDS
from iris_site.api.contracts import CursorPageQuery, Instant
from memory.access.capabilities import CONTEXT_NOT_ALLOWED
from memory.contracts import MAX_SUBJECT_LENGTH, CategoryValue
from memory.enums import Origin, RecallContext
from memory.recall.pipeline import MAX_QUERY_CHARS

SCOPE_ID_REGEX = r"^[^\s:]{1,128}$"
MAX_STM_CONTENT = 4000
MAX_CONSOLIDATION_TURNS = 20

StmScopeKindValue = Literal[tuple(StmScopeKind.values)]
# `admin_session` rows are written by operator tools only.
StmWriteKindValue = Literal[
    tuple(kind for kind in StmScopeKind.values if kind != StmScopeKind.ADMIN_SESSION)
]
ContextValue = Literal[tuple(RecallContext.values)]


class Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def context_field(note: str = "") -> Any:
    return Field(
        default=RecallContext.GENERAL.value,
        description="The sensitive context the client reads in; one its capabilities "
        f"allow, else 403 `{CONTEXT_NOT_ALLOWED}`. A sensitive category surfaces only in its "
        "context." + note,
    )


def scope_id_field(**kwargs) -> Any:
    return Field(
        pattern=SCOPE_ID_REGEX,
        description="The short-term scope's id (e.g. the session id of a `user_session`).",
        **kwargs,
    )


ON_READ_PATH = " `safety` and `crisis` hold only on a recall's crisis path; here they are general."


class ShortTermReadQuery(Input):
    context: ContextValue = context_field(ON_READ_PATH)


class ShortTermListQuery(CursorPageQuery, ShortTermReadQuery):
    scope_id: str = Field(
        min_length=1, description="The scope to list (reads always name the member's scope)."
    )
    scope_kind: StmScopeKindValue | None = Field(default=None, description="Narrow to one kind.")


class ShortTermWrite(Input):
    scope_kind: StmWriteKindValue = Field(
        description="`user_session` is session memory, the others profile memory "
        "(`admin_session` rows are written by operator tools only)."
    )
    scope_id: str = scope_id_field()
    category: CategoryValue
    content: str = Field(min_length=1, max_length=MAX_STM_CONTENT, description="The working note.")
    related_entry_ids: list[uuid.UUID] = Field(
        default=[], max_length=MAX_RELATED_ENTRY_IDS, description="Long-term entries it relates to."
    )
    consolidate_on_critic_promote: bool = False
    ttl_seconds: int | None = Field(
        default=None, ge=1, description="Left out: the scope kind's default TTL."
    )


class ShortTermRefresh(Input):
    ttl_seconds: int | None = Field(
        default=None,
        ge=1,
        description="Keep it this much longer (capped by the scope's maximum lifetime); "
        "left out: the scope kind's TTL.",
    )


class ShortTermConsolidate(Input):
    explicit: bool = Field(
        default=True,
        description="An explicit consolidation. Into the profile it is the member's explicit "
        "request only when it quotes them (`origin: user-stated` with their `turns`); "
        "otherwise the fact must recur 3 times.",
    )
    scope: dict[str, Any] | None = Field(
        default=None,
        description="Target scope (kind + identifiers); default: the session for a "
        "user_session row, else the profile.",
    )
    subject: str | None = Field(default=None, min_length=1, max_length=MAX_SUBJECT_LENGTH)
    origin: Literal[tuple(Origin.values)] = Field(
        default=Origin.MODEL_INFERRED.value,
        description="Bound to the writer: a surface never asserts `user-confirmed` or "
        "`operator-copilot`, and a short-term row quotes no member turn unless `turns` name "
        "one, so `user-stated` without them is refused (403 / 422).",
    )
    confidence: float | None = Field(default=None, ge=0, le=1)
    turns: list[uuid.UUID] = Field(
        default=[],
        max_length=MAX_CONSOLIDATION_TURNS,
        description="The member's turns the row came from: `session-turn` provenance, checked "
        "against the stored turns. With a turn the member spoke, the row may be consolidated "
        "as `user-stated`.",
    )
    entry_id: uuid.UUID | None = Field(
        default=None,
        description="Refused (409 illegal-transition): entries are never rewritten in place.",
    )


class ContextBundleRequest(Input):
    scope_id: str = scope_id_field()
    scope_kind: StmScopeKindValue | None = Field(default=None, description="Narrow to one kind.")
    query: str = Field(default="", max_length=MAX_QUERY_CHARS, description="What to recall about.")
    include_episodic: bool = True
    surface: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9-]{0,31}$",
        description="The budget to use; default the client's own (`assistant`, `notebook`) "
        "where it has one, else `shell`.",
    )
    context: ContextValue = context_field()
    entity: uuid.UUID | None = Field(
        default=None,
        description="Only long-term entries about this entity of the member (an id a recall "
        "listed under `entities`); another member's, a forgotten one or none is 404.",
    )
    as_of: Instant | None = Field(
        default=None,
        description="Long-term recall of what held then (an ISO time with its zone): entries "
        "not superseded by then, relationships valid then.",
    )


class OpenQuestionsQuery(Input):
    context: ContextValue = context_field(ON_READ_PATH)
