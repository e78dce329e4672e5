"""Iris's MCP tools: each is one REST operation of the assistant surfaces, declared by its
signature and run in-process (`interfaces.mcp.rest`).

A tool is declared once, as a function with no body: its parameters are the operation's
input (the path's ids, the body's fields, the query's; `idempotency_key` is the
`Idempotency-Key` header), typed from the contracts and enums the REST API validates
with, its docstring what the assistant reads. The arguments go to the operation as the
assistant gave them, each where the operation takes it; nothing restates them by hand,
so a parameter cannot be declared and then dropped on the way.

Arguments are refused as REST refuses a body: an argument the tool does not take, or a
value its contract refuses, is the REST API's 400 envelope
(`{"status": 400, "error": {"code": "invalid", "message": ..., "fields": {...}}}`),
never ignored; the REST API then stays the authority on every rule.
`tests/interfaces/test_mcp_contracts.py` checks every tool against its REST operation
as published (the OpenAPI document): the same fields, the same required ones, the same
enums, bounds and defaults.
"""

import json
import typing
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from django.urls import NoReverseMatch, reverse
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, create_model

from hierarchy.enums import StmScopeKind
from hierarchy.stm_apis import SCOPE_ID_REGEX
from hierarchy.stm_policy import MAX_RELATED_ENTRY_IDS
from interfaces.mcp.rest import FORWARDED_HEADERS, Caller, RestAnswer, rest_call
from iris_site.api.exceptions import error_body, pydantic_fields
from iris_site.idempotency import HEADER as IDEMPOTENCY_HEADER
from memory.access.capabilities import CONTEXT_NOT_ALLOWED, SURFACE_NOT_ALLOWED
from memory.contracts import (
    Body,
    CategoryValue,
    Confidence,
    Identifier,
    MemoryScopeKey,
    MemorySuppression,
    MultiActorWrite,
    OriginValue,
    ProvenanceLink,
    Subject,
)
from memory.enums import RecallContext
from memory.http.changes import MAX_PAGE, PAGE
from memory.http.surfaces import MAX_TURN_LENGTH
from memory.models import ConversationTurn
from memory.recall.pipeline import MAX_QUERY_CHARS

# --- argument types, from the contracts ----------------------------------------------------


def _scope_reference(contract: type[BaseModel]) -> type[BaseModel]:
    """A scope contract without `user_id`: the member comes from `member_id`."""
    fields = {
        name: (info.annotation, info)
        for name, info in contract.model_fields.items()
        if name != "user_id"
    }
    return create_model(
        contract.__name__.removesuffix("Scope") + "ScopeReference",
        __config__=ConfigDict(extra="forbid"),
        **fields,
    )


_SCOPE_CONTRACTS = typing.get_args(typing.get_args(MemoryScopeKey)[0])
ScopeReference = Annotated[
    typing.Union[tuple(_scope_reference(contract) for contract in _SCOPE_CONTRACTS)],  # noqa: UP007
    Field(
        discriminator="kind",
        description="Where the memory lives: `kind` plus that kind's identifiers (a session "
        "needs `session_id`, a notebook `notebook_id`, ...). The member is `member_id`.",
    ),
]

MemberId = Annotated[uuid.UUID, Field(description="The member's id (a UUID).")]
Surface = Annotated[
    str,
    Field(
        min_length=1,
        pattern=r"^[a-z][a-z0-9-]{0,31}$",
        description="The budget to recall under: a surface your consumer may use "
        f"(`assistant`, `shell`, `notebook`, ...); another is refused `{SURFACE_NOT_ALLOWED}`.",
    ),
]
ContextValue = Annotated[
    Literal[tuple(RecallContext.values)],
    Field(
        description="The sensitive context you are in; one your consumer may claim, else "
        f"refused `{CONTEXT_NOT_ALLOWED}`. A sensitive category surfaces only in its context.",
    ),
]
Query = Annotated[str, Field(max_length=MAX_QUERY_CHARS, description="What to recall about.")]
StmScopeKindValue = Literal[
    tuple(kind for kind in StmScopeKind.values if kind != StmScopeKind.ADMIN_SESSION)
]
StmScopeKindRead = Literal[tuple(StmScopeKind.values)]
ScopeId = Annotated[
    str,
    Field(
        min_length=1,
        pattern=SCOPE_ID_REGEX,
        description="The short-term scope's id (e.g. the session id of a `user_session`).",
    ),
]

