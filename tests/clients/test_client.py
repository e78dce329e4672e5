"""The Python client (`clients/python`) against a live server: remember then recall, a
refusal raised with its code, a keyed write retried after a lost answer without a second
memory, a real 429 waited out, and both kinds of pages, sync and async."""

import asyncio
import http.client
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from iris_client import (
    InvalidRequest,
    Iris,
    NotFound,
    RateLimited,
    Refused,
    Unavailable,
    achange_pages,
    apages,
    change_pages,
    default_retry,
    pages,
)
from iris_client.api.memories import (
    ack_changes,
    append_turn,
    remember,
    v1_me_memories_forget_create,
    v1_me_memories_list,
)
from iris_client.api.recall import recall
from iris_client.models import (
    ChangeFeedAckRequest,
    MemoryWriteRequest,
    RecallRequest,
    TurnAppendRequest,
)

from iris_site.services import token_issue
from memory.models import MemoryEntry
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member
from tests.memory.factories import remember as stored_fact
from tests.stepup import step_up_token

pytestmark = pytest.mark.django_db(transaction=True)

COFFEE = "I take my coffee black"


def surface(live_server, consumer: str = "assistant", **options) -> Iris:
    _, token = token_issue(owner=ServiceClientFactory(consumer=consumer))
    return Iris(base_url=live_server.url, token=token, **options)


def member_client(live_server, member, *, stepped_up: bool = False) -> Iris:
    """The member's own client; `stepped_up`: holding a step-up token, to forget."""
    token = step_up_token(member) if stepped_up else token_issue(owner=member)[1]
    return Iris(base_url=live_server.url, token=token)


def said(iris: Iris, member, text: str, session: str = "s-1"):
    body = TurnAppendRequest(speaker="member", text=text)
    return append_turn.sync(member.pk, session, client=iris, body=body)


def their_word(turn, category: str = "preference", text: str = COFFEE):
    """A profile memory in the member's own words, quoting the turn they spoke."""
    link = {"kind": "session-turn", "ref": str(turn.id), "captured_at": turn.created_at.isoformat()}
    return MemoryWriteRequest.from_dict(
        {
            "scope": {"kind": "profile"},
            "category": category,
            "body": text,
            "origin": "user-stated",
            "provenance": [link],
        }
    )


RECALL = RecallRequest.from_dict(
    {"surface": "assistant", "scope": {"kind": "profile"}, "query": "coffee"}
)


def test_remember_as_the_members_word_then_recall_it(live_server):
    member = consenting_member()
    iris = surface(live_server)
    stored = remember.sync(member.pk, client=iris, body=their_word(said(iris, member, COFFEE)))
    assert (stored.body, stored.origin, stored.scope.kind) == (COFFEE, "user-stated", "profile")
    recalled = recall.sync(member.pk, client=iris, body=RECALL)
    assert [(e.id, e.body) for e in recalled.entries] == [(stored.id, COFFEE)]


def test_refusals_are_typed_exceptions_with_the_envelopes_code_and_fields(live_server):
    member = consenting_member()
    iris = surface(live_server)
    insulin = said(iris, member, "I take insulin")
    with pytest.raises(Refused) as refused:
        remember.sync(member.pk, client=iris, body=their_word(insulin, "medical", "I take insulin"))
    assert refused.value.status == 422
    assert refused.value.code == "sensitive-category-without-consent"
    assert refused.value.message
    assert not MemoryEntry.objects.filter(member=member).exists()

    with pytest.raises(InvalidRequest) as invalid:
        list(change_pages(iris, limit=0))
    assert (invalid.value.status, invalid.value.code) == (400, "invalid")
    assert set(invalid.value.fields) == {"limit"}

    with pytest.raises(NotFound) as unknown:
        recall.sync("00000000-0000-4000-8000-000000000000", client=iris, body=RECALL)
    assert (unknown.value.status, unknown.value.code) == (404, "not_found")


class LosesFirstAnswer(ThreadingHTTPServer):
    """A gateway in front of the live server that forwards every request but loses the
    first answer: the caller gets 503 with `Retry-After: 1` though the server acted."""

    def __init__(self, upstream: str) -> None:
        self.upstream = urlsplit(upstream)
        self.seen: list[tuple[str, str, str | None]] = []
        super().__init__(("127.0.0.1", 0), _Forward)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Forward(BaseHTTPRequestHandler):
    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        upstream = http.client.HTTPConnection(self.server.upstream.netloc, timeout=10)
        headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
        upstream.request(self.command, self.path, body=body, headers=headers)
        answer = upstream.getresponse()
        payload = answer.read()
        upstream.close()
        self.server.seen.append((self.command, self.path, self.headers.get("Idempotency-Key")))
        if len(self.server.seen) == 1:
            self.send_response(503)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in {"connection", "transfer-encoding"}:
                self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = _forward

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def gateway(live_server):
    server = LosesFirstAnswer(live_server.url)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_keyed_write_whose_answer_was_lost_is_retried_with_its_key_and_stored_once(
    live_server, gateway
):
    member = consenting_member()
    direct = surface(live_server)
    turn = said(direct, member, COFFEE)
    iris = Iris(base_url=gateway.url, token=direct.token)

    started = time.monotonic()
    stored = remember.sync_detailed(member.pk, client=iris, body=their_word(turn))

    assert time.monotonic() - started >= 1  # it waited what Retry-After said
    [(_, path, key), (_, again, same)] = gateway.seen
    assert path == again == f"/api/v1/members/{member.pk}/memories/"
    assert key and same == key  # one key for the call, sent again on the retry
    assert stored.headers["Idempotent-Replayed"] == "true"
    assert list(MemoryEntry.objects.filter(member=member).values_list("pk", flat=True)) == [
        stored.parsed.id
    ]


