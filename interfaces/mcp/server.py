"""Iris as an MCP server (the official `mcp` SDK, streamable HTTP).

An assistant runtime attaches it with a service client's bearer token, the one it uses
for the REST API. Each tool is one REST operation of the assistant surfaces, run
in-process (`interfaces.mcp.rest`): the same authentication, capabilities, input
contract, service, read gate, refusal codes and audit events as over HTTP. A refusal is
an MCP tool error (`isError`) whose structured content is the REST error envelope with
its status: `{"status": 422, "error": {"code": ..., "message": ..., "fields": {...}}}`.

Argument schemas are typed from the contracts and enums the REST API validates with;
the REST API stays the authority on every rule (a value it refuses comes back as its
400 envelope).
"""

import json
import typing
import uuid
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from django.urls import NoReverseMatch, reverse
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic_core import to_jsonable_python
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hierarchy.enums import StmScopeKind
from hierarchy.stm_apis import SCOPE_ID_REGEX
from hierarchy.stm_policy import MAX_RELATED_ENTRY_IDS
from interfaces.mcp.rest import FORWARDED_HEADERS, Caller, RestAnswer, rest_call
from iris_site.api.exceptions import error_body
from iris_site.auth import bearer_principal
from iris_site.budgets import (
    budget_spend,
    client_ip_from,
    failed_auth_record,
    failed_auth_wait,
    principal_ident,
)
from memory.access.capabilities import CONTEXT_NOT_ALLOWED, SURFACE_NOT_ALLOWED
from memory.contracts import (
    Body,
    CategoryValue,
    Confidence,
    Identifier,
    MemoryScopeKey,
    MultiActorWrite,
    OriginValue,
    ProvenanceLink,
    Subject,
)
from memory.enums import RecallContext
from memory.http.changes import MAX_PAGE, PAGE
from memory.models import ConversationTurn
from memory.recall.pipeline import MAX_QUERY_CHARS

INSTRUCTIONS = (
    "Iris is the member's memory. Recall before you answer (`recall`, or `get_context_bundle` "
    "to compose a prompt), remember what the member tells you (`remember`), log each turn "
    "(`append_turn`) and keep working notes in short-term memory (`write_short_term`). "
    "Ask the member the open questions `list_open_questions` returns. Read `read_changes` "
    "to learn which memories you were given were forgotten or corrected since, drop them "
    "from your own stores and `ack_changes`. A refusal is a tool "
    "error carrying a stable `error.code`: respect it and do not retry it unchanged."
)

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
        pattern=SCOPE_ID_REGEX,
        description="The short-term scope's id (e.g. the session id of a `user_session`).",
    ),
]

READS = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)


# --- authentication --------------------------------------------------------------------------


def _principal_of(token: str):
    """`bearer_principal` outside Django's request cycle, so opened and closed as a
    request would (the tool calls themselves go through Django's handler)."""
    close_old_connections()
    try:
        return bearer_principal(token)
    finally:
        close_old_connections()


class ServiceTokenVerifier:
    """The REST API's bearer tokens (`iris_site.auth.bearer_principal`), service clients
    only: a member's or an operator's token, or a revoked one, is refused with 401."""

    async def verify_token(self, token: str) -> AccessToken | None:
        found = await sync_to_async(_principal_of, thread_sensitive=False)(token)
        if found is None or not getattr(found[0], "is_service", False):
            return None
        client = found[0]
        return AccessToken(
            token=token, client_id=str(client.pk), scopes=[], subject=client.consumer
        )


def _refused_429(seconds: float, message: str) -> JSONResponse:
    seconds = max(1, int(seconds + 0.999))
    return JSONResponse(
        error_body("rate_limited", message.format(seconds=seconds)),
        status_code=429,
        headers={"Retry-After": str(seconds)},
    )


def _bearer(headers: dict[str, bytes]) -> str | None:
    kind, _, token = headers.get("authorization", b"").decode("latin-1").partition(" ")
    if kind.lower() != "bearer":
        return None
    return token.strip() or None


def _is_tool_call(body: bytes) -> bool:
    """Does this JSON-RPC message (or batch) call a tool? A tool call spends its budget as
    the REST request it runs as; anything else (initialize, tools/list, ping) spends here."""
    try:
        message = json.loads(body) if body else None
    except ValueError:
        return False
    messages = message if isinstance(message, list) else [message]
    return any(isinstance(m, dict) and m.get("method") == "tools/call" for m in messages)