IdempotencyKey = Annotated[
    str | None,
    Field(
        description="Your key for this write, so a retry after a lost answer is not a second "
        "write (REST's `Idempotency-Key`): the same key with the same arguments answers what "
        "the first call answered (`replayed: true`); with other arguments it is refused.",
    ),
]
AsOf = Annotated[
    AwareDatetime | None,
    Field(
        description="Recall what held then (an ISO time with its zone): entries not "
        "superseded by then, relationships valid then. Today's consent and pauses apply.",
    ),
]
EntityId = Annotated[
    uuid.UUID | None,
    Field(
        description="Only the memory about this person or topic (an id a recall listed under "
        "`entities`); another member's, a forgotten one or none is refused `not_found`.",
    ),
]

READS = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)


# --- the REST operation a tool is --------------------------------------------------------------

# Arguments carried in a header rather than in the body or the query.
HEADERS = {"idempotency_key": IDEMPOTENCY_HEADER}


@dataclass(frozen=True, slots=True)
class Operation:
    """The REST operation a tool runs: its method and route name, the arguments that are
    the route's path parameters, and (for a POST) those it takes in the query string. A GET
    takes every other argument in its query; a POST in its JSON body."""

    method: Literal["GET", "POST"]
    route: str
    annotations: ToolAnnotations
    path: tuple[str, ...] = ("member_id",)
    query: tuple[str, ...] = ()

    def request(self, arguments: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The arguments the assistant gave, as JSON, split where the operation takes them."""
        parts: dict[str, dict[str, Any]] = {"path": {}, "query": {}, "headers": {}, "body": {}}
        for name, value in arguments.items():
            if name in self.path:
                parts["path"][name] = value
            elif name in HEADERS:
                parts["headers"][HEADERS[name]] = value
            elif self.method == "GET" or name in self.query:
                parts["query"][name] = str(value)
            else:
                parts["body"][name] = value
        return parts


DECLARED: list[tuple[Callable[..., None], Operation]] = []


def operation(
    method: Literal["GET", "POST"],
    route: str,
    *,
    annotations: ToolAnnotations,
    path: tuple[str, ...] = ("member_id",),
    query: tuple[str, ...] = (),
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Declare a tool: the decorated function's signature and docstring, run as this
    REST operation."""

    def declare(signature: Callable[..., None]) -> Callable[..., None]:
        DECLARED.append((signature, Operation(method, route, annotations, path, query)))
        return signature

    return declare


# --- running a tool ----------------------------------------------------------------------------


def _caller(ctx: Context) -> Caller:
    access = get_access_token()
    if access is None:  # the SDK's RequireAuthMiddleware lets no such request through
        raise PermissionError("unauthenticated MCP request")
    request = ctx.request_context.request
    headers = {name: request.headers[name] for name in FORWARDED_HEADERS if name in request.headers}
    return Caller(
        token=access.token,
        client_host=request.client.host if request.client else "",
        scheme=request.url.scheme,
        headers=headers,
    )


def _refused(fields: dict[str, list[str]]) -> RestAnswer:
    """REST's answer to input it cannot take (`iris_site.api.exceptions`)."""
    return RestAnswer(status=400, body=error_body("invalid", "The request is invalid.", fields))


def _result(answer: RestAnswer) -> CallToolResult:
    if answer.ok:
        body: dict[str, Any] = answer.body
        # What REST says in headers, said in the result.
        if "Iris-Promotion" in answer.headers:  # the session → profile rule
            body = {
                **body,
                "promotion": {
                    "reason": answer.headers["Iris-Promotion"],
                    "stored_as": answer.headers.get("Iris-Stored-As"),
                },
            }
        if answer.replayed:
            body = {**body, "replayed": True}
    else:
        error = answer.body.get("error") or {
            "code": f"http-{answer.status}",
            "message": "Iris could not complete the request.",
            "fields": {},
        }
        body = {"status": answer.status, "error": error}
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body))],
        structured_content=body,
        is_error=not answer.ok,
    )


