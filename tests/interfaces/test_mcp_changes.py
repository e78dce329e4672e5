"""Issue 44, item 7: a surface connected over MCP reads the same change feed. With the
official MCP SDK client, `read_changes` and `ack_changes` give what `GET /api/v1/events/`
and `POST /api/v1/events/ack/` give (they are those operations, run in-process): only
the caller's events, its own cursors, the same refusals; a member's token is refused."""

import pytest

from iris_site.services import token_issue
from memory.models import ChangeEvent
from tests.conftest import http_request
from tests.interfaces.test_mcp import mcp, mcp_url  # noqa: F401 (the fixture)
from tests.iris_site.factories import MemberFactory
from tests.memory.factories import consenting_member, remember
from tests.memory.test_change_events import Surfaces
from tests.memory.test_full_clear import token_of

pytestmark = pytest.mark.django_db(transaction=True)


def _forget(live_server, member, entry) -> None:
    forgot = http_request(
        f"{live_server.url}/api/v1/me/memories/{entry.pk}/forget/",
        method="POST",
        token=token_of(member),
    )
    assert forgot.status == 200, forgot.body


def test_the_feed_over_mcp_is_the_rest_feed(live_server, mcp_url):  # noqa: F811
    member = consenting_member()
    coffee = remember(member, subject="coffee", body="I take my coffee black").entry
    tea = remember(member, subject="tea", body="Green tea after lunch").entry
    surfaces = Surfaces(live_server, member)
    surfaces.recall("assistant", "coffee black")
    surfaces.recall("assistant", "green tea lunch")
    surfaces.recall("shell", "coffee")
    _forget(live_server, member, coffee)
    _forget(live_server, member, tea)
    token = surfaces.tokens["assistant"]

    async def calls(session):
        first = await session.call_tool("read_changes", {"limit": 1})
        rest = await session.call_tool("read_changes", {"after": first.structured_content["next"]})
        after_all = rest.structured_content["next"]
        empty = await session.call_tool("read_changes", {"after": after_all})
        acked = await session.call_tool("ack_changes", {"cursor": after_all})
        again = await session.call_tool("ack_changes", {"cursor": after_all})
        return first, rest, empty, acked, again

    first, rest, empty, acked, again = mcp(mcp_url, token, calls)
    for result in (first, rest, empty, acked, again):
        assert not result.is_error, result.structured_content
    events = first.structured_content["events"] + rest.structured_content["events"]
    assert [(e["type"], e["entry_ids"]) for e in events] == [
        ("memory.forgotten", [str(coffee.pk)]),
        ("memory.forgotten", [str(tea.pk)]),
    ]
    assert empty.structured_content["events"] == []
    assert acked.structured_content == {"acknowledged_count": 2}
    assert again.structured_content == {"acknowledged_count": 0}
    assert not ChangeEvent.objects.filter(consumer="assistant", acknowledged_at=None).exists()

    # REST answers the same events, in the same words, to the same surface
    by_rest = http_request(f"{live_server.url}/api/v1/events/", token=token)
    assert by_rest.status == 200 and by_rest.body["events"] == events
    # and the shell's feed (its own events, none acknowledged) is its own
    assert str(coffee.pk) in {i for e in surfaces.feed("shell") for i in e["entry_ids"]}
    assert not ChangeEvent.objects.filter(consumer="shell", acknowledged_at__isnull=False).exists()


def test_another_clients_cursor_or_a_bad_limit_is_refused_as_rest_refuses_it(
    live_server,
    mcp_url,  # noqa: F811
):
    member = consenting_member()
    surfaces = Surfaces(live_server, member)
    assert surfaces.feed("shell") == []
    theirs = surfaces.cursors["shell"]

    async def calls(session):
        read = await session.call_tool("read_changes", {"after": theirs})
        ack = await session.call_tool("ack_changes", {"cursor": "not-a-cursor"})
        return read, ack

    read, ack = mcp(mcp_url, surfaces.tokens["assistant"], calls)
    by_rest = http_request(
        f"{live_server.url}/api/v1/events/?after={theirs}", token=surfaces.tokens["assistant"]
    )
    assert read.is_error and read.structured_content == {"status": 400, **by_rest.body}
    assert "after" in read.structured_content["error"]["fields"]
    assert ack.is_error and ack.structured_content["status"] == 400
    assert "cursor" in ack.structured_content["error"]["fields"]

    async def too_many(session):
        return await session.call_tool("read_changes", {"limit": 501})

    # the tool's schema refuses it before REST would (REST's own answer is 400)
    assert mcp(mcp_url, surfaces.tokens["assistant"], too_many).is_error


def test_a_member_token_reads_no_feed_over_mcp(mcp_url):  # noqa: F811
    _, token = token_issue(owner=MemberFactory())

    async def calls(session):
        return await session.call_tool("read_changes", {})

    with pytest.raises(Exception):  # noqa: B017 - refused 401 before any tool runs
        mcp(mcp_url, token, calls)
    answer = http_request(
        mcp_url,
        method="POST",
        token=token,
        body={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "read_changes", "arguments": {}},
        },
    )
    assert answer.status == 401
