"""Issue 46 under attack: the MCP tools generated from the REST contracts, their door
(the MCP server's budgets), the typed client, per-database checkpoints, the demo's
lasting tokens and the one-fact dedupe — as a hostile assistant surface, a curious
operator, a retrying client and a racing second request would try them.

Real over mock: the MCP server in uvicorn driven by the official SDK client over HTTP,
the REST API on `live_server`."""

import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
import uvicorn
from pydantic import TypeAdapter, ValidationError
from rest_framework.settings import api_settings

from iris_site.api.contracts import Instant
from iris_site.services import token_issue
from memory.models import ConversationTurn
from tests.conftest import bearer_client, http_request
from tests.interfaces.test_mcp import mcp, mcp_url  # noqa: F401
from tests.interfaces.test_mcp_budgets import INITIALIZE, LOOPBACK, spend_failures
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db(transaction=True)


Instants = TypeAdapter(Instant)


def _assistant_token() -> str:
    return token_issue(owner=ServiceClientFactory(consumer="assistant"))[1]


def _calls(*calls):
    async def run(session):
        return [await session.call_tool(name, arguments) for name, arguments in calls]

    return run


# --- path parameters: what the tool is given is what REST's path carries -----------------


@pytest.mark.parametrize("session_id", ["a?b", "a#b", "caf\u00e9", "a%2Fb", "a%3Fb", "..", "~x@y"])
def test_a_session_id_reaches_rest_as_given_not_percent_encoded(live_server, mcp_url, session_id):  # noqa: F811
    """An MCP tool's path parameter is the id REST's path carries (decoded, as a server
    hands PATH_INFO to Django): `a?b` over MCP is the session `a?b` a REST client names as
    `a%3Fb`, not a session `a%3Fb` of its own — one conversation whichever door."""
    token, member = _assistant_token(), consenting_member()
    turn = {"member_id": str(member.pk), "session_id": session_id, "speaker": "member"}
    (said,) = mcp(mcp_url, token, _calls(("append_turn", {**turn, "text": "by MCP"})))
    assert not said.is_error, said.structured_content
    assert said.structured_content["session_id"] == session_id
    quoted = urllib.parse.quote(session_id, safe="")
    by_rest = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/sessions/{quoted}/turns/",
        method="POST",
        token=token,
        body={"speaker": "member", "text": "by REST"},
    )
    assert by_rest.status == 201, by_rest.body
    assert by_rest.body["session_id"] == session_id
    assert by_rest.body["sequence"] == 2  # the same conversation
    assert set(
        ConversationTurn.objects.filter(member=member).values_list("session_id", flat=True)
    ) == {session_id}


@pytest.mark.parametrize(
    "arguments",
    [
        {"session_id": 5},
        {"session_id": None},
        {"session_id": True},
        {"session_id": ["s-1"]},
        {"session_id": "s-1", "idempotency_key": 5},
        {"session_id": "s-1", "idempotency_key": {"k": "v"}},
        {"session_id": "a\x00b"},
    ],
)
def test_a_path_parameter_or_key_of_the_wrong_type_is_refused_not_coerced(
    live_server,
    mcp_url,  # noqa: F811
    arguments,
):
    """`session_id: 5` was the session "5", `null` the session "None", `idempotency_key: 5`
    the key "5": each is a 400 envelope now, and nothing is written."""
    token, member = _assistant_token(), consenting_member()
    turn = {"member_id": str(member.pk), "speaker": "member", "text": "hello", **arguments}
    (refused,) = mcp(mcp_url, token, _calls(("append_turn", turn)))
    assert refused.is_error
    assert refused.structured_content["status"] == 400, refused.structured_content
    assert refused.structured_content["error"]["code"] in ("invalid", "malformed_request")
    assert not ConversationTurn.objects.filter(member=member).exists()


# --- the MCP door's body: never buffered for a stranger, never past the REST limit -------


