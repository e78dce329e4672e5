"""Iris's MCP tools, generated from the REST operations of the assistant surfaces.

`TOOLS` names each tool's operation: its URL route name and HTTP method, whether it reads
or writes, whether it honours `Idempotency-Key`, and what the assistant reads about it.
Everything else comes from the operation itself (`surface_operations`, the URLconf):

- the input schema is the route's path parameters plus the properties of the pydantic
  contract(s) the view method validates its JSON body and query string with
  (`iris_site.api.contracts.contract`, `operation_contract`), plus `idempotency_key` for
  the writes that take the header; closed (`additionalProperties: false`). A name two of
  them share is refused when the tools are built;
- a call forwards the arguments as given to the operation, in-process
  (`interfaces.mcp.rest`): path parameters into the path, `idempotency_key` into the
  header, the query contract's fields (every argument of a GET) into the query string,
  the rest into the JSON body. REST validates them: an unknown argument or a bad value is
  its 400 envelope, returned as the tool's error (`isError`, structured
  `{"status", "error"}`); nothing is validated, dropped or restated here.

`tests/interfaces/test_mcp_contracts.py` walks the surface operations of the URLconf and
fails when one has no tool or a tool's schema is not its contract's.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.core.exceptions import ImproperlyConfigured
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import StringConverter, UUIDConverter
from django.urls.exceptions import NoReverseMatch
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ConfigDict

from interfaces.mcp.rest import FORWARDED_HEADERS, Caller, RestAnswer, rest_call
from iris_site.api.contracts import OperationContract, operation_contract
from iris_site.api.exceptions import error_body
from iris_site.idempotency import HEADER as IDEMPOTENCY_HEADER
from iris_site.models.idempotency import KEY_MAX_LENGTH
from iris_site.permissions import IsServiceClient

READS = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)

# The namespaces of the operations a surface makes for a member (and its own event feed).
SURFACE_NAMESPACES = ("members", "events")

IDEMPOTENCY_KEY = "idempotency_key"
IDEMPOTENCY_KEY_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": KEY_MAX_LENGTH,
    "description": "Your key for this write, so a retry after a lost answer is not a second "
    "write (REST's `Idempotency-Key`): the same key with the same arguments answers what the "
    "first call answered (`replayed: true`); with other arguments it is refused.",
}


@dataclass(frozen=True, slots=True)
class ToolSpec:
    route: str  # the URL route name, "namespace:name"
    method: str
    annotations: ToolAnnotations
    description: str
    idempotent: bool = False  # takes `Idempotency-Key` (`idempotency_key`)


TOOLS: dict[str, ToolSpec] = {
    "remember": ToolSpec(
        "members:memory-remember",
        "POST",
        WRITES,
        "Remember a fact about the member through Iris's consent-checked write path. "
        "`origin: user-stated` needs a `session-turn` provenance link naming a turn the member "
        "spoke (`append_turn`); a conclusion of yours is `model-inferred` (a sensitive one "
        "then waits for the member's confirmation). Stored: the entry; `outcome: "
        "kept-existing`: the conflict ladder kept what was there; `outcome: unchanged`: the "
        "scope already says this in these words (nothing stored). A profile write is a "
        "session → profile promotion: `promotion` says whether it reached the profile or was "
        "kept as session memory of its conversation (`session_id`), and why. Refusals: "
        "`sensitive-category-without-consent`, `sensitive-inference-requires-confirmation`, "
        "`paused`, `scope-suppressed`, `consumer-not-allowed-for-scope`, `origin-not-allowed`, "
        "`user-stated-needs-member-turn`, `provenance-turn-not-found`.",
        idempotent=True,
    ),
    "recall": ToolSpec(
        "members:recall",
        "POST",
        READS,
        "What you may say back about the member now, through Iris's read gate: `entries` "
        "(body, category, origin, provenance, score, freshness), the `entities` and "
        "`relationships` they state, and an `audit_envelope` counting what was withheld by "
        "reason, never naming it. `entity` narrows to one person or topic; `as_of` recalls "
        "what held then.",
    ),
    "append_turn": ToolSpec(
        "members:conversation-turns",
        "POST",
        WRITES,
        "Append one turn to the member's session log: what `session-turn` provenance of a "
        "memory points at. Off the record, nothing is kept (refused `paused`).",
        idempotent=True,
    ),
    "write_short_term": ToolSpec(
        "members:short-term",
        "POST",
        WRITES,
        "Write a row of short-term (working) memory; it expires after its TTL unless "
        "refreshed or consolidated. Answers the row just written.",
        idempotent=True,
    ),
    "list_short_term": ToolSpec(
        "members:short-term",
        "GET",
        READS,
        "The live short-term rows of one scope of the member, through the read gate "
        "(`withheld` counts the rows it kept back, by reason); `next` pages on.",
    ),
    "refresh_short_term": ToolSpec(
        "members:short-term-refresh",
        "POST",
        WRITES,
        "Keep a short-term row alive for another TTL (capped by its scope's maximum "
        "lifetime). A row you may not read is `not_found`.",
    ),
    "consolidate_short_term": ToolSpec(
        "members:short-term-consolidate",
        "POST",
        WRITES,
        "Make a short-term row long-term memory, through the consent-checked write path and "
        "the session → profile promotion rule. Already consolidated: `conflict`; refused by "
        "a policy: its reason (the row stays as it was).",
        idempotent=True,
    ),
    "get_context_bundle": ToolSpec(
        "members:context-bundle",
        "POST",
        READS,
        "Everything to compose a prompt with: the scope's short-term rows, long-term recall "
        "for the query and the episodic events about what was returned, each through the "
        "read gate (what it withholds is counted by reason). Cached for 30 seconds.",
    ),
    "list_open_questions": ToolSpec(
        "members:member-questions",
        "GET",
        READS,
        "The member's open questions to ask them, newest first: conflict questions (\"you "
        'mentioned X earlier — should I update?") and re-confirmations of stale '
        "inferences. Ask in your own words; the member answers in their memory pages.",
    ),
    "save_continuation": ToolSpec(
        "members:member-continuation-tokens",
        "PUT",
        WRITES,
        "Save where the member is on your surface (a continuation token: references and "
        "posture, never content), so another device picks them up there. Idempotent by its "
        "`idempotency_key`.",
    ),
    "list_continuations": ToolSpec(
        "members:member-continuation-tokens",
        "GET",
        READS,
        "The member's most recent continuation tokens you may read (the shell reads every "
        "surface), with the notices for your device.",
    ),
    "resume_continuation": ToolSpec(
        "members:member-continuation-token-resume",
        "GET",
        READS,
        "Where to pick the member up: the anchor and the cursor of one continuation token.",
    ),
    "list_scope_policies": ToolSpec(
        "members:member-scope-policies",
        "GET",
        READS,
        "The member's memory scopes as you may use them: which are on, their mode, and "
        "every consent or opt-out that stands in the way. Ask before writing rather than "
        "learning it from a `scope-suppressed` refusal.",
    ),
    "read_changes": ToolSpec(
        "events:change-feed",
        "GET",
        READS,
        "Your change feed: memories you were given that were since forgotten, corrected, "
        "covered by a withdrawn consent, about a forgotten person, or the member erased, "
        "oldest first (ids and times only). Drop or refresh them from your own stores, pass "
        "`next` as `after` for the next page, and acknowledge what you applied "
        "(`ack_changes`).",
    ),
    "ack_changes": ToolSpec(
        "events:change-feed-ack",
        "POST",
        WRITES,
        "Acknowledge every change up to this cursor (the `next` of the last page you "
        "applied): the member's proof shows them acknowledged. Again, or an older cursor, "
        "changes nothing.",
    ),
}


# --- the surface operations of the URLconf -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SurfaceOperation:
    route: str  # "namespace:name"
    method: str
    path_parameters: dict[str, dict]  # name → JSON schema, in the path's order
    contract: OperationContract | None


def _path_parameter(converter) -> dict:
    if isinstance(converter, UUIDConverter):
        return {"type": "string", "format": "uuid"}
    if isinstance(converter, StringConverter):
        return {"type": "string", "minLength": 1, "pattern": "^[^/]+$"}
    return {"type": "string", "pattern": f"^(?:{converter.regex})$"}


def _walk(patterns, namespace: str | None, converters: dict) -> Iterator[tuple]:
    for pattern in patterns:
        found = {**converters, **getattr(pattern.pattern, "converters", {})}
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, pattern.namespace or namespace, found)
        elif isinstance(pattern, URLPattern):
            yield namespace, pattern, found


def surface_operations() -> Iterator[SurfaceOperation]:
    """Every operation a service client may make on a member (and its event feed): each
    method of a view that `IsServiceClient` guards, under `SURFACE_NAMESPACES`."""
    for namespace, pattern, converters in _walk(get_resolver().url_patterns, None, {}):
        view = getattr(pattern.callback, "cls", None)
        if namespace not in SURFACE_NAMESPACES or view is None:
            continue
        if not any(issubclass(p, IsServiceClient) for p in view.permission_classes):
            continue
        path = {name: _path_parameter(converter) for name, converter in converters.items()}
        for method in view.http_method_names:
            handler = getattr(view, method, None)
            if handler is not None and method not in ("options", "head"):
                yield SurfaceOperation(
                    f"{namespace}:{pattern.name}",
                    method.upper(),
                    path,
                    operation_contract(handler),
                )


def input_schema(operation: SurfaceOperation, *, idempotent: bool) -> dict[str, Any]:
    """A tool's input: the path's parameters, the contracts' fields, `idempotency_key`."""
    properties = dict(operation.path_parameters)
    required = list(properties)
    defs: dict[str, Any] = {}
    contract = operation.contract or OperationContract()

    def add(name: str, schema: dict) -> None:
        if name in properties:
            raise ImproperlyConfigured(f"{operation.route} {operation.method}: two `{name}`s")
        properties[name] = schema

    for model in (contract.query, contract.body):
        if model is None:
            continue
        schema = model.model_json_schema()
        for name, field in schema["properties"].items():
            add(name, field)
        required += schema.get("required", [])
        for name, nested in schema.get("$defs", {}).items():
            if defs.setdefault(name, nested) != nested:
                raise ImproperlyConfigured(f"{operation.route}: two models named {name}")
    if idempotent:
        add(IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_SCHEMA)
    schema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    if defs:
        schema["$defs"] = defs
    return schema


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
    """REST's answer to a path it cannot take (`iris_site.api.exceptions`)."""
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


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _query_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@dataclass(frozen=True, slots=True)
class Forward:
    """Where a tool's arguments go in its operation's request."""

    operation: SurfaceOperation
    idempotent: bool

    async def __call__(self, ctx: Context, given: dict[str, Any]) -> CallToolResult:
        given = dict(given)
        operation = self.operation
        path = {name: given.pop(name) for name in operation.path_parameters if name in given}
        # A path carries text only: a number or a null is not an id (it is not made "5" or
        # "None"), nor is a key anything but a string.
        wrong = {
            name: ["Input should be a valid string"] for name, v in path.items() if not _text(v)
        }
        key = given.get(IDEMPOTENCY_KEY) if self.idempotent else None
        if key is not None and not _text(key):
            wrong[IDEMPOTENCY_KEY] = ["Input should be a valid string"]
        missing = [name for name in operation.path_parameters if name not in path]
        if missing or wrong:
            return _result(_refused(wrong | {name: ["Field required"] for name in missing}))
        try:
            url = reverse(operation.route, kwargs=path)
        except NoReverseMatch:
            # An id no route can carry (a "/" in a session id, say): refused as REST would
            # refuse the path, without naming the routes.
            return _result(_refused({name: ["Not a valid identifier."] for name in path}))
        headers = {}
        if self.idempotent and IDEMPOTENCY_KEY in given:
            key = given.pop(IDEMPOTENCY_KEY)
            if key is not None:  # null: no key, as the header left out
                headers[IDEMPOTENCY_HEADER] = key
        contract = operation.contract or OperationContract()
        in_query = set(contract.query.model_fields) if contract.query is not None else set()
        query_names = set(given) if contract.body is None else in_query & set(given)
        # A query string carries no null: a null there is the parameter left out.
        query = {n: _query_text(given.pop(n)) for n in sorted(query_names) if given[n] is not None}
        for name in query_names - set(query):
            given.pop(name)
        # Not thread-sensitive: Django's handler is thread-safe and each call opens and
        # closes its own connection (as a threaded WSGI server's requests).
        answer = await sync_to_async(rest_call, thread_sensitive=False)(
            _caller(ctx),
            operation.method,
            url,
            body=given if contract.body is not None else None,
            query=query,
            headers=headers,
        )
        return _result(answer)


class _Given(ArgModelBase):
    """What the SDK validates a call with: nothing, so that REST refuses bad arguments with
    its envelope (the SDK would ignore unknown ones and report the rest as free text)."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"given": dict(self.model_extra or {})}


def tools() -> list[Tool]:
    """The SDK's tools, one per `TOOLS` entry, built from its operation."""
    operations = {(op.route, op.method): op for op in surface_operations()}
    built = []
    for name, spec in TOOLS.items():
        operation = operations.get((spec.route, spec.method))
        if operation is None:
            raise ImproperlyConfigured(f"tool {name}: no operation {spec.method} {spec.route}")
        built.append(
            Tool(
                fn=Forward(operation, spec.idempotent).__call__,
                name=name,
                description=spec.description,
                parameters=input_schema(operation, idempotent=spec.idempotent),
                fn_metadata=FuncMetadata(arg_model=_Given),
                is_async=True,
                context_kwarg="ctx",
                annotations=spec.annotations,
            )
        )
    return built
