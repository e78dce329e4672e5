"""Issue 42, item 6: one budget per caller across REST, MCP and `/metrics`, failed
authentication included, in the shared cache (`iris_site.budgets`).

Over real HTTP: the MCP server in uvicorn driven by the official SDK client (and raw
requests where the SDK hides the status), the REST API and `/metrics` on `live_server`.
Budgets are filled up to just short through the shared cache key, then the last allowed
and the first refused requests are real."""

import asyncio
import json
import time
import urllib.error
import urllib.request
from email.message import Message

import pytest
from django.core.cache import cache

from iris_site.budgets import FAILED_AUTH, budget_key
from iris_site.services import token_issue
from tests.conftest import http_request
from tests.interfaces.test_mcp import REMEMBER, _session, mcp, mcp_url  # noqa: F401
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member
from tests.trust.test_abuse import budget, principal, use_up

pytestmark = pytest.mark.django_db(transaction=True)

LOOPBACK = "127.0.0.1"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "guesser", "version": "0"},
    },
}


def spend_failures(ip: str, *, leave: int = 1) -> None:
    """Failed authentications from `ip`, all but `leave` of its budget, all just now."""
    cache.set(budget_key(FAILED_AUTH, ip), [time.time()] * (budget("anon") - leave), 60)


def _raw_mcp(url: str, token: str) -> tuple[int, dict, Message]:
    """One MCP `initialize` POST, raw: (status, JSON body or {}, headers)."""
    request = urllib.request.Request(  # noqa: S310 (the test's own server)
        url,
        data=json.dumps(INITIALIZE).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status, {}, response.headers
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        return error.code, body, error.headers


def _sdk_refused(url: str, token: str) -> BaseException:
    """What the official SDK client meets connecting with this token."""

    async def calls(client):
        return await client.list_tools()

    with pytest.raises(BaseException) as refused:
        asyncio.run(_session(url, token, calls))
    return refused.value


def test_bad_tokens_against_mcp_are_cut_at_the_per_ip_budget_and_rest_sees_it(
    live_server,
    mcp_url,  # noqa: F811
):
    # given: a guesser tries bad tokens against MCP, as many as the per-IP budget allows
    statuses = [_raw_mcp(mcp_url, f"guess-{i}")[0] for i in range(budget("anon"))]
    assert statuses == [401] * budget("anon")
    # when: one more
    status, body, headers = _raw_mcp(mcp_url, "guess-over")
    # then: the MCP door refuses that address now, with the envelope and Retry-After
    assert status == 429
    assert body["error"]["code"] == "rate_limited"
    assert 0 < int(headers["Retry-After"]) <= 60
    # the official SDK client cannot connect from that address, even with a good token
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    assert "429" in repr(_sdk_refused(mcp_url, token)) or _raw_mcp(mcp_url, token)[0] == 429
    # and the REST door, from the same address, refuses it too: one budget
    rest = http_request(live_server.url + "/api/v1/me/memories/", token="guess-rest")
    assert rest.status == 429
    assert rest.body["error"]["code"] == "rate_limited"


def test_failed_rest_authentication_closes_the_mcp_door_too(live_server, mcp_url):  # noqa: F811
    # given: the address's failures spent on REST (all but one)
    spend_failures(LOOPBACK)
    assert http_request(live_server.url + "/api/v1/me/memories/", token="nope").status == 401
    # then: even a good service token is refused on MCP from that address
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    status, body, _ = _raw_mcp(mcp_url, token)
    assert status == 429
    assert body["error"]["code"] == "rate_limited"


def test_metrics_has_a_failed_authentication_throttle_shared_with_the_api(live_server, settings):
    # given: the scrape endpoint on, with its token
    settings.IRIS_METRICS_ENDPOINT = True
    settings.IRIS_METRICS_TOKEN = "scrape-token-0123456789"
    url = live_server.url + "/metrics"
    spend_failures(LOOPBACK, leave=2)
    # when: wrong scrape tokens
    first = http_request(url, token="wrong")
    second = http_request(url, token="wrong")
    third = http_request(url, token="wrong")
    # then: the budget runs out on /metrics, and the right token waits as well
    assert (first.status, second.status) == (401, 401)
    assert third.status == 429
    assert third.body["error"]["code"] == "rate_limited"
    assert int(third.headers["Retry-After"]) >= 1
    assert http_request(url, token=settings.IRIS_METRICS_TOKEN).status == 429
    assert http_request(live_server.url + "/api/v1/me/memories/", token="nope").status == 429


def test_a_surfaces_rest_and_mcp_writes_draw_on_one_budget(live_server, mcp_url):  # noqa: F811
    # given: a surface with two writes left in its budget
    client = ServiceClientFactory(consumer="assistant")
    _, token = token_issue(owner=client)
    member = consenting_member()
    use_up("write", principal(client), leave=2)
    body = {**REMEMBER, "origin": "model-inferred", "scope": {"kind": "session", "session_id": "s"}}
    # when: one write over REST, then two over MCP
    rest = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/memories/",
        method="POST",
        token=token,
        body=body,
    )

    async def calls(session):
        args = {"member_id": str(member.pk), **body}
        return [await session.call_tool("remember", args) for _ in range(2)]

    allowed, refused = mcp(mcp_url, token, calls)
    # then: the REST write and the first MCP write spent the last two; the next is refused
    assert rest.status == 201, rest.body
    assert not allowed.is_error, allowed.structured_content
    assert refused.is_error
    assert refused.structured_content["status"] == 429
    assert refused.structured_content["error"]["code"] == "rate_limited"


def test_mcp_requests_besides_tool_calls_spend_the_callers_read_budget(live_server, mcp_url):  # noqa: F811
    # given: a surface with one read left in its budget
    client = ServiceClientFactory(consumer="assistant")
    _, token = token_issue(owner=client)
    member = consenting_member()
    use_up("read", principal(client), leave=1)
    # when: it opens an MCP session twice (initialize is not a tool call)
    first, _, _ = _raw_mcp(mcp_url, token)
    second, body, headers = _raw_mcp(mcp_url, token)
    # then: the first spent the last read, the second is refused, and so is REST
    assert first == 200
    assert second == 429, body
    assert body["error"]["code"] == "rate_limited"
    assert int(headers["Retry-After"]) > 0
    rest = http_request(f"{live_server.url}/api/v1/members/{member.pk}/questions/", token=token)
    assert rest.status == 429, rest.body


def test_the_keys_are_the_documented_ones():
    assert budget_key("failed_auth", "10.0.0.1") == "throttle_failed_auth_10.0.0.1"
    assert budget_key("write", "iris_site.serviceclient:1") == (
        "throttle_write_iris_site.serviceclient:1"
    )
