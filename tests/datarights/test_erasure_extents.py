"""Issue 41, erasure extents, over real HTTP: a data-rights delete reaches what the member
means by a scope or by everything, not only what its entries cite or repeat.

- a hard delete of every scope erases the whole conversation log (it left every turn no
  entry cited, and the next export listed them);
- a hard delete of the `session` scope erases that scope's short-term memory and every
  session's log; one of the `profile` scope erases the profile's short-term memory and
  leaves the conversation log (session memory) alone;
- a soft delete hides the short-term rows of its scopes at once, everywhere a surface
  reads them (the short-term list, the context bundle; MCP reads through the same API),
  a cancel brings them back, and the end of the grace window erases them.

The delete is submitted and verified over HTTP (the mailed code); the job runs as the
scheduler runs it; what remains is read over HTTP and in the next export.
"""

import json
import re
from datetime import timedelta

import pytest
from django.core import mail
from django.core.cache import cache
from django.utils import timezone

from datarights.export import artifact_path, read_member
from datarights.models import DataRightsRequest
from hierarchy.models import ShortTermMemory
from iris_site.settings import mailer_from_url
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import http_request
from tests.datarights.factories import EXPORT, process, submit
from tests.memory.factories import consenting_member, remember
from tests.memory.test_full_clear import service, token_of

pytestmark = pytest.mark.django_db(transaction=True)

LIST = "/api/v1/me/data-rights/"
PIN = "My bank PIN hint is the year my grandmother was born"
EVERY_SCOPE = [
    "profile",
    "session",
    "scene",
    "pose",
    "notebook",
    "crisis",
    "operator-copilot",
    "tenant",
]


@pytest.fixture(autouse=True)
def _outbox_and_fresh_cache(settings):
    settings.MAILERS = {"default": mailer_from_url("memory://")}
    cache.clear()
    yield
    cache.clear()


class Http:
    """The member and their assistant, over real HTTP against `live_server`."""

    def __init__(self, live_server, member) -> None:
        self.base = live_server.url
        self.member = member
        self.me = token_of(member)
        self.assistant = service("assistant")

    def call(self, path: str, token: str, method: str = "GET", body=None):
        return http_request(f"{self.base}{path}", method=method, token=token, body=body)

    def members(self, path: str, method: str = "POST", body=None):
        return self.call(f"/api/v1/members/{self.member.pk}/{path}", self.assistant, method, body)

    def turn(self, session: str, text: str) -> str:
        response = self.members(
            f"sessions/{session}/turns/", body={"speaker": "member", "text": text}
        )
        assert response.status == 201, response.body
        return response.body["id"]

    def short_term(self, scope_kind: str, scope_id: str, content: str) -> str:
        response = self.members(
            "short-term/",
            body={
                "scope_kind": scope_kind,
                "scope_id": scope_id,
                "category": "preference",
                "content": content,
            },
        )
        assert response.status == 201, response.body
        return response.body["id"]

    def listed(self, scope_id: str) -> tuple[list[str], dict]:
        response = self.members(f"short-term/?scope_id={scope_id}", "GET")
        assert response.status == 200, response.body
        return [row["content"] for row in response.body["results"]], response.body["withheld"]

    def bundled(self, scope_id: str) -> tuple[list[str], dict]:
        response = self.members("context-bundle/", body={"scope_id": scope_id, "query": ""})
        assert response.status == 200, response.body
        return [row["content"] for row in response.body["stm"]], response.body["stm_withheld"]

    def delete(self, payload: dict) -> DataRightsRequest:
        """Submit a delete and verify it with the mailed code, as the member does."""
        mail.outbox.clear()
        response = self.call(LIST, self.me, "POST", {"kind": "delete", "payload": payload})
        assert response.status == 201, response.body
        (sent,) = mail.outbox
        code = re.search(r"code is (\d{6})", sent.body).group(1)
        verified = self.call(
            response.body["verification"]["verify_url"], self.me, "POST", {"code": code}
        )
        assert verified.status == 200 and verified.body["status"] == "verified", verified.body
        return DataRightsRequest.objects.get(pk=response.body["id"])

    def cancel(self, request: DataRightsRequest) -> None:
        response = self.call(f"{LIST}{request.pk}/cancel/", self.me, "POST")
        assert response.status == 200, response.body


