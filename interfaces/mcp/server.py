"""Iris as an MCP server (the official `mcp` SDK, streamable HTTP).

An assistant runtime attaches it with a service client's bearer token, the one it uses
for the REST API. Each tool is one REST operation of the assistant surfaces, run
in-process (`interfaces.mcp.rest`): the same authentication, capabilities, input
contract, service, read gate, refusal codes and audit events as over HTTP. A refusal is
an MCP tool error (`isError`) whose structured content is the REST error envelope with
its status: `{"status": 422, "error": {"code": ..., "message": ..., "fields": {...}}}`.

The tools are generated in `interfaces.mcp.tools` from the REST operations' own input
contracts (pydantic, `iris_site.api.contracts`): each input schema is the operation's path
parameters and its contract's fields, and the arguments go to REST as given, which
refuses an unknown one or a bad value with its 400 envelope; the REST API stays the
authority on every rule.
"""

import json

import uvicorn
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from interfaces.mcp.tools import tools
from iris_site.api.exceptions import error_body
from iris_site.auth import bearer_principal
from iris_site.budgets import (
    budget_spend,
    client_ip_from,
    failed_auth_record,
    failed_auth_wait,
    principal_ident,
)

INSTRUCTIONS = (
    "Iris is the member's memory. Recall before you answer (`recall`, or `get_context_bundle` "
    "to compose a prompt), remember what the member tells you (`remember`), log each turn "
    "(`append_turn`) and keep working notes in short-term memory (`write_short_term`, "
    "`list_short_term`, `refresh_short_term`, `consolidate_short_term`). Check what you may "
    "remember where with `list_scope_policies`; hand a place between devices with "
    "`save_continuation`, `list_continuations` and `resume_continuation`. "
    "Ask the member the open questions `list_open_questions` returns. Read `read_changes` "
    "to learn which memories you were given were forgotten or corrected since, drop them "
    "from your own stores and `ack_changes`. A refusal is a tool "
    "error carrying a stable `error.code`: respect it and do not retry it unchanged."
)


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
        # Whose request is it? Only a caller's body is read here (a wrong token's is not:
        # the SDK answers 401 without reading it), and never past the REST API's limit.
        ident = (
            await sync_to_async(_principal_key, thread_sensitive=False)(token)
            if token is not None
            else None
        )
        if ident is not None:
            body = b""
            if scope["method"] == "POST":
                body = await _body_within(headers, receive)
                if body is None:
                    await _too_large()(scope, receive, send)
                    return
            # A tool call spends as its REST request; only the rest needs the caller here.
            if not _is_tool_call(body):
                wait = await sync_to_async(budget_spend, thread_sensitive=False)("read", ident)
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


def _body_limit() -> int:
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def _too_large() -> JSONResponse:
    limit = _body_limit()
    return JSONResponse(
        error_body("request_too_large", f"The request body is over the limit of {limit} bytes."),
        status_code=413,
    )


async def _body_within(headers: dict[str, bytes], receive: Receive) -> bytes | None:
    """The request's body, or None once it is over the REST API's limit (declared in
    `Content-Length`, or as it arrives): what the REST API refuses with 413
    (`RequestSizeLimitMiddleware`) is not buffered here either."""
    limit = _body_limit()
    try:
        declared = int(headers.get("content-length", b"0"))
    except ValueError:
        declared = 0
    if declared > limit:
        return None
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` again, its (already read) body first."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


MCP_PATH = "/mcp"


def build_server(*, issuer_url: str, log_level: str = "WARNING") -> MCPServer:
    """The MCP server; `issuer_url` is where service-client tokens are issued (the Iris
    site, whose console issues and revokes them). The SDK configures Python logging at
    `log_level` when nothing else has (warnings only: a quiet console)."""
    return MCPServer(
        "iris",
        log_level=log_level,
        title="Iris memory",
        instructions=INSTRUCTIONS,
        token_verifier=ServiceTokenVerifier(),
        auth=AuthSettings(issuer_url=issuer_url, resource_server_url=None),
        tools=tools(),
    )


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


def uvicorn_config(app: ASGIApp, *, host: str, port: int, log_level: str) -> uvicorn.Config:
    """How `mcp_serve` serves the app. uvicorn's own proxy headers are off: by default it
    believes `X-Forwarded-For` from a loopback peer and rewrites the client address, so a
    local caller could name a new address per request and never spend its failed-auth
    budget. The address is found by the REST rule alone (`NUM_PROXIES`,
    `iris_site.budgets.client_ip_from`), from the peer and the header as they came."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        proxy_headers=False,
        server_header=False,
    )
