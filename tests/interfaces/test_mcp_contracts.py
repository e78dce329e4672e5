"""Issue 46, item 1: the MCP tools are generated from their REST operations' contracts.

- Parity: every operation a surface may make over REST (each method of an
  `IsServiceClient` view under `members:`/`events:` in the URLconf) is a tool, and each
  tool's input schema is its path's parameters plus the fields of the pydantic contract(s)
  the view method validates with (`operation_contract`), plus `idempotency_key` where the
  operation takes `Idempotency-Key`, closed; it agrees with the published OpenAPI
  operation too. The only operations without a tool refuse every surface.
- A session of the official SDK client over real HTTP calls every tool, and every tool
  refuses an unknown argument with REST's envelope; `as_of`, suppression and idempotency
  keys reach their operations as over REST."""

import re
import uuid
from datetime import timedelta

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import UUIDConverter
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from interfaces.mcp.tools import IDEMPOTENCY_KEY, TOOLS
from iris_site.api.contracts import operation_contract
from iris_site.permissions import IsServiceClient
from iris_site.services import token_issue
from memory.models import ConversationTurn
from tests.conftest import http_request
from tests.interfaces.test_mcp import COFFEE, RECALL, REMEMBER, _session, mcp, mcp_url  # noqa: F401
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)

HEADERS = {IDEMPOTENCY_KEY: "Idempotency-Key"}
BY_OPERATION = {(spec.route, spec.method): name for name, spec in TOOLS.items()}
# Surface operations with no tool: a surface never forgets on the member's behalf, so
# REST refuses these to every surface (`member-forgetting-only`, checked below).
REFUSED_TO_EVERY_SURFACE = {
    ("members:surface-notebook-close", "POST"),
    ("members:surface-notebook-detail", "DELETE"),
}
# What REST may declare of a field, which the tool's argument must declare alike.
CONSTRAINTS = (
    "type",
    "format",
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "maxItems",
    "default",
)


def _surface_operations():
    """(route, method, {path parameter: converter}, view method) from the URLconf."""

    def walk(patterns, namespace, converters):
        for pattern in patterns:
            found = {**converters, **getattr(pattern.pattern, "converters", {})}
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, pattern.namespace or namespace, found)
            elif isinstance(pattern, URLPattern):
                yield namespace, pattern, found

    for namespace, pattern, converters in walk(get_resolver().url_patterns, None, {}):
        view = getattr(pattern.callback, "cls", None)
        if namespace not in ("members", "events") or view is None:
            continue
        if not any(issubclass(p, IsServiceClient) for p in view.permission_classes):
            continue
        for method in ("get", "post", "put", "patch", "delete"):
            if hasattr(view, method):
                route = f"{namespace}:{pattern.name}"
                yield route, method.upper(), converters, getattr(view, method)


def _contract_schema(converters: dict, handler, *, idempotent: bool) -> dict:
    """What the tool of this operation must take, built from its recorded contract."""
    properties = {
        name: {"type": "string", "format": "uuid"}
        if isinstance(converter, UUIDConverter)
        else {"type": "string", "minLength": 1, "pattern": "^[^/]+$"}
        for name, converter in converters.items()
    }
    required = list(properties)
    defs = {}
    contract = operation_contract(handler)
    for model in (contract.query, contract.body):
        if model is not None:
            schema = model.model_json_schema()
            properties.update(schema["properties"])
            required += schema.get("required", [])
            defs.update(schema.get("$defs", {}))
    if idempotent and IDEMPOTENCY_KEY not in properties:  # else the body carries the key
        properties[IDEMPOTENCY_KEY] = {"type": "string"}  # its bounds: the OpenAPI test
    schema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return {**schema, "$defs": defs} if defs else schema


def _idempotent(document: dict, route: str, method: str, converters) -> bool:
    operation = _openapi_operation(document, route, method, converters)
    return any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", []))


def _openapi_operation(document: dict, route: str, method: str, converters) -> dict:
    sample = {
        name: str(uuid.uuid4()) if isinstance(converter, UUIDConverter) else "s-1"
        for name, converter in converters.items()
    }
    concrete = reverse(route, kwargs=sample)
    template = next(
        t for t in document["paths"] if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", t), concrete)
    )
    return document["paths"][template][method.lower()]


def _listed_tools(url: str) -> dict:
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))

    async def calls(session):
        return await session.list_tools()

    return {tool.name: tool for tool in mcp(url, token, calls).tools}


