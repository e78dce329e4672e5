"""The MCP server, for real: uvicorn on a free port against the test database, driven
by the official MCP SDK client over streamable HTTP with a service client's token.

Every tool is a REST operation run in-process, so the test does each call both ways —
REST over `live_server`, MCP over the SDK — for two members in the same state, and
requires the same answers and the same audit events (actions and counts)."""

import asyncio
import json
import re
import socket
import threading
import time
import uuid

import pytest
import uvicorn
from django.utils import timezone
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from interfaces.mcp.server import MCP_PATH, mcp_http_app, uvicorn_config
from interfaces.mcp.tools import TOOLS
from iris_site.models import AuditEvent
from iris_site.services import token_issue, token_revoke
from memory.models import ConversationTurn, MemoryNotice
from tests.conftest import http_request
from tests.iris_site.factories import MemberFactory, ServiceClientFactory
from tests.memory.factories import consenting_member, quoting, remember

COFFEE = "I take my coffee black"

pytestmark = pytest.mark.django_db(transaction=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def mcp_url(live_server):
    """The MCP server in a thread of this process, so it reads the test database."""
    port = _free_port()
    app = mcp_http_app(issuer_url=live_server.url, host="127.0.0.1")
    # Served as `mcp_serve` serves it (its uvicorn settings), not uvicorn's defaults.
    server = uvicorn.Server(uvicorn_config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the MCP server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}{MCP_PATH}"
    server.should_exit = True
    thread.join(10)


async def _session(url: str, token: str | None, calls):
    """Connect the SDK client with `Authorization: Bearer <token>` and run `calls`."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        return await calls(client)


def mcp(url: str, token: str | None, calls):
    return asyncio.run(_session(url, token, calls))


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)?")


def _shape(value):
    """A payload with its ids, digests (of member-specific keys) and moments blanked:
    what two members' runs share."""
    if isinstance(value, dict):
        return {
            key: "<digest>" if key.endswith("_digest") else _shape(inner)
            for key, inner in value.items()
        }
    if isinstance(value, list):
        return [_shape(inner) for inner in value]
    if isinstance(value, str):
        return _MOMENT.sub("<moment>", _UUID.sub("<id>", value))
    return value


def audit_of(member) -> list[tuple[str, str, dict]]:
    return [
        (event.action, event.actor_type, _shape(event.payload))
        for event in AuditEvent.objects.filter(target_member_id=member.pk).order_by("sequence")
    ]


def _recalled(body: dict) -> dict:
    return {
        "entries": [
            {key: entry[key] for key in ("body", "category", "origin", "subject")}
            for entry in body["entries"]
        ],
        "audit_envelope": {
            key: body["audit_envelope"][key] for key in ("suppression_counts", "evaluated_count")
        },
    }


REMEMBER = {"scope": {"kind": "profile"}, "category": "preference", "body": COFFEE}
RECALL = {"surface": "assistant", "scope": {"kind": "profile"}, "query": "coffee"}
MEDICAL = {**REMEMBER, "category": "medical", "body": "I take insulin"}


def test_the_sdk_client_gets_the_same_answers_and_audit_events_as_rest(live_server, mcp_url):
    client = ServiceClientFactory(consumer="assistant")
    _, token = token_issue(owner=client)
    by_rest, by_mcp = consenting_member(), consenting_member()
    base = live_server.url + "/api/v1/members/"

    # REST: the member's turn, remember it as their word, recall, then a sensitive
    # category without consent.
    said = http_request(
        f"{base}{by_rest.pk}/sessions/s-1/turns/",
        method="POST",
        token=token,
        body={"speaker": "member", "text": COFFEE},
    )
    stated = {"origin": "user-stated", "provenance": quoting(said.body["id"])}
    rest_stored = http_request(
        f"{base}{by_rest.pk}/memories/", method="POST", token=token, body={**REMEMBER, **stated}
    )
    said_medical = http_request(
        f"{base}{by_rest.pk}/sessions/s-1/turns/",
        method="POST",
        token=token,
        body={"speaker": "member", "text": MEDICAL["body"]},
    )
    rest_recall = http_request(
        f"{base}{by_rest.pk}/recall/", method="POST", token=token, body=RECALL
    )
    stated_medical = {"origin": "user-stated", "provenance": quoting(said_medical.body["id"])}
    rest_refused = http_request(
        f"{base}{by_rest.pk}/memories/",
        method="POST",
        token=token,
        body={**MEDICAL, **stated_medical},
    )
    assert (rest_stored.status, rest_recall.status, rest_refused.status) == (201, 200, 422)

    async def calls(session):
        tools = await session.list_tools()
        member = str(by_mcp.pk)
        turn = await session.call_tool(
            "append_turn",
            {"member_id": member, "session_id": "s-1", "speaker": "member", "text": COFFEE},
        )
        stated = {"origin": "user-stated", "provenance": quoting(turn.structured_content["id"])}
        stored = await session.call_tool("remember", {"member_id": member, **REMEMBER, **stated})
        medical_turn = await session.call_tool(
            "append_turn",
            {
                "member_id": member,
                "session_id": "s-1",
                "speaker": "member",
                "text": MEDICAL["body"],
            },
        )
        stated = {
            "origin": "user-stated",
            "provenance": quoting(medical_turn.structured_content["id"]),
        }
        recalled = await session.call_tool("recall", {"member_id": member, **RECALL})
        refused = await session.call_tool("remember", {"member_id": member, **MEDICAL, **stated})
        return tools, stored, recalled, refused

    tools, stored, recalled, refused = mcp(mcp_url, token, calls)

    assert {tool.name for tool in tools.tools} == set(TOOLS)
    remember_tool = next(tool for tool in tools.tools if tool.name == "remember")
    assert "sensitive-category-without-consent" in remember_tool.description
    assert {"member_id", "scope", "category", "body", "origin"} <= set(
        remember_tool.input_schema["required"]
    )

    assert not stored.is_error
    assert stored.structured_content["body"] == rest_stored.body["body"] == COFFEE
    skipped = ("id", "revision_id", "promotion")
    assert _shape(
        {k: v for k, v in stored.structured_content.items() if k not in skipped}
    ) == _shape({k: v for k, v in rest_stored.body.items() if k not in skipped})
    # what REST says in headers, MCP says in the result: the member's words promote it
    assert (
        stored.structured_content["promotion"]
        == {
            "reason": rest_stored.headers["Iris-Promotion"],
            "stored_as": rest_stored.headers["Iris-Stored-As"],
        }
        == {"reason": "explicit-promotion", "stored_as": "profile"}
    )

    assert not recalled.is_error
    assert _recalled(recalled.structured_content) == _recalled(rest_recall.body)
    assert [e["body"] for e in recalled.structured_content["entries"]] == [COFFEE]

    assert refused.is_error
    assert refused.structured_content == {"status": 422, **rest_refused.body}
    assert refused.structured_content["error"]["code"] == "sensitive-category-without-consent"

    # The same audit events, action by action, with the same counts.
    assert audit_of(by_mcp) == audit_of(by_rest)
    assert any(action.startswith("memory.") for action, _, _ in audit_of(by_mcp))


def test_turns_short_term_and_the_bundle_go_through_their_endpoints(live_server, mcp_url):
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member()
    member_id = str(member.pk)

    async def calls(session):
        turn = await session.call_tool(
            "append_turn",
            {
                "member_id": member_id,
                "session_id": "s-1",
                "speaker": "member",
                "text": "mail me at sam@example.test",
                "redact_pii": True,
            },
        )
        row = await session.call_tool(
            "write_short_term",
            {
                "member_id": member_id,
                "scope_kind": "user_session",
                "scope_id": "s-1",
                "category": "preference",
                "content": "wants a short answer",
            },
        )
        bundle = await session.call_tool(
            "get_context_bundle", {"member_id": member_id, "scope_id": "s-1"}
        )
        nobody = await session.call_tool(
            "get_context_bundle", {"member_id": str(uuid.uuid4()), "scope_id": "s-1"}
        )
        return turn, row, bundle, nobody

    turn, row, bundle, nobody = mcp(mcp_url, token, calls)
    assert not turn.is_error, turn.structured_content
    assert "sam@example.test" not in ConversationTurn.objects.get(member=member).text
    assert not row.is_error, row.structured_content
    assert row.structured_content["content"] == "wants a short answer"
    assert not bundle.is_error, bundle.structured_content
    assert [r["content"] for r in bundle.structured_content["stm"]] == ["wants a short answer"]
    assert nobody.is_error
    assert nobody.structured_content["status"] == 404
    assert nobody.structured_content["error"]["code"] == "not_found"


def test_open_questions_come_through_the_read_gate_as_over_rest(live_server, mcp_url):
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member("category:medical")
    # The member's word, then an inference on the same key: Iris asks instead.
    remember(member, subject="coffee", body=COFFEE)
    asked = remember(member, subject="coffee", body="takes oat milk", origin="model-inferred")
    dose = remember(member, category="medical", subject="dose", body="insulin at 8").entry
    MemoryNotice.objects.create(
        member=member, kind=MemoryNotice.Kind.RECONFIRM, entry=dose, created_at=timezone.now()
    )
    url = f"{live_server.url}/api/v1/members/{member.pk}/questions/"

    async def calls(session):
        general = await session.call_tool("list_open_questions", {"member_id": str(member.pk)})
        health = await session.call_tool(
            "list_open_questions", {"member_id": str(member.pk), "context": "health"}
        )
        return general, health

    rest = http_request(url, token=token)
    listed, in_health = mcp(mcp_url, token, calls)

    assert rest.status == 200
    assert not listed.is_error, listed.structured_content
    assert listed.structured_content == rest.body
    [question] = listed.structured_content["questions"]
    assert question["id"] == str(asked.notice.pk)
    assert (question["entry_body"], question["proposed_body"]) == (COFFEE, "takes oat milk")
    # The medical question is not for a general context: withheld, counted, not named.
    assert listed.structured_content["withheld"] == {
        "sensitive-category-outside-relevant-context": 1
    }
    assert "insulin" not in json.dumps(listed.structured_content)
    assert not in_health.is_error
    assert {q["kind"] for q in in_health.structured_content["questions"]} == {
        "conflict-question",
        "reconfirm",
    }
    reads = AuditEvent.objects.filter(
        target_member_id=member.pk, action="hierarchy.questions.read"
    ).order_by("sequence")
    assert [e.payload["question_count"] for e in reads] == [1, 1, 2]


def test_a_capability_refusal_is_a_tool_error_with_the_rest_code(live_server, mcp_url):
    _, token = token_issue(owner=ServiceClientFactory(consumer="veritas"))
    member = consenting_member()

    async def calls(session):
        return await session.call_tool(
            "recall",
            {"member_id": str(member.pk), **RECALL, "surface": "shell", "context": "health"},
        )

    refused = mcp(mcp_url, token, calls)
    assert refused.is_error
    assert refused.structured_content["status"] == 403
    assert refused.structured_content["error"]["code"] == "context-not-allowed"


def test_an_identifier_no_route_carries_is_refused_without_naming_routes(live_server, mcp_url):
    """A session id with a slash cannot steer the call to another endpoint."""
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    member = consenting_member()

    async def calls(session):
        return await session.call_tool(
            "append_turn",
            {
                "member_id": str(member.pk),
                "session_id": "s-1/../../../me/memories",
                "speaker": "member",
                "text": "hello",
            },
        )

    refused = mcp(mcp_url, token, calls)
    assert refused.is_error and refused.structured_content["status"] == 400
    assert refused.structured_content["error"]["code"] == "invalid"
    assert "api/v1" not in str(refused.structured_content)
    assert not ConversationTurn.objects.filter(member=member).exists()


def _revoked_service_token() -> str:
    issued, raw = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    token_revoke(token=issued)
    return raw


@pytest.mark.parametrize("kind", ["absent", "wrong", "member", "revoked"])
def test_a_wrong_or_absent_token_is_refused(mcp_url, kind):
    token = {
        "absent": lambda: None,
        "wrong": lambda: "iris_not-a-token",
        "member": lambda: token_issue(owner=MemberFactory())[1],
        "revoked": _revoked_service_token,
    }[kind]()
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"},
        },
    }
    answer = http_request(mcp_url, method="POST", token=token, body=initialize)
    assert answer.status == 401
    headers = {name.lower(): value for name, value in answer.headers.items()}
    assert headers["www-authenticate"].startswith("Bearer")

    async def calls(session):
        return await session.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK client cannot even connect
        mcp(mcp_url, token, calls)
    assert not AuditEvent.objects.filter(actor_type="service").exists()
