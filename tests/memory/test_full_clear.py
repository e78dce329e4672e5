"""Issue 16, full clear, over real HTTP (PostgreSQL and SQLite alike): from the request on
nothing of the member's is recalled or served (the bundle cache included) and nothing new
is stored, whichever surface writes; short-term memory is erased at once; a cancel brings
back exactly what was hidden; the purge erases everything the member has by then."""

from datetime import datetime, timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from continuity.models import ContinuationToken
from hierarchy.consolidation import stm_consolidate
from hierarchy.models import ShortTermMemory
from iris_site.audit.events import Actor
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import NotFound
from iris_site.services import token_issue
from memory.forgetting.services import (
    memory_clear_purge_due,
    memory_clear_request,
    memory_tombstone,
)
from memory.models import (
    ConversationTurn,
    MemoryClearRequest,
    MemoryEntry,
    MemoryEntryTerm,
    MemoryNotice,
    MemoryRevision,
    RecallRecord,
)
from memory.pauses import memory_pause
from memory.sweeps.compaction import conversation_turns_compact
from tests.conftest import http_request
from tests.continuity.factories import token_body
from tests.hierarchy.stm_factories import write as stm_write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import (
    assert_no_audit_mentions,
    consenting_member,
    memory_audit,
    remember,
)
from tests.stepup import step_up_token
from tests.trust.test_concurrency import only_conflicts, race

pytestmark = pytest.mark.django_db(transaction=True)

MARKER = "qx-clear-marker"
CLEAR_PENDING = "clear-pending"


@pytest.fixture(autouse=True)
def _empty_bundle_cache():
    cache.clear()
    yield
    cache.clear()


def token_of(principal) -> str:
    """A bearer token; a member's is a step-up token (`tests.stepup`): these tests forget
    and clear, which a member does with a recent re-authentication."""
    if getattr(principal, "is_member", False):
        return step_up_token(principal)
    _, raw = token_issue(owner=principal)
    return raw


def service(consumer: str) -> str:
    return token_of(ServiceClientFactory(consumer=consumer))


class Http:
    """Real HTTP calls against `live_server`, as the member and as their surfaces."""

    def __init__(self, live_server, member) -> None:
        self.base = live_server.url
        self.member = member
        self.me = token_of(member)
        self.assistant = service("assistant")
        self.tara = service("tara")

    def call(self, path: str, token: str, method: str = "GET", body=None):
        return http_request(f"{self.base}{path}", method=method, token=token, body=body)

    def members(self, path: str, token: str, method: str = "POST", body=None):
        return self.call(f"/api/v1/members/{self.member.pk}/{path}", token, method, body)

    def clear(self, method: str):
        return self.call("/api/v1/me/memories/clear/", self.me, method)

    def recall(self):
        response = self.members(
            "recall/",
            self.assistant,
            body={"surface": "assistant", "scope": {"kind": "profile"}, "query": ""},
        )
        assert response.status == 200, response.body
        return response

    def recalled(self) -> dict[str, str]:
        return {e["id"]: e["body"] for e in self.recall().body["entries"]}

    def bundle(self):
        response = self.members(
            "context-bundle/", self.assistant, body={"scope_id": "s-1", "query": "coffee"}
        )
        assert response.status == 200, response.body
        return response.body

    def surface_writes(self, entry_id) -> dict:
        """One write down every path a member's content can be stored by."""
        return {
            "remember": self.members(
                "memories/?session_id=s-1",
                self.assistant,
                body={
                    "scope": {"kind": "profile"},
                    "category": "preference",
                    "subject": "music",
                    "body": f"{MARKER} likes jazz",
                    "origin": "model-inferred",
                },
            ),
            "member statement": self.call(
                "/api/v1/me/memories/",
                self.me,
                "POST",
                {
                    "scope": {"kind": "profile"},
                    "category": "preference",
                    "subject": "books",
                    "body": f"{MARKER} reads crime novels",
                },
            ),
            "member edit": self.call(
                f"/api/v1/me/memories/{entry_id}/", self.me, "PATCH", {"body": f"{MARKER} edited"}
            ),
            "turn": self.members(
                "sessions/s-1/turns/",
                self.assistant,
                body={"speaker": "member", "text": f"{MARKER} said something"},
            ),
            "short-term": self.members(
                "short-term/",
                self.assistant,
                body={
                    "scope_kind": "user_session",
                    "scope_id": "s-1",
                    "category": "preference",
                    "content": f"{MARKER} wants a short briefing",
                },
            ),
            "continuation token": self.members(
                "continuation-tokens/",
                self.tara,
                "PUT",
                token_body(self.member.pk, surface="tara"),
            ),
        }


