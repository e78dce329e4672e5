"""Issue 46, item 1, shown: one session of the official MCP SDK client over real HTTP calls
every tool Iris offers, and every tool refuses an argument it does not take with REST's
own envelope (400 `invalid`, the argument named), nothing run."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from interfaces.mcp.tools import TOOLS
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import http_request
from tests.interfaces.test_mcp import COFFEE, mcp, mcp_url  # noqa: F401
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db(transaction=True)

SESSION = {"kind": "session", "session_id": "s-1"}  # no user_id: the member in the path


def _token(member, *, token_id=None) -> dict:
    return {
        "token_id": token_id or str(uuid.uuid4()),
        "user_id": str(member.pk),
        "scope_key": "profile",
        "device_id": "phone-1",
        "surface_context": {"surface": "shell"},
        "anchor_ref": {"surface": "shell", "anchor_id": "home", "cursor": "0"},
        "posture": "reading",
        "sensitive_categories": [],
        "cross_device_consent_id": None,
        "idempotency_key": f"k-{uuid.uuid4()}",
        "last_updated_at": timezone.now().isoformat(),
    }


def _ok(result, name: str) -> dict:
    assert not result.is_error, (name, result.structured_content)
    return result.structured_content


def test_one_sdk_session_calls_every_tool(live_server, mcp_url):  # noqa: F811
    _, assistant = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    _, shell = token_issue(owner=ServiceClientFactory(consumer="shell"))
    member = consenting_member()
    member_id = str(member.pk)
    before = (timezone.now() - timedelta(days=1)).isoformat()
    recall = {"member_id": member_id, "surface": "assistant", "scope": SESSION, "query": "coffee"}
    called: set[str] = set()

    async def memory_calls(session):
        async def call(name, arguments):
            called.add(name)
            return await session.call_tool(name, arguments)

        turn = _ok(
            await call(
                "append_turn",
                {"member_id": member_id, "session_id": "s-1", "speaker": "member", "text": COFFEE},
            ),
            "append_turn",
        )
        stored = _ok(
            await call(
                "remember",
                {
                    "member_id": member_id,
                    "scope": SESSION,
                    "category": "preference",
                    "body": COFFEE,
                    "origin": "model-inferred",
                    "idempotency_key": "remember-1",
                },
            ),
            "remember",
        )
        now = _ok(await call("recall", recall), "recall")
        then = _ok(await call("recall", {**recall, "as_of": before}), "recall as_of")
        row = _ok(
            await call(
                "write_short_term",
                {
                    "member_id": member_id,
                    "scope_kind": "user_session",
                    "scope_id": "s-1",
                    "category": "preference",
                    "content": "Prefers short answers",
                },
            ),
            "write_short_term",
        )
        rows = _ok(
            await call("list_short_term", {"member_id": member_id, "scope_id": "s-1"}),
            "list_short_term",
        )
        refreshed = _ok(
            await call(
                "refresh_short_term",
                {"member_id": member_id, "stm_id": row["id"], "ttl_seconds": 600},
            ),
            "refresh_short_term",
        )
        consolidated = _ok(
            await call(
                "consolidate_short_term",
                {"member_id": member_id, "stm_id": row["id"], "context": "general"},
            ),
            "consolidate_short_term",
        )
        bundle = _ok(
            await call(
                "get_context_bundle", {"member_id": member_id, "scope_id": "s-1", "query": "coffee"}
            ),
            "get_context_bundle",
        )
        questions = _ok(await call("list_open_questions", {"member_id": member_id}), "questions")
        policies = _ok(await call("list_scope_policies", {"member_id": member_id}), "policies")
        changes = _ok(await call("read_changes", {"limit": 10}), "read_changes")
        acked = _ok(await call("ack_changes", {"cursor": changes["next"]}), "ack_changes")
        return locals()

    got = mcp(mcp_url, assistant, memory_calls)
    assert got["turn"]["session_id"] == "s-1" and got["turn"]["speaker"] == "member"
    # the scope's member filled in from the path
    assert got["stored"]["body"] == COFFEE and got["stored"]["scope"]["user_id"] == member_id
    assert [e["body"] for e in got["now"]["entries"]] == [COFFEE]
    # recall in the past answers as REST does: nothing held then
    rest_then = http_request(
        f"{live_server.url}/api/v1/members/{member_id}/recall/",
        method="POST",
        token=assistant,
        body={key: value for key, value in got["recall"].items() if key != "member_id"}
        | {"as_of": before},
    )
    assert got["then"]["entries"] == rest_then.body["entries"] == []
    assert [r["id"] for r in got["rows"]["results"]] == [got["row"]["id"]]
    assert got["refreshed"]["id"] == got["row"]["id"] and got["refreshed"]["refreshed_at"]
    assert got["consolidated"]["stm_id"] == got["row"]["id"]
    assert got["bundle"]["scope_id"] == "s-1" and got["bundle"]["stm"]
    assert got["questions"]["questions"] == []
    assert got["policies"]["consumer"] == "assistant" and got["policies"]["results"]
    assert got["acked"]["acknowledged_count"] == len(got["changes"]["events"])

    async def continuation_calls(session):
        async def call(name, arguments):
            called.add(name)
            return await session.call_tool(name, arguments)

        saved = _ok(
            await call("save_continuation", {"member_id": member_id, **_token(member)}),
            "save_continuation",
        )
        listed = _ok(
            await call("list_continuations", {"member_id": member_id, "device_id": "phone-1"}),
            "list_continuations",
        )
        resumed = _ok(
            await call("resume_continuation", {"member_id": member_id, "pk": saved["id"]}),
            "resume_continuation",
        )
        return saved, listed, resumed

    saved, listed, resumed = mcp(mcp_url, shell, continuation_calls)
    assert [card["id"] for card in listed["results"]] == [saved["id"]]
    assert resumed["anchor_ref"]["anchor_id"] == "home"
    assert called == set(TOOLS)


def _arguments(member, stm_id: str, token_id: str) -> dict[str, dict]:
    """A call each tool would take for `member` (or refuse for a reason of its own)."""
    member_id = str(member.pk)
    return {
        "remember": {
            "member_id": member_id,
            "scope": SESSION,
            "category": "preference",
            "body": COFFEE,
            "origin": "model-inferred",
        },
        "recall": {"member_id": member_id, "surface": "assistant", "scope": SESSION},
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
        "list_short_term": {"member_id": member_id, "scope_id": "s-1"},
        "refresh_short_term": {"member_id": member_id, "stm_id": stm_id},
        "consolidate_short_term": {"member_id": member_id, "stm_id": stm_id},
        "get_context_bundle": {"member_id": member_id, "scope_id": "s-1"},
        "list_open_questions": {"member_id": member_id},
        "save_continuation": {"member_id": member_id, **_token(member)},
        "list_continuations": {"member_id": member_id},
        "resume_continuation": {"member_id": member_id, "pk": token_id},
        "list_scope_policies": {"member_id": member_id},
        "read_changes": {},
        "ack_changes": {"cursor": "not-a-cursor"},
    }


def test_every_tool_refuses_an_unknown_argument_with_rests_envelope(live_server, mcp_url):  # noqa: F811
    _, token = token_issue(owner=ServiceClientFactory(consumer="shell"))
    member = consenting_member()
    base = f"{live_server.url}/api/v1/members/{member.pk}"
    by_rest = http_request(
        f"{base}/short-term/?scope_id=s-1&colour=blue", method="GET", token=token
    )
    assert by_rest.status == 400 and list(by_rest.body["error"]["fields"]) == ["colour"]
    before = AuditEvent.objects.count()
    entries = MemoryEntry.objects.count()
    arguments = _arguments(member, str(uuid.uuid4()), str(uuid.uuid4()))
    assert arguments.keys() == TOOLS.keys()

    async def calls(session):
        return {
            name: await session.call_tool(name, {**given, "colour": "blue"})
            for name, given in arguments.items()
        }

    for name, refused in mcp(mcp_url, token, calls).items():
        assert refused.is_error, name
        assert refused.structured_content["status"] == 400, name
        error = refused.structured_content["error"]
        assert error["code"] == by_rest.body["error"]["code"] == "invalid", name
        assert list(error["fields"]) == ["colour"], (name, error)
    # Refused before any operation ran: nothing written, nothing audited.
    assert AuditEvent.objects.count() == before
    assert MemoryEntry.objects.count() == entries
    assert not ConversationTurn.objects.filter(member=member).exists()