def test_a_write_without_a_key_is_not_retried_after_a_503(live_server, gateway):
    member = consenting_member()
    direct = surface(live_server)
    iris = Iris(base_url=gateway.url, token=direct.token)
    with pytest.raises(Unavailable) as lost:
        recall.sync(member.pk, client=iris, body=RECALL)
    assert (lost.value.status, lost.value.code) == (503, "http-503")
    assert [(method, key) for method, _, key in gateway.seen] == [("POST", None)]


@pytest.fixture
def two_reads_a_second(settings):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "read": "2/s"},
    }


def test_a_real_429_is_waited_out_as_retry_after_says(live_server, two_reads_a_second):
    iris = surface(live_server)
    once = surface(live_server, "shell", retry=default_retry().copy_with(total=0))
    for _ in range(2):
        list(change_pages(once))
    with pytest.raises(RateLimited) as limited:
        list(change_pages(once))
    assert (limited.value.status, limited.value.code) == (429, "rate_limited")
    assert limited.value.response.headers["Retry-After"] == "1"

    for _ in range(2):
        list(change_pages(iris))
    started = time.monotonic()
    [page] = change_pages(iris)
    assert time.monotonic() - started >= 0.9
    assert page.events == []


def test_the_change_feed_page_by_page_then_acknowledged(live_server):
    member = consenting_member()
    for subject in ("coffee", "tea", "cocoa"):
        stored_fact(member, subject=subject, body=f"I drink {subject} in the morning")
    iris = surface(live_server)
    body = RecallRequest.from_dict(
        {"surface": "assistant", "scope": {"kind": "profile"}, "query": "morning"}
    )
    given = recall.sync(member.pk, client=iris, body=body).entries
    assert len(given) == 3
    mine = member_client(live_server, member, stepped_up=True)
    for entry in given:
        v1_me_memories_forget_create.sync(entry.id, client=mine)

    feed = list(change_pages(iris, limit=1))

    assert [[e.type_ for e in page.events] for page in feed] == [["memory.forgotten"]] * 3 + [[]]
    assert {page.events[0].entry_ids[0] for page in feed[:3]} == {e.id for e in given}
    acked = ack_changes.sync(client=iris, body=ChangeFeedAckRequest(cursor=feed[-1].next_))
    assert acked.acknowledged_count == 3
    # Nothing after the last page; its cursor is re-signed each time, so compare the events.
    assert [page.events for page in change_pages(iris, after=feed[-1].next_)] == [[]]


def test_a_list_page_by_page(live_server):
    member = consenting_member()
    stored = {stored_fact(member, subject=s, body=f"Likes {s}").entry.pk for s in "abcde"}
    mine = member_client(live_server, member)

    walked = list(pages(v1_me_memories_list.sync, client=mine, page_size=2))

    assert [len(page.results) for page in walked] == [2, 2, 1]
    assert {entry.id for page in walked for entry in page.results} == stored


def test_the_same_calls_async(live_server):
    member = consenting_member()
    iris, mine = surface(live_server), member_client(live_server, member)

    async def calls():
        body = TurnAppendRequest(speaker="member", text=COFFEE)
        turn = await append_turn.asyncio(member.pk, "s-1", client=iris, body=body)
        stored = await remember.asyncio(member.pk, client=iris, body=their_word(turn))
        recalled = await recall.asyncio(member.pk, client=iris, body=RECALL)
        feed = [page async for page in achange_pages(iris)]
        listed = [page async for page in apages(v1_me_memories_list.asyncio, client=mine)]
        with pytest.raises(Refused):
            await remember.asyncio(member.pk, client=iris, body=their_word(turn, "medical"))
        return stored, recalled, feed, listed

    stored, recalled, feed, listed = asyncio.run(calls())
    assert [e.id for e in recalled.entries] == [stored.id]
    assert [page.events for page in feed] == [[]]
    assert [e.id for page in listed for e in page.results] == [stored.id]