def stored(member) -> dict[str, int]:
    """How many rows of each kind the member has."""
    return {
        "entries": MemoryEntry.objects.filter(member=member).count(),
        "revisions": MemoryRevision.objects.filter(member_id=member.pk).count(),
        "turns": ConversationTurn.objects.filter(member=member).count(),
        "short-term": ShortTermMemory.objects.filter(member=member).count(),
        "tokens": ContinuationToken.objects.filter(member=member).count(),
        "notices": MemoryNotice.objects.filter(member=member).count(),
        "terms": MemoryEntryTerm.objects.filter(entry__member_id=member.pk).count(),
    }


def ids(entries: list[dict]) -> list[str]:
    return [e["id"] for e in entries]


def entry_state(member) -> set[tuple]:
    return set(
        MemoryEntry.objects.filter(member=member).values_list(
            "pk", "lifecycle", "body", "revision_id"
        )
    )


def test_during_a_pending_clear_nothing_is_stored_or_served_and_a_cancel_restores_it(
    live_server,
):
    """The grace window used to accept every surface write (201), and those entries
    survived the purge; the bundle kept serving from its cache; short-term memory stayed."""
    # given: long-term memory (one paused), working memory, a cached bundle
    member = consenting_member()
    coffee = remember(member, subject="coffee", body="I take my coffee black").entry
    remember(member, subject="walks", body="I walk by the canal every morning")
    paused = remember(member, subject="tea", body="green tea after lunch").entry
    memory_pause(entry=paused, actor=Actor.of(member))
    stm_write(member, content="wants the morning briefing short")
    http = Http(live_server, member)
    recalled_before = http.recalled()
    assert len(recalled_before) == 2
    state_before = entry_state(member)
    first = http.bundle()
    assert first["stm"] and first["ltm"]["entries"]
    assert http.bundle()["cached"] is True
    # when the member asks to clear everything
    requested = http.clear("POST")
    # then
    assert requested.status == 201, requested.body
    assert requested.body["entry_count"] == 3
    # short-term memory is erased at once
    assert not ShortTermMemory.objects.filter(member=member).exists()
    [stm_purged] = memory_audit(member, "hierarchy.stm.purged")
    assert stm_purged.payload["purged_count"] == 1
    # every write path refuses, and stores nothing
    before = stored(member)
    for path, response in http.surface_writes(coffee.pk).items():
        assert response.status == 409, (path, response.status, response.body)
        assert response.body["error"]["code"] == CLEAR_PENDING, path
        assert "full clear" in response.body["error"]["message"], path
    assert stored(member) == before
    assert entry_state(member) == state_before
    # nothing is recalled
    recall = http.recall()
    assert recall.body["entries"] == []
    assert recall.body["audit_envelope"]["suppression_counts"] == {"full-clear-pending": 3}
    # and the bundle serves nothing: not from its cache, not from the stores
    after = http.bundle()
    assert after["cached"] is False
    assert after["stm"] == [] and after["ltm"]["entries"] == []
    assert "coffee" not in str(after["ltm"]["entries"]) and "briefing" not in str(after)
    assert http.bundle()["ltm"]["entries"] == []  # nor once cached itself
    # when the member cancels within the window
    cancelled = http.clear("DELETE")
    # then exactly what was hidden is back, unchanged
    assert cancelled.status == 200 and cancelled.body["state"] == "cancelled"
    assert entry_state(member) == state_before
    assert http.recalled() == recalled_before
    restored = http.bundle()
    assert restored["cached"] is False
    assert ids(restored["ltm"]["entries"]) == ids(first["ltm"]["entries"])
    # and writes are taken again
    assert http.surface_writes(coffee.pk)["turn"].status == 201
    assert_no_audit_mentions("coffee black", "canal", "briefing")


def test_jobs_neither_compact_nor_consolidate_into_memory_during_a_pending_clear(live_server):
    """Compaction and consolidation write through `memory_remember`: refused alike."""
    # given: an old turn to compact, a short-term row to consolidate
    member = consenting_member()
    http = Http(live_server, member)
    turn = http.members(
        "sessions/s-1/turns/",
        http.assistant,
        body={"speaker": "member", "text": f"{MARKER} I moved to Ghent last spring"},
    )
    assert turn.status == 201, turn.body
    row = stm_write(member, content=f"{MARKER} lives in Ghent")
    assert http.clear("POST").status == 201
    # when the retention sweep compacts the session's turns
    compacted = conversation_turns_compact(
        member_id=member.pk, session_id="s-1", now=timezone.now() + timedelta(days=400)
    )
    # then no summary is written (the raw turns go all the same: retention)
    assert compacted.summary is None and compacted.outcome == CLEAR_PENDING
    assert not MemoryEntry.objects.filter(member=member).exists()
    # and the short-term row, erased at the request, cannot be consolidated
    with pytest.raises(NotFound):
        stm_consolidate(stm_id=row.pk, actor=Actor.system("test"))
    assert not MemoryEntry.objects.filter(member=member).exists()


