"""Issue 46, item 1: the MCP tools are their REST operations' input, field for field.

Every tool, as the official SDK client lists it, takes exactly what its REST operation
takes as published (the OpenAPI document): the same names (path, query, body, and
`idempotency_key` for the `Idempotency-Key` header), the same required ones, and every
enum, bound, pattern, format and default REST declares. An argument no tool takes, or a
value its contract refuses, is REST's 400 envelope, never ignored; the fields MCP lacked
(`as_of`, `entity`, `suppression`, the idempotency key) reach their operation."""

import re
import uuid
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from interfaces.mcp.tools import DECLARED, HEADERS
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import http_request
from tests.interfaces.test_mcp import RECALL, REMEMBER, mcp, mcp_url  # noqa: F401
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)

OPERATIONS = {signature.__name__: operation for signature, operation in DECLARED}
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


# Where REST's published schema says other than REST does: the short-term write refuses
# `admin_session` (operators' rows) but its field's schema (`StmScopeKindField`) lists
# every kind. The tool says what REST does; fix the schema and this list empties.
REST_SCHEMA_FAULTS = [
    "write_short_term.scope_kind.enum: REST ['admin_session', 'agent_run', 'research_task', "
    "'user_session'], MCP ['agent_run', 'research_task', 'user_session']"
]


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


def _rest_inputs(document: dict, method: str, route: str, path: tuple[str, ...]):
    """The REST operation's inputs as {name: (required, schema)}."""
    sample = {name: str(uuid.uuid4()) if name.endswith("id") else "s-1" for name in path}
    concrete = reverse(route, kwargs={name: sample[name] for name in path})
    template = next(
        t for t in document["paths"] if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", t), concrete)
    )
    operation = document["paths"][template][method.lower()]
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
        name: (name in schema.get("required", []), _flat(field, definitions, "#/$defs/"))
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


def test_every_tool_takes_its_rest_operations_input_field_for_field(live_server, mcp_url):  # noqa: F811
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    document = SchemaGenerator().get_schema(request=None, public=True)

    async def calls(session):
        return await session.list_tools()

    listed = {tool.name: tool for tool in mcp(mcp_url, token, calls).tools}
    assert listed.keys() == OPERATIONS.keys()
    differences = []
    for name, operation in OPERATIONS.items():
        rest = _rest_inputs(document, operation.method, operation.route, operation.path)
        differences += _differences(name, rest, _mcp_inputs(listed[name]))
        assert listed[name].input_schema.get("additionalProperties") is False, name
    assert differences == REST_SCHEMA_FAULTS, "\n".join(differences)


def _minimal(member) -> dict[str, dict]:
    """A call each tool would accept for `member`."""
    member_id = str(member.pk)
    return {
        "remember": {"member_id": member_id, **REMEMBER, "origin": "model-inferred"},
        "recall": {"member_id": member_id, **RECALL},
        "append_turn": {
            "member_id": member_id,
            "session_id": "s-1",
            "speaker": "member",
            "text": "hello",
        },
        "write_short_term": {
            "member_id": member_id,
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": "a working note",
        },
        "get_context_bundle": {"member_id": member_id, "scope_id": "s-1"},
        "list_open_questions": {"member_id": member_id},
        "read_changes": {},
        "ack_changes": {"cursor": "not-a-cursor"},
    }


def test_an_unknown_argument_is_refused_by_every_tool_as_rest_refuses_one(live_server, mcp_url):  # noqa: F811
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member()
    by_rest = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/memories/",
        method="POST",
        token=token,
        body={**REMEMBER, "origin": "model-inferred", "colour": "blue"},
    )
    assert by_rest.status == 400 and "colour" in by_rest.body["error"]["fields"]
    before = AuditEvent.objects.count()

    async def calls(session):
        return {
            name: await session.call_tool(name, {**arguments, "colour": "blue"})
            for name, arguments in _minimal(member).items()
        }

    for name, refused in mcp(mcp_url, token, calls).items():
        assert refused.is_error, name
        assert refused.structured_content["status"] == 400, name
        error = refused.structured_content["error"]
        assert error["code"] == by_rest.body["error"]["code"] == "invalid", name
        assert list(error["fields"]) == ["colour"], name
    # Refused before the operation ran: nothing written, nothing audited.
    assert AuditEvent.objects.count() == before
    assert not MemoryEntry.objects.filter(member=member).exists()
    assert not ConversationTurn.objects.filter(member=member).exists()


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
    turn = {**_minimal(member)["append_turn"], "idempotency_key": "turn-1"}

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
