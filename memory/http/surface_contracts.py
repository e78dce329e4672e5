"""The input contracts of the surfaces' memory operations (`memory.http.surfaces`,
`memory.http.scopes`, `memory.http.changes`) beside the write contract itself
(`memory.contracts.MemoryWriteRequest`): each validates a request's body or query
(`iris_site.api.contracts.contract`), documents it, and is what the MCP tools take."""

import uuid
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from memory.contracts import TEXT_PATTERN, Identifier
from memory.models import ConversationTurn

MAX_TURN_LENGTH = 8000
PAGE = 100
MAX_PAGE = 500


class Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RememberQuery(Input):
    session_id: Identifier | None = Field(
        default=None,
        description="The conversation the write comes from: checked against off the record, "
        "and where a profile write that is not promoted is kept. Required for profile writes "
        "that quote no turn.",
    )


class TurnAppend(Input):
    speaker: Literal[tuple(ConversationTurn.Speaker.values)] = Field(description="Who spoke.")
    text: Annotated[
        str, StringConstraints(min_length=1, max_length=MAX_TURN_LENGTH, pattern=TEXT_PATTERN)
    ] = Field(description="What was said: visible text, no NUL characters.")
    redact_pii: bool = Field(
        default=False,
        description="Replace emails, phones, cards and addresses by tokens before storage.",
    )


class ScopePoliciesQuery(Input):
    tenant_id: uuid.UUID | None = Field(
        default=None,
        description="The tenant the surface serves the member in; a member outside it is a "
        "404, as on the other member endpoints.",
    )


Cursor = Annotated[str, StringConstraints(min_length=1)]


class ChangeFeedQuery(Input):
    after: Cursor | None = Field(
        default=None,
        description="A `next` cursor (opaque, this client's alone: another's is 400 "
        "`invalid`); left out: from the first event.",
    )
    limit: int = Field(default=PAGE, ge=1, le=MAX_PAGE, description="At most this many.")


class ChangeFeedAck(Input):
    cursor: Cursor = Field(description="The `next` of the last page applied.")