def _raw_post(url: str, token: str, *, declared: int, sent: bytes) -> tuple[int, dict]:
    """A POST that declares `declared` bytes of body and sends only `sent`, then waits for
    an answer: a server that buffers the whole body before answering never answers."""
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as conn:
        head = (
            f"POST {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\n"
            f"Content-Length: {declared}\r\n\r\n"
        )
        conn.sendall(head.encode() + sent)
        answer = b""
        try:
            while not _complete(answer):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except TimeoutError:
            return 0, {}
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, json.loads(body) if body.startswith(b"{") else {}


def _complete(answer: bytes) -> bool:
    head, found, body = answer.partition(b"\r\n\r\n")
    if not found:
        return False
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return True


def test_a_wrong_token_is_answered_401_before_its_body_is_read(mcp_url):  # noqa: F811
    """Any `Bearer x` had its POST body read in full (into memory, before the token was
    looked at) to see whether it was a tool call: a stranger could make the MCP server
    hold gigabytes. A wrong token is answered 401 without its body."""
    status, _ = _raw_post(mcp_url, "iris_not-a-token", declared=10**10, sent=b'{"jsonrpc":')
    assert status == 401


def test_a_callers_body_over_the_rest_limit_is_refused_413_with_the_envelope(live_server, mcp_url):  # noqa: F811
    from django.conf import settings

    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    token = _assistant_token()
    status, body = _raw_post(mcp_url, token, declared=limit + 1, sent=b'{"jsonrpc":')
    assert status == 413
    assert body["error"]["code"] == "request_too_large"
    assert set(body["error"]) == {"code", "message", "fields"}


# --- the client address: the REST rule, not uvicorn's belief in X-Forwarded-For ----------


@pytest.fixture
def served_as_mcp_serve(live_server):
    """The MCP server as `manage.py mcp_serve` serves it (`uvicorn_config`)."""
    from interfaces.mcp.server import MCP_PATH, mcp_http_app, uvicorn_config

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = mcp_http_app(issuer_url=live_server.url, host="127.0.0.1")
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


def _guess(url: str, forwarded_for: str) -> int:
    request = urllib.request.Request(  # noqa: S310 (the test's own server)
        url,
        data=json.dumps(INITIALIZE).encode(),
        method="POST",
        headers={
            "Authorization": "Bearer iris_guessed-token",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "X-Forwarded-For": forwarded_for,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_guesser_cannot_name_a_new_address_per_try(served_as_mcp_serve, settings):
    """uvicorn believes `X-Forwarded-For` from a loopback peer by default and rewrites the
    client address: a local guesser sending a new address per try never spent its
    failed-auth budget on the MCP door. With no proxy configured (`NUM_PROXIES` 0), the
    peer is the address, as on the REST door."""
    assert api_settings.NUM_PROXIES == 0
    spend_failures(LOOPBACK)
    assert _guess(served_as_mcp_serve, "203.0.113.1") == 401  # the last failure allowed
    for n in range(2, 5):
        assert _guess(served_as_mcp_serve, f"203.0.113.{n}") == 429


@pytest.mark.django_db
@pytest.mark.parametrize("at", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"])
@pytest.mark.parametrize("operation", ["recall", "context-bundle"])
def test_a_time_at_the_calendars_edge_is_refused_not_an_error(at, operation):
    """Hole: `as_of` a day from the calendar's edge in UTC passed the contract and failed
    in the query (500, OverflowError) on recall and the context bundle, so on MCP too. An
    input time is now one UTC instant inside the calendar (`Instant`), else the 400."""
    member = consenting_member()
    client = bearer_client(ServiceClientFactory(consumer="assistant"))
    body = {"query": "coffee", "as_of": at}
    if operation == "recall":
        body |= {"surface": "assistant", "scope": {"kind": "profile"}}
    else:
        body |= {"scope_id": "s-1"}
    response = client.post(f"/api/v1/members/{member.pk}/{operation}/", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and "as_of" in error["fields"]


def test_a_device_clock_at_the_calendars_edge_is_refused_not_an_error():
    with pytest.raises(ValidationError) as refused:
        Instants.validate_python("0001-01-01T00:00:00+05:00")
    assert "between the years 1 and 9999" in str(refused.value)
    assert Instants.validate_python("2026-06-01T12:00:00+02:00").isoformat() == (
        "2026-06-01T10:00:00+00:00"
    )