async def _run(ctx: Context, operation: Operation, arguments: dict[str, Any]) -> CallToolResult:
    parts = operation.request(arguments)
    try:
        path = reverse(operation.route, kwargs=parts["path"])
    except NoReverseMatch:
        # An id no route can carry (a "/" in a session id, say): refused as REST would
        # refuse the path, without naming the routes.
        return _result(_refused({name: ["Not a valid identifier."] for name in parts["path"]}))
    # Not thread-sensitive: Django's handler is thread-safe and each call opens and closes
    # its own connection (as a threaded WSGI server's requests), so calls run in parallel.
    call = sync_to_async(rest_call, thread_sensitive=False)
    answer = await call(
        _caller(ctx),
        operation.method,
        path,
        body=parts["body"] if operation.method == "POST" else None,
        query=parts["query"],
        headers=parts["headers"],
    )
    return _result(answer)


class _Given(ArgModelBase):
    """What the SDK validates a call with: nothing, so that the tool refuses bad arguments
    itself, with REST's envelope (the SDK ignores unknown ones and reports the rest as
    free text)."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"given": dict(self.model_extra or {})}


def tool(signature: Callable[..., None], operation: Operation) -> Tool:
    """The SDK's tool for a declaration: its input schema is the signature's, closed to
    other arguments; a call validates against it and runs the operation."""
    declared = Tool.from_function(signature, structured_output=False)
    arguments_model = type(
        f"{signature.__name__}Arguments",
        (declared.fn_metadata.arg_model,),
        {"__module__": __name__, "model_config": ConfigDict(extra="forbid")},
    )

    async def run(ctx: Context, given: dict[str, Any]) -> CallToolResult:
        try:
            arguments = arguments_model.model_validate(declared.fn_metadata.pre_parse_json(given))
        except ValidationError as exc:
            return _result(_refused(pydantic_fields(exc)))
        return await _run(ctx, operation, arguments.model_dump(mode="json", exclude_unset=True))

    return Tool(
        fn=run,
        name=declared.name,
        description=declared.description,
        parameters=arguments_model.model_json_schema(by_alias=True),
        fn_metadata=FuncMetadata(arg_model=_Given),
        is_async=True,
        context_kwarg="ctx",
        annotations=operation.annotations,
    )


def tools() -> list[Tool]:
    return [tool(signature, operation) for signature, operation in DECLARED]


# --- the tools ---------------------------------------------------------------------------------


@operation("POST", "members:memory-remember", annotations=WRITES, query=("session_id",))
def remember(
    member_id: MemberId,
    scope: ScopeReference,
    category: Annotated[CategoryValue, Field(description="What the memory is about.")],
    body: Annotated[Body, Field(description="The fact, in the member's terms.")],
    origin: Annotated[
        OriginValue,
        Field(
            description="`user-stated` when the member said it, with a `session-turn` "
            "provenance link naming the turn they said it in; `model-inferred` when you "
            "concluded it (a sensitive inference then waits for the member's confirmation). "
            "`user-confirmed` and `operator-copilot` are never yours to assert."
        ),
    ],
    subject: Annotated[Subject | None, Field(description="What it is about, briefly.")] = None,
    confidence: Annotated[
        Confidence | None, Field(description="Left out: derived from the origin.")
    ] = None,
    multi_actor: Annotated[
        MultiActorWrite | None, Field(description="Another person the memory mentions.")
    ] = None,
    provenance: Annotated[
        list[ProvenanceLink] | None, Field(description="Where it came from (e.g. a turn).")
    ] = None,
    suppression: Annotated[
        MemorySuppression | None,
        Field(
            description="Never yours to set: only the member pauses a memory and only a "
            "tenant's operator quarantines one (refused `suppression-reason-not-allowed`)."
        ),
    ] = None,
    session_id: Annotated[
        Identifier | None,
        Field(
            description="The conversation it comes from: the off-the-record check, and "
            "where a profile write the promotion rule does not promote is kept. Required "
            "for a profile write that quotes no turn."
        ),
    ] = None,
    idempotency_key: IdempotencyKey = None,
) -> None:
    """Remember a fact about the member through Iris's consent-checked write path.

    Stored: the entry (possibly superseding an older fact). `outcome: kept-existing`: the
    conflict ladder kept what was there (a notice asks the member when their own word
    was at stake). Refusals: `sensitive-category-without-consent` (the member has not
    consented to that category), `sensitive-inference-requires-confirmation`, `paused`
    (off the record), `scope-suppressed`, `consumer-not-allowed-for-scope` when your
    consumer may not write that scope kind, `origin-not-allowed`,
    `user-stated-needs-member-turn` and `provenance-turn-not-found`. A profile write is a
    session → profile promotion: `promotion` says whether it reached the profile or was
    kept as session memory of its conversation, and why.
    """


@operation("POST", "members:recall", annotations=READS)
def recall(
    member_id: MemberId,
    surface: Surface,
    scope: ScopeReference,
    query: Query = "",
    context: ContextValue = RecallContext.GENERAL.value,
    crisis_frame: Annotated[
        bool, Field(description="In a crisis: only safety memory comes back.")
    ] = False,
    safety_critical_context: bool = False,
    consented_categories: Annotated[
        list[CategoryValue] | None,
        Field(max_length=64, description="Narrow the member's consented categories."),
    ] = None,
    tenant_id: Annotated[uuid.UUID | None, Field(description="The tenant you act in.")] = None,
    budget: Annotated[
        int | None,
        Field(ge=0, le=999, description="At most this many (never above the surface's)."),
    ] = None,
    entity: EntityId = None,
    as_of: AsOf = None,
) -> None:
    """What you may say back about the member now, through Iris's read gate.

    Returns `entries` (body, category, origin, provenance, score and, where your surface
    shows it, a rationale), the `entities` and `relationships` they state, and an
    `audit_envelope` counting what was withheld by reason, never naming it. The member's
    consent ledger decides the sensitive categories. A surface, context or scope kind
    outside your capabilities is refused (`surface-not-allowed`, `context-not-allowed`,
    `consumer-not-allowed-for-scope`).
    """


@operation(
    "POST", "members:conversation-turns", annotations=WRITES, path=("member_id", "session_id")
)
def append_turn(
    member_id: MemberId,
    session_id: Annotated[Identifier, Field(description="The conversation's session id.")],
    speaker: Annotated[
        Literal[tuple(ConversationTurn.Speaker.values)], Field(description="Who spoke.")
    ],
    text: Annotated[
        str, Field(min_length=1, max_length=MAX_TURN_LENGTH, description="What was said.")
    ],
    redact_pii: Annotated[
        bool,
        Field(description="Replace emails, phones, cards and addresses by tokens first."),
    ] = False,
    idempotency_key: IdempotencyKey = None,
) -> None:
    """Append one turn to the member's session log: what `session-turn` provenance of a
    memory points at. Off the record, nothing is kept (refused `paused`)."""


@operation("POST", "members:short-term", annotations=WRITES)
def write_short_term(
    member_id: MemberId,
    scope_kind: Annotated[
        StmScopeKindValue,
        Field(description="`user_session` is session memory, the others profile memory."),
    ],
    scope_id: ScopeId,
    category: CategoryValue,
    content: Annotated[str, Field(min_length=1, max_length=4000, description="The working note.")],
    related_entry_ids: Annotated[
        list[uuid.UUID] | None,
        Field(max_length=MAX_RELATED_ENTRY_IDS, description="Long-term entries it relates to."),
    ] = None,
    consolidate_on_critic_promote: bool = False,
    ttl_seconds: Annotated[
        int | None, Field(ge=1, description="Left out: the scope kind's default TTL.")
    ] = None,
    idempotency_key: IdempotencyKey = None,
) -> None:
    """Write a row of short-term (working) memory; it expires after its TTL unless
    refreshed or consolidated. Answers the row just written. A scope kind your consumer
    may not write is refused `consumer-not-allowed-for-scope`."""


@operation("POST", "members:context-bundle", annotations=READS)
def get_context_bundle(
    member_id: MemberId,
    scope_id: ScopeId,
    scope_kind: Annotated[StmScopeKindRead | None, Field(description="Narrow to one kind.")] = None,
    query: Query = "",
    include_episodic: bool = True,
    surface: Annotated[
        str | None,
        Field(
            min_length=1,
            pattern=r"^[a-z][a-z0-9-]{0,31}$",
            description="The budget; default your own (`assistant`, `notebook`), else `shell`.",
        ),
    ] = None,
    context: ContextValue = RecallContext.GENERAL.value,
    entity: EntityId = None,
    as_of: AsOf = None,
) -> None:
    """Everything to compose a prompt with: the scope's short-term rows, long-term recall
    for the query, and the episodic events about what was returned, each through the
    read gate (what it withholds is counted by reason: `stm_withheld`,
    `ltm.audit_envelope.suppression_counts`). Cached for 30 seconds."""


@operation("GET", "members:member-questions", annotations=READS)
def list_open_questions(
    member_id: MemberId,
    context: ContextValue = RecallContext.GENERAL.value,
) -> None:
    """The member's open questions to ask them, newest first: conflict questions ("you
    mentioned X earlier — should I update?": `entry_body` and the `proposed_body` that
    would replace it) and re-confirmations of stale inferences. Ask in your own words;
    the member answers in their memory pages. Only questions whose memory the read gate
    lets you see in this `context` are listed; the rest are counted in `withheld`."""


Cursor = Annotated[
    str,
    Field(
        min_length=1,
        description="A `next` cursor from `read_changes` (opaque, yours alone: another "
        "client's is refused `invalid`).",
    ),
]


@operation("GET", "events:change-feed", annotations=READS, path=())
def read_changes(
    after: Annotated[
        Cursor | None, Field(description="Left out: from the first event not yet read.")
    ] = None,
    limit: Annotated[
        int | None, Field(ge=1, le=MAX_PAGE, description=f"At most this many ({PAGE} left out).")
    ] = None,
) -> None:
    """Your change feed (`GET /api/v1/events/`): memories you were given that were since
    forgotten (`memory.forgotten`), corrected (`memory.corrected`: refresh them), covered
    by a withdrawn consent (`consent.withdrawn`), about a forgotten person
    (`person.forgotten`), or the member erased (`member.erased`), oldest first. Ids and
    times only. Drop or refresh what each event names from your own caches and stores,
    deduplicate by the event `id`, pass `next` as `after` for the next page, and
    acknowledge what you applied (`ack_changes`): the member is shown it."""


@operation("POST", "events:change-feed-ack", annotations=WRITES, path=())
def ack_changes(cursor: Cursor) -> None:
    """Acknowledge every event up to this cursor (the `next` of the last page you
    applied; `POST /api/v1/events/ack/`): the member's proof shows them acknowledged.
    Idempotent: again, or an older cursor, changes nothing (`acknowledged_count: 0`)."""