def hard(*scopes: str) -> dict:
    return {"mode": "hard", "scopes": list(scopes), "retention_grace_ms": 0}


def exported_turns(member) -> list[str]:
    export = process(submit(member, "export", EXPORT))
    assert export.status == "completed", export.progress
    bundle = json.loads(read_member(artifact_path(export)))
    return [turn["text"] for turn in bundle["session_memory"]["conversation_turns"]]


def test_a_hard_delete_of_every_scope_erases_the_whole_conversation_log(live_server):
    """It used to erase only the turns an erased entry cited or repeated: the rest of the
    log (a PIN hint among it) stayed, and the next export listed it."""
    # given: a conversation log no entry cites, one turn an entry cites, a bystander's log
    member = consenting_member()
    bystander = consenting_member()
    http = Http(live_server, member)
    for n in range(5):
        http.turn("s-1", f"Small talk number {n} about the weather")
    http.turn("s-2", PIN)
    cited = http.turn("s-2", "I take my coffee black")
    remember(
        member,
        body="I take my coffee black",
        subject="coffee",
        provenance=[
            {"kind": "session-turn", "ref": cited, "captured_at": timezone.now().isoformat()}
        ],
    )
    Http(live_server, bystander).turn("s-1", "The bystander's own small talk")
    assert PIN in exported_turns(member)
    # when the member deletes every scope
    request = process(http.delete(hard(*EVERY_SCOPE)))
    # then the request completed and nothing of the log remains
    assert request.status == "completed", (request.failure_code, request.progress)
    assert not ConversationTurn.objects.filter(member=member).exists()
    assert not MemoryEntry.objects.filter(member=member).exists()
    assert exported_turns(member) == []
    # the bystander's log is untouched
    assert ConversationTurn.objects.filter(member=bystander).count() == 1


def test_a_hard_delete_of_the_session_scope_erases_its_short_term_memory_and_the_log(
    live_server,
):
    """It used to leave the session's short-term rows, still listed and in the bundle."""
    # given: session memory (an entry, the log, a user session's working memory) and
    # profile memory (an entry, a research task's working memory)
    member = consenting_member()
    http = Http(live_server, member)
    session_entry = remember(
        member,
        body="We are planning the trip to Lisbon",
        scope={"kind": "session", "session_id": "s-1"},
    ).entry
    profile_entry = remember(member, body="I take my coffee black", subject="coffee").entry
    http.turn("s-1", "Let us plan the trip to Lisbon")
    http.short_term("user_session", "s-1", "looking at flights for Friday")
    http.short_term("research_task", "t-1", "comparing espresso grinders")
    assert http.listed("s-1")[0] == ["looking at flights for Friday"]
    assert http.bundled("s-1")[0] == ["looking at flights for Friday"]
    # when the member deletes the session scope
    request = process(http.delete(hard("session")))
    # then session memory is gone, everywhere a surface reads it
    assert request.status == "completed", (request.failure_code, request.progress)
    assert http.listed("s-1") == ([], {})
    assert http.bundled("s-1") == ([], {})
    assert not ShortTermMemory.objects.filter(member=member, scope_kind="user_session").exists()
    assert not MemoryEntry.objects.filter(pk=session_entry.pk).exists()
    assert not ConversationTurn.objects.filter(member=member).exists()
    assert exported_turns(member) == []
    # and profile memory stays
    assert MemoryEntry.objects.filter(pk=profile_entry.pk).exists()
    assert http.listed("t-1")[0] == ["comparing espresso grinders"]


def test_a_hard_delete_of_the_profile_scope_erases_its_short_term_memory_not_the_log(
    live_server,
):
    member = consenting_member()
    http = Http(live_server, member)
    http.turn("s-1", "Let us plan the trip to Lisbon")
    http.short_term("user_session", "s-1", "looking at flights for Friday")
    http.short_term("research_task", "t-1", "comparing espresso grinders")
    # when
    request = process(http.delete(hard("profile")))
    # then the profile's working memory (a research task's) is gone, session memory stays
    assert request.status == "completed", (request.failure_code, request.progress)
    assert http.listed("t-1") == ([], {})
    assert http.listed("s-1")[0] == ["looking at flights for Friday"]
    assert exported_turns(member) == ["Let us plan the trip to Lisbon"]


