"""Issue 46 under attack: the MCP tools generated from the REST contracts, their door
(the MCP server's budgets), the typed client, per-database checkpoints, the demo's
lasting tokens and the one-fact dedupe — as a hostile assistant surface, a curious
operator, a retrying client and a racing second request would try them.

Real over mock: the MCP server in uvicorn driven by the official SDK client over HTTP,
the REST API on `live_server`."""

import urllib.parse

import pytest

from iris_site.services import token_issue
from memory.models import ConversationTurn
from tests.conftest import http_request
from tests.interfaces.test_mcp import mcp, mcp_url  # noqa: F401
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db(transaction=True)


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