def test_every_surface_operation_is_a_tool_whose_schema_is_its_contract(live_server, mcp_url):  # noqa: F811
    listed = _listed_tools(mcp_url)
    document = SchemaGenerator().get_schema(request=None, public=True)
    operations = list(_surface_operations())
    assert len(operations) >= 15
    untooled, differences = [], []
    for route, method, converters, handler in operations:
        name = BY_OPERATION.get((route, method))
        if name is None:
            untooled.append((route, method))
            continue
        idempotent = _idempotent(document, route, method, converters)
        expected = _contract_schema(converters, handler, idempotent=idempotent)
        got = listed[name].input_schema
        if expected["properties"].get(IDEMPOTENCY_KEY) == {"type": "string"}:
            assert got["properties"][IDEMPOTENCY_KEY]["type"] == "string", name
            expected["properties"][IDEMPOTENCY_KEY] = got["properties"][IDEMPOTENCY_KEY]
        if got != expected:
            differences.append(f"{name} ({method} {route}): {got} != {expected}")
    assert set(untooled) == REFUSED_TO_EVERY_SURFACE
    assert differences == [], "\n".join(differences)
    # and no tool runs anything but a surface operation
    assert set(listed) == set(TOOLS) and len(BY_OPERATION) == len(TOOLS)


def test_the_operations_without_a_tool_refuse_every_surface(live_server):
    member = consenting_member()
    remember(member, body="Plans for the trip", scope={"kind": "notebook", "notebook_id": "nb-1"})
    _, surface = token_issue(owner=ServiceClientFactory(consumer="notebook"))
    for route, method in sorted(REFUSED_TO_EVERY_SURFACE):
        url = reverse(route, kwargs={"member_id": member.pk, "notebook_id": "nb-1"})
        refused = http_request(live_server.url + url, method=method, token=surface)
        assert refused.status == 403, route
        assert refused.body["error"]["code"] == "member-forgetting-only", route


def _flat(schema: dict, definitions: dict, prefix: str) -> dict:
    """A field's schema with references followed and its nullable alternative dropped:
    what one non-null value must be."""
    if "$ref" in schema:
        return _flat(definitions[schema["$ref"].removeprefix(prefix)], definitions, prefix)
    merged = {k: v for k, v in schema.items() if k not in ("allOf", "anyOf", "oneOf")}
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, []):
            inner = _flat(branch, definitions, prefix)
            if inner.get("type") == "null" or inner.get("enum") in ([None], [""]):
                continue  # null, or drf-spectacular's NullEnum / BlankEnum
            if "const" in inner:  # a discriminated union's tag: one value of an enum
                merged.setdefault("enum", []).append(inner["const"])
            for name, value in inner.items():
                merged.setdefault(name, value)
    if merged.get("enum"):
        merged["enum"] = sorted(merged["enum"])
    if merged.get("type") == "null":
        merged.pop("type")
    return merged


def _rest_inputs(document: dict, method: str, route: str, converters: dict):
    """The REST operation's inputs as {name: (required, schema)}."""
    operation = _openapi_operation(document, route, method, converters)
    components = document["components"]["schemas"]
    by_header = {header: argument for argument, header in HEADERS.items()}
    inputs = {}
    for parameter in operation.get("parameters", []):
        name = by_header.get(parameter["name"], parameter["name"])
        schema = _flat(parameter["schema"], components, "#/components/schemas/")
        inputs[name] = (bool(parameter.get("required")), schema)
    if "requestBody" in operation:
        body = _flat(
            operation["requestBody"]["content"]["application/json"]["schema"],
            components,
            "#/components/schemas/",
        )
        for name, schema in body["properties"].items():
            inputs[name] = (
                name in body.get("required", []),
                _flat(schema, components, "#/components/schemas/"),
            )
    return inputs


def _mcp_inputs(tool) -> dict:
    schema = tool.input_schema
    definitions = schema.get("$defs", {})
    return {
        # drf-spectacular publishes a route's `pk` as `id` (SCHEMA_COERCE_PATH_PK)
        "id" if name == "pk" else name: (
            name in schema.get("required", []),
            _flat(field, definitions, "#/$defs/"),
        )
        for name, field in schema["properties"].items()
    }


def _differences(name: str, rest: dict, by_mcp: dict) -> list[str]:
    differences = [
        f"{name}: {field} exists only over REST" for field in sorted(rest.keys() - by_mcp.keys())
    ]
    differences += [
        f"{name}: {field} exists only over MCP" for field in sorted(by_mcp.keys() - rest.keys())
    ]
    for field in sorted(rest.keys() & by_mcp.keys()):
        (rest_required, rest_schema), (mcp_required, mcp_schema) = rest[field], by_mcp[field]
        if rest_required != mcp_required:
            differences.append(f"{name}.{field}: required {rest_required} over REST only")
        for key in CONSTRAINTS:
            if key == "format" and rest_schema.get("type") != "string":
                continue  # OpenAPI's number formats (double, int64) are no JSON Schema's
            if key in rest_schema and rest_schema[key] != mcp_schema.get(key):
                differences.append(
                    f"{name}.{field}.{key}: REST {rest_schema[key]!r}, MCP {mcp_schema.get(key)!r}"
                )
    return differences