def soft(*scopes: str) -> dict:
    return {"mode": "soft", "scopes": list(scopes), "retention_grace_ms": 2 * 86_400_000}


def test_a_soft_delete_hides_its_short_term_memory_at_once_and_a_cancel_restores_it(
    live_server,
):
    """It used to hide the entries and keep serving the short-term rows of its scopes."""
    # given: working memory in a user session (session memory), in a research task
    # (profile memory) and in the operators' workbench (not named by the delete)
    member = consenting_member()
    http = Http(live_server, member)
    http.short_term("user_session", "s-1", "looking at flights for Friday")
    http.short_term("research_task", "t-1", "comparing espresso grinders")
    # when the member soft-deletes profile and session memory
    request = process(http.delete(soft("profile", "session")))
    # then both scopes' rows are withheld at once from every read, the bundle included
    assert request.status == "in-progress" and request.grace_ends_at is not None
    assert http.listed("s-1") == ([], {"deletion-hold": 1})
    assert http.bundled("s-1") == ([], {"deletion-hold": 1})
    assert http.listed("t-1") == ([], {"deletion-hold": 1})
    [row] = ShortTermMemory.objects.filter(member=member, scope_kind="user_session")
    refresh = http.members(f"short-term/{row.pk}/refresh/", body={})
    assert refresh.status == 404, refresh.body
    # the rows are untouched, and a cancel inside the window shows them again
    http.cancel(request)
    assert http.listed("s-1") == (["looking at flights for Friday"], {})
    assert http.bundled("s-1") == (["looking at flights for Friday"], {})
    assert http.listed("t-1") == (["comparing espresso grinders"], {})


def test_a_soft_delete_of_session_memory_hides_the_conversation_log_until_it_ends(live_server):
    """The log is session memory: a soft delete of the session scope hides every turn at
    once (the member's conversations, a surface citing one as provenance), a cancel
    brings them back unchanged; the profile's delete leaves them alone."""
    member = consenting_member()
    http = Http(live_server, member)
    turn = http.turn("s-1", "Let us plan the trip to Lisbon")

    def conversations() -> list[str]:
        response = http.call("/api/v1/me/conversations/", http.me)
        assert response.status == 200, response.body
        return [c["session_id"] for c in response.body["results"]]

    def cite() -> int:
        return http.members(
            "memories/",
            body={
                "scope": {"kind": "session", "session_id": "s-1"},
                "category": "preference",
                "body": "Plans a trip to Lisbon",
                "origin": "user-stated",
                "provenance": [
                    {"kind": "session-turn", "ref": turn, "captured_at": "2026-12-01T10:00:00Z"}
                ],
            },
        )

    request = process(http.delete(soft("session")))
    assert conversations() == []
    refused = cite()
    assert refused.status == 422, refused.body
    assert refused.body["error"]["code"] == "provenance-turn-not-found"
    http.cancel(request)
    assert conversations() == ["s-1"]
    assert cite().status == 201
    process(http.delete(soft("profile")))
    assert conversations() == ["s-1"]


def test_a_soft_delete_erases_its_short_term_memory_when_the_window_ends(live_server):
    member = consenting_member()
    http = Http(live_server, member)
    http.turn("s-1", "Let us plan the trip to Lisbon")
    http.short_term("user_session", "s-1", "looking at flights for Friday")
    http.short_term("research_task", "t-1", "comparing espresso grinders")
    request = process(http.delete(soft("session")))
    assert http.listed("s-1") == ([], {"deletion-hold": 1})
    assert http.listed("t-1") == (["comparing espresso grinders"], {})
    # when the grace window ends
    request = process(request, now=timezone.now() + timedelta(days=3))
    # then the session's working memory and log are erased, the profile's stays
    assert request.status == "completed", (request.failure_code, request.progress)
    assert not ShortTermMemory.objects.filter(member=member, scope_kind="user_session").exists()
    assert http.listed("s-1") == ([], {})
    assert not ConversationTurn.objects.filter(member=member).exists()
    assert http.listed("t-1") == (["comparing espresso grinders"], {})