def _principal_key(token: str) -> str | None:
    found = _principal_of(token)
    return principal_ident(found[0]) if found is not None else None


class FailedAuthenticationBudget:
    """The REST API's budgets on the MCP door (`iris_site.budgets`).

    Each 401 the SDK answers (no, a wrong or a revoked token) spends from the same
    per-client-IP budget as the API's and `/metrics`' 401s, and an address that has used
    it up is refused 429 with `Retry-After` and the error envelope before its token is
    even looked at. The client address is found by the REST rule (`NUM_PROXIES`). An
    authenticated caller's requests spend its own `read` budget, the REST API's: a tool
    call as the REST request it runs as (`interfaces.mcp.rest`), everything else
    (initialize, listing tools, the event stream) here, so a caller whose budget is spent
    is refused on both doors alike."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1").lower(): value for name, value in scope["headers"]}
        forwarded = headers.get("x-forwarded-for")
        ip = client_ip_from(
            scope["client"][0] if scope.get("client") else "",
            forwarded.decode("latin-1") if forwarded else None,
        )
        wait = await sync_to_async(failed_auth_wait, thread_sensitive=False)(ip)
        if wait is not None:
            response = _refused_429(
                wait, "Too many attempts from your address; retry in {seconds} seconds."
            )
            await response(scope, receive, send)
            return
        token = _bearer(headers)
        if token is not None:
            body = b""
            more = scope["method"] == "POST"
            while more:
                message = await receive()
                body += message.get("body", b"")
                more = message.get("more_body", False)
            # A tool call spends as its REST request; only the rest needs the caller here.
            if not _is_tool_call(body):
                ident = await sync_to_async(_principal_key, thread_sensitive=False)(token)
                wait = (
                    await sync_to_async(budget_spend, thread_sensitive=False)("read", ident)
                    if ident is not None
                    else None
                )
                if wait is not None:
                    response = _refused_429(
                        wait, "Request was throttled. Expected available in {seconds} seconds."
                    )
                    await response(scope, receive, send)
                    return
            receive = _replaying(body, receive) if scope["method"] == "POST" else receive

        async def send_counting_failures(message: Message) -> None:
            # Counted before the client hears the 401, so its next try already sees it.
            if message["type"] == "http.response.start" and message["status"] == 401:
                await sync_to_async(failed_auth_record, thread_sensitive=False)(ip)
            await send(message)

        await self.app(scope, receive, send_counting_failures)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` again, its (already read) body first."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


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


def _result(answer: RestAnswer) -> CallToolResult:
    if answer.ok:
        body: dict[str, Any] = answer.body
        if "Iris-Promotion" in answer.headers:
            # What REST says in headers, said in the result: the session → profile rule.
            body = {
                **body,
                "promotion": {
                    "reason": answer.headers["Iris-Promotion"],
                    "stored_as": answer.headers.get("Iris-Stored-As"),
                },
            }
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


async def _call(
    ctx: Context,
    method: str,
    route: str,
    kwargs: dict[str, Any],
    *,
    body: dict | None = None,
    query: dict[str, str] | None = None,
) -> CallToolResult:
    try:
        path = reverse(route, kwargs=kwargs)
    except NoReverseMatch:
        # An id no route can carry (a "/" in a session id, say): refused as REST would
        # refuse the path, without naming the routes.
        return _result(
            RestAnswer(
                status=400,
                body=error_body(
                    "invalid_input",
                    "An identifier in the call is not one Iris accepts.",
                    {name: ["Not a valid identifier."] for name in kwargs},
                ),
            )
        )
    # Not thread-sensitive: Django's handler is thread-safe and each call opens and closes
    # its own connection (as a threaded WSGI server's requests), so calls run in parallel.
    call = sync_to_async(rest_call, thread_sensitive=False)
    answer = await call(_caller(ctx), method, path, body=body, query=query)
    return _result(answer)


def _given(**values: Any) -> dict[str, Any]:
    """The arguments the assistant gave, as JSON (the REST defaults apply to the rest)."""
    return {
        name: to_jsonable_python(value, exclude_none=True)
        for name, value in values.items()
        if value is not None
    }


# --- tools -------------------------------------------------------------------------------------


async def remember(
    ctx: Context,
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
    session_id: Annotated[
        Identifier | None,
        Field(
            description="The conversation it comes from: the off-the-record check, and "
            "where a profile write the promotion rule does not promote is kept. Required "
            "for a profile write that quotes no turn."
        ),
    ] = None,
) -> CallToolResult:
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
    return await _call(
        ctx,
        "POST",
        "members:memory-remember",
        {"member_id": member_id},
        body=_given(
            scope=scope,
            category=category,
            body=body,
            origin=origin,
            subject=subject,
            confidence=confidence,
            multi_actor=multi_actor,
            provenance=provenance,
        ),
        query=_given(session_id=session_id),
    )


async def recall(
    ctx: Context,
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
        Field(description="Narrow the member's consented categories (never widens)."),
    ] = None,
    tenant_id: Annotated[uuid.UUID | None, Field(description="The tenant you act in.")] = None,
    budget: Annotated[
        int | None,
        Field(ge=0, le=999, description="At most this many (never above the surface's)."),
    ] = None,
) -> CallToolResult:
    """What you may say back about the member now, through Iris's read gate.

    Returns `entries` (body, category, origin, provenance, score and, where your surface
    shows it, a rationale) and an `audit_envelope` counting what was withheld by reason,
    never naming it. The member's consent ledger decides the sensitive categories. A
    surface, context or scope kind outside your capabilities is refused
    (`surface-not-allowed`, `context-not-allowed`, `consumer-not-allowed-for-scope`).
    """
    return await _call(
        ctx,
        "POST",
        "members:recall",
        {"member_id": member_id},
        body=_given(
            surface=surface,
            scope=scope,
            query=query,
            context=context,
            crisis_frame=crisis_frame,
            safety_critical_context=safety_critical_context,
            consented_categories=consented_categories,
            tenant_id=tenant_id,
            budget=budget,
        ),
    )


async def append_turn(
    ctx: Context,
    member_id: MemberId,
    session_id: Annotated[Identifier, Field(description="The conversation's session id.")],
    speaker: Annotated[
        Literal[tuple(ConversationTurn.Speaker.values)], Field(description="Who spoke.")
    ],
    text: Annotated[str, Field(min_length=1, description="What was said.")],
    redact_pii: Annotated[
        bool,
        Field(description="Replace emails, phones, cards and addresses by tokens first."),
    ] = False,
) -> CallToolResult:
    """Append one turn to the member's session log: what `session-turn` provenance of a
    memory points at. Off the record, nothing is kept (refused `paused`)."""
    return await _call(
        ctx,
        "POST",
        "members:conversation-turns",
        {"member_id": member_id, "session_id": session_id},
        body=_given(speaker=speaker, text=text, redact_pii=redact_pii),
    )


async def write_short_term(
    ctx: Context,
    member_id: MemberId,
    scope_kind: Annotated[
        StmScopeKindValue,
        Field(description="`user_session` is session memory, the others profile memory."),
    ],
    scope_id: ScopeId,
    category: CategoryValue,
    content: Annotated[str, Field(max_length=4000, description="The working note.")],
    related_entry_ids: Annotated[
        list[uuid.UUID] | None,
        Field(max_length=MAX_RELATED_ENTRY_IDS, description="Long-term entries it relates to."),
    ] = None,
    consolidate_on_critic_promote: bool = False,
    ttl_seconds: Annotated[
        int | None, Field(ge=1, description="Left out: the scope kind's default TTL.")
    ] = None,
) -> CallToolResult:
    """Write a row of short-term (working) memory; it expires after its TTL unless
    refreshed or consolidated. Answers the row just written. A scope kind your consumer
    may not write is refused `consumer-not-allowed-for-scope`."""
    return await _call(
        ctx,
        "POST",
        "members:short-term",
        {"member_id": member_id},
        body=_given(
            scope_kind=scope_kind,
            scope_id=scope_id,
            category=category,
            content=content,
            related_entry_ids=related_entry_ids,
            consolidate_on_critic_promote=consolidate_on_critic_promote,
            ttl_seconds=ttl_seconds,
        ),
    )


async def get_context_bundle(
    ctx: Context,
    member_id: MemberId,
    scope_id: ScopeId,
    scope_kind: Annotated[StmScopeKindRead | None, Field(description="Narrow to one kind.")] = None,
    query: Query = "",
    include_episodic: bool = True,
    surface: Annotated[
        str | None,
        Field(
            pattern=r"^[a-z][a-z0-9-]{0,31}$",
            description="The budget; default your own (`assistant`, `notebook`), else `shell`.",
        ),
    ] = None,
    context: ContextValue = RecallContext.GENERAL.value,
) -> CallToolResult:
    """Everything to compose a prompt with: the scope's short-term rows, long-term recall
    for the query, and the episodic events about what was returned, each through the
    read gate (what it withholds is counted by reason: `stm_withheld`,
    `ltm.audit_envelope.suppression_counts`). Cached for 30 seconds."""
    return await _call(
        ctx,
        "POST",
        "members:context-bundle",
        {"member_id": member_id},
        body=_given(
            scope_id=scope_id,
            scope_kind=scope_kind,
            query=query,
            include_episodic=include_episodic,
            surface=surface,
            context=context,
        ),
    )


async def list_open_questions(
    ctx: Context,
    member_id: MemberId,
    context: ContextValue = RecallContext.GENERAL.value,
) -> CallToolResult:
    """The member's open questions to ask them, newest first: conflict questions ("you
    mentioned X earlier — should I update?": `entry_body` and the `proposed_body` that
    would replace it) and re-confirmations of stale inferences. Ask in your own words;
    the member answers in their memory pages. Only questions whose memory the read gate
    lets you see in this `context` are listed; the rest are counted in `withheld`."""
    return await _call(
        ctx,
        "GET",
        "members:member-questions",
        {"member_id": member_id},
        query=_given(context=context),
    )


Cursor = Annotated[
    str,
    Field(
        min_length=1,
        description="A `next` cursor from `read_changes` (opaque, yours alone: another "
        "client's is refused `invalid_input`).",
    ),
]


async def read_changes(
    ctx: Context,
    after: Annotated[
        Cursor | None, Field(description="Left out: from the first event not yet read.")
    ] = None,
    limit: Annotated[
        int | None, Field(ge=1, le=MAX_PAGE, description=f"At most this many ({PAGE} left out).")
    ] = None,
) -> CallToolResult:
    """Your change feed (`GET /api/v1/events/`): memories you were given that were since
    forgotten (`memory.forgotten`), corrected (`memory.corrected`: refresh them), covered
    by a withdrawn consent (`consent.withdrawn`), about a forgotten person
    (`person.forgotten`), or the member erased (`member.erased`), oldest first. Ids and
    times only. Drop or refresh what each event names from your own caches and stores,
    deduplicate by the event `id`, pass `next` as `after` for the next page, and
    acknowledge what you applied (`ack_changes`): the member is shown it."""
    return await _call(ctx, "GET", "events:change-feed", {}, query=_given(after=after, limit=limit))


async def ack_changes(ctx: Context, cursor: Cursor) -> CallToolResult:
    """Acknowledge every event up to this cursor (the `next` of the last page you
    applied; `POST /api/v1/events/ack/`): the member's proof shows them acknowledged.
    Idempotent: again, or an older cursor, changes nothing (`acknowledged_count: 0`)."""
    return await _call(ctx, "POST", "events:change-feed-ack", {}, body={"cursor": cursor})


TOOLS = (
    (remember, WRITES),
    (recall, READS),
    (append_turn, WRITES),
    (write_short_term, WRITES),
    (get_context_bundle, READS),
    (list_open_questions, READS),
    (read_changes, READS),
    (ack_changes, WRITES),
)


MCP_PATH = "/mcp"


def build_server(*, issuer_url: str, log_level: str = "WARNING") -> MCPServer:
    """The MCP server; `issuer_url` is where service-client tokens are issued (the Iris
    site, whose console issues and revokes them). The SDK configures Python logging at
    `log_level` when nothing else has (warnings only: a quiet console)."""
    server = MCPServer(
        "iris",
        log_level=log_level,
        title="Iris memory",
        instructions=INSTRUCTIONS,
        token_verifier=ServiceTokenVerifier(),
        auth=AuthSettings(issuer_url=issuer_url, resource_server_url=None),
    )
    for tool, annotations in TOOLS:
        server.add_tool(tool, annotations=annotations, structured_output=False)
    return server


def mcp_http_app(*, issuer_url: str, host: str, log_level: str = "WARNING") -> Starlette:
    """The ASGI app serving the MCP endpoint at `MCP_PATH` (streamable HTTP). On a
    loopback `host` the SDK also refuses other Host and Origin headers (DNS rebinding).
    Failed authentication spends the per-IP budget every door shares
    (`FailedAuthenticationBudget`)."""
    app = build_server(issuer_url=issuer_url, log_level=log_level).streamable_http_app(
        streamable_http_path=MCP_PATH, host=host
    )
    app.add_middleware(FailedAuthenticationBudget)
    return app