def test_the_purge_erases_everything_the_member_has_at_purge_time(live_server):
    """The purge used to erase only the ids snapshotted at the request: a forgotten
    entry, the turn log, recall records and short-term memory stayed."""
    # given: every kind of content: active, superseded, draft with its notice, forgotten
    member = consenting_member()
    bystander = consenting_member()
    http = Http(live_server, member)
    remember(member, subject="coffee", body=f"{MARKER} coffee black")
    remember(member, subject="coffee", body=f"{MARKER} coffee with oat milk")  # supersedes
    remember(member, subject="walks", body=f"{MARKER} I walk every morning")
    remember(
        member,
        subject="walks",
        body=f"{MARKER} walks in the evening",
        origin="model-inferred",
        actor=Actor.of(ServiceClientFactory(consumer="assistant")),
        consumer="assistant",
    )  # kept as a draft, with a question to the member
    memory_tombstone(
        entry=remember(member, subject="tea", body=f"{MARKER} green tea").entry,
        actor=Actor.of(member),
    )
    turn = http.members(
        "sessions/s-1/turns/", http.assistant, body={"speaker": "member", "text": MARKER}
    )
    assert turn.status == 201, turn.body
    stm_write(member, content=f"{MARKER} wants a short briefing")
    assert http.recalled()  # a recall record names what it returned
    kept = remember(bystander, subject="coffee", body=f"{MARKER} the bystander's coffee").entry
    assert {k: v > 0 for k, v in stored(member).items()} == {
        "entries": True,
        "revisions": True,
        "turns": True,
        "short-term": True,
        "tokens": False,
        "notices": True,
        "terms": True,
    }
    requested = http.clear("POST")
    assert requested.status == 201, requested.body
    assert requested.body["entry_count"] == 4  # the forgotten one was not even listed
    purge_after = datetime.fromisoformat(requested.body["purge_after"])
    # when the grace window has passed
    assert memory_clear_purge_due(now=purge_after - timedelta(seconds=1)) == 0
    purged = memory_clear_purge_due(now=purge_after + timedelta(seconds=1))
    # then nothing of the member's content remains
    assert purged == 5
    assert stored(member) == dict.fromkeys(stored(member), 0)
    for record in RecallRecord.objects.filter(member=member):
        assert (record.returned_ids, record.rationales) == ([], {})
    # sealed columns: searched opened, not by a lookup on their text
    entries = MemoryEntry.objects.filter(member=member)
    assert not [b for b in entries.values_list("body", flat=True) if MARKER in b]
    assert not ConversationTurn.objects.filter(member=member).exists()
    assert not [t for t in ConversationTurn.objects.values_list("text", flat=True) if MARKER in t]
    # the member's pages and API say so
    assert http.call("/api/v1/me/memories/", http.me).body["results"] == []
    assert http.clear("GET").body == {"pending": None}
    clear = MemoryClearRequest.objects.get(member=member)
    assert clear.state == MemoryClearRequest.State.PURGED
    [event] = memory_audit(member, "memory.clear.purged")
    assert event.payload == {
        "clear_id": str(clear.pk),
        "purged_entry_count": 5,
        "purged_turn_count": 1,
    }
    assert_no_audit_mentions(MARKER)
    assert audit_chain_verify().valid
    # another member's memory is untouched
    assert MARKER in MemoryEntry.objects.get(pk=kept.pk).body
    # and the member starts afresh: writes are taken again
    assert http.surface_writes(None)["remember"].status == 201
    # the job is idempotent
    assert memory_clear_purge_due(now=purge_after + timedelta(days=1)) == 0


@pytest.mark.parametrize("round_", range(3))
def test_writes_racing_a_clear_request_are_either_hidden_by_it_or_refused(round_):
    """The check runs under the member lock the request takes: a write commits before the
    request (and is hidden by it, listed in it) or is refused; none lands in between."""
    # given
    member = consenting_member()
    surface = Actor.of(ServiceClientFactory(consumer="assistant"))

    def entry(n):
        return lambda: remember(
            member,
            subject=f"s{n}",
            body=f"{MARKER} fact {n}",
            origin="model-inferred",
            actor=surface,
            consumer="assistant",
        )

    def working(n):
        return lambda: stm_write(member, actor=surface, content=f"{MARKER} note {n}")

    writes = [entry(n) for n in range(5)] + [working(n) for n in range(3)]
    # when
    _, errors = race([*writes, lambda: memory_clear_request(member=member, actor=surface)])
    # then
    refused = only_conflicts(errors)
    assert set(refused) <= {CLEAR_PENDING}
    clear = MemoryClearRequest.objects.get(member=member)
    stored_ids = {
        str(pk) for pk in MemoryEntry.objects.filter(member=member).values_list("pk", flat=True)
    }
    assert stored_ids == set(clear.entry_ids)
    assert len(stored_ids) + refused[CLEAR_PENDING] + stm_written(member) == len(writes)
    assert not ShortTermMemory.objects.filter(member=member).exists()


def stm_written(member) -> int:
    """Short-term rows written before the request: the request erased them."""
    return sum(
        e.payload["purged_count"]
        for e in memory_audit(member, "hierarchy.stm.purged")
        if e.payload.get("reason") == "full-clear"
    )