def test_every_tool_takes_its_rest_operations_published_input(live_server, mcp_url):  # noqa: F811
    listed = _listed_tools(mcp_url)
    document = SchemaGenerator().get_schema(request=None, public=True)
    differences = []
    for route, method, converters, _ in _surface_operations():
        name = BY_OPERATION.get((route, method))
        if name is not None:
            rest = _rest_inputs(document, method, route, converters)
            differences += _differences(name, rest, _mcp_inputs(listed[name]))
    assert differences == [], "\n".join(differences)


def test_a_value_its_contract_refuses_is_the_rest_envelope(live_server, mcp_url):  # noqa: F811
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member()
    too_big = {**RECALL, "budget": 5000}
    by_rest = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/recall/",
        method="POST",
        token=token,
        body=too_big,
    )

    async def calls(session):
        return await session.call_tool("recall", {"member_id": str(member.pk), **too_big})

    refused = mcp(mcp_url, token, calls)
    assert by_rest.status == 400 and refused.is_error
    assert refused.structured_content["status"] == 400
    assert refused.structured_content["error"]["code"] == by_rest.body["error"]["code"]
    assert list(refused.structured_content["error"]["fields"]) == ["budget"]
    assert list(by_rest.body["error"]["fields"]) == ["budget"]


def test_as_of_reaches_recall_and_the_bundle_as_over_rest(live_server, mcp_url):  # noqa: F811
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member()
    remember(member, subject="coffee", body="I take my coffee black")
    before = (timezone.now() - timedelta(days=1)).isoformat()
    base = f"{live_server.url}/api/v1/members/{member.pk}"
    rest_then = http_request(
        f"{base}/recall/", method="POST", token=token, body={**RECALL, "as_of": before}
    )
    rest_bundle = http_request(
        f"{base}/context-bundle/",
        method="POST",
        token=token,
        body={"scope_id": "s-1", "query": "coffee", "as_of": before},
    )
    member_id = str(member.pk)

    async def calls(session):
        now = await session.call_tool("recall", {"member_id": member_id, **RECALL})
        then = await session.call_tool(
            "recall", {"member_id": member_id, **RECALL, "as_of": before}
        )
        bundle = await session.call_tool(
            "get_context_bundle",
            {"member_id": member_id, "scope_id": "s-1", "query": "coffee", "as_of": before},
        )
        return now, then, bundle

    now, then, bundle = mcp(mcp_url, token, calls)
    assert [e["body"] for e in now.structured_content["entries"]] == ["I take my coffee black"]
    assert then.structured_content["entries"] == rest_then.body["entries"] == []
    assert bundle.structured_content["ltm"]["entries"] == rest_bundle.body["ltm"]["entries"] == []


def test_a_surface_sets_no_suppression_over_mcp_either(live_server, mcp_url):  # noqa: F811
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member()
    paused = {
        **REMEMBER,
        "origin": "model-inferred",
        "suppression": {"reason": "user-pause", "started_at": "2026-12-01T10:00:00Z"},
    }
    by_rest = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/memories/",
        method="POST",
        token=token,
        body=paused,
    )

    async def calls(session):
        return await session.call_tool("remember", {"member_id": str(member.pk), **paused})

    refused = mcp(mcp_url, token, calls)
    assert by_rest.status == 403
    assert refused.structured_content == {"status": 403, **by_rest.body}
    assert refused.structured_content["error"]["code"] == "suppression-reason-not-allowed"


def test_a_retried_write_with_its_idempotency_key_is_written_once(live_server, mcp_url):  # noqa: F811
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member()
    turn = {
        "member_id": str(member.pk),
        "session_id": "s-1",
        "speaker": "member",
        "text": "hello",
        "idempotency_key": "turn-1",
    }

    async def calls(session):
        first = await session.call_tool("append_turn", turn)
        again = await session.call_tool("append_turn", turn)
        other = await session.call_tool("append_turn", {**turn, "text": "something else"})
        return first, again, other

    first, again, other = mcp(mcp_url, token, calls)
    assert not first.is_error and not again.is_error, again.structured_content
    assert again.structured_content == {**first.structured_content, "replayed": True}
    assert "replayed" not in first.structured_content
    assert other.is_error and other.structured_content["status"] == 409
    assert ConversationTurn.objects.filter(member=member).count() == 1


def test_each_tool_is_named_as_its_rest_operation():
    """One name per operation on every door: the MCP tool, the OpenAPI `operationId` and
    so the Python client's function (`iris_client.api.<tag>.<operationId>`)."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    names = {
        BY_OPERATION[(route, method)]: _openapi_operation(document, route, method, converters)[
            "operationId"
        ]
        for route, method, converters, _ in _surface_operations()
        if (route, method) in BY_OPERATION
    }
    assert names and all(tool == operation for tool, operation in names.items()), names
