"""Attacks on the read gate's surfaces (issue 15), over real HTTP against a running server.

An ordinary service client of every consumer tries what a careless or hostile surface
would: claim a surface, context or scope kind it may not; replay another client's ids;
race a consent withdrawal or a pause; read an operator's workbench; refresh or
consolidate a row it may not see; send nonsense in every new parameter. A member tries
another member's ids. Each test is one attack and asserts that it holds: the answer
carries nothing withheld, what is withheld is counted, a refusal is a 4xx with the error
envelope, nothing changed, and no audit payload carries content.

Where an attack still succeeds the test is `xfail(strict=True)` and says why.

Run on PostgreSQL (`DATABASE_URL=...`) and SQLite alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from consent.models import ConsentEvent
from continuity.models import ContinuationToken, ContinuityNotice
from hierarchy.access import access_record_append
from hierarchy.models import ShortTermMemory
from hierarchy.stm import stm_demote
from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.errors import Conflict
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.access.capabilities import capabilities_for
from memory.access.gate import CONSUMER_NOT_ALLOWED, CROSS_DEVICE_REQUIRED
from memory.enums import RecallContext
from memory.models import MemoryEntry
from memory.pauses import memory_pause
from memory.services import service_client_capabilities_set
from memory.turns import conversation_turn_append
from tests.conftest import HttpResponse, http_request
from tests.consent.factories import record
from tests.continuity.factories import token_body
from tests.hierarchy.stm_factories import write as stm_write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import assert_no_audit_mentions, consenting_member, remember
from tests.stepup import step_up_token

pytestmark = pytest.mark.django_db(transaction=True)

OUTSIDE_CONTEXT = "sensitive-category-outside-relevant-context"
NOTE = "attack-note: panic attacks before exams"
DIAGNOSIS = "attack-diagnosis: generalised anxiety"
ORDINARY = "attack-ordinary: wants the morning briefing short"
ANCHOR = "attack-anchor-grief-chapter"
QUERY_MARK = "zebraquartz"
ROOT = Path(__file__).resolve().parents[2]


# --- helpers -----------------------------------------------------------------------------


def client(consumer: str):
    """A fresh service client of `consumer` and its raw bearer token."""
    principal = ServiceClientFactory(consumer=consumer)
    return principal, token_issue(owner=principal)[1]


def service(consumer: str) -> str:
    return client(consumer)[1]


def own_token(member) -> str:
    return token_issue(owner=member)[1]


def call(live_server, path: str, token: str | None, method: str = "GET", body=None):
    return http_request(f"{live_server.url}{path}", method=method, token=token, body=body)


def bundle(live_server, member, token: str, **body):
    return call(
        live_server,
        f"/api/v1/members/{member.pk}/context-bundle/",
        token,
        "POST",
        {"scope_id": "s-1", **body},
    )


def stm_list(live_server, member, token: str, query: str = "scope_id=s-1"):
    return call(live_server, f"/api/v1/members/{member.pk}/short-term/?{query}", token)


def stm_post(live_server, member, token: str, **body):
    data = {"scope_kind": "user_session", "scope_id": "s-1", "category": "preference", **body}
    return call(live_server, f"/api/v1/members/{member.pk}/short-term/", token, "POST", data)


def refresh(live_server, member, row_id, token: str, query: str = "", body=None):
    path = f"/api/v1/members/{member.pk}/short-term/{row_id}/refresh/?{query}"
    return call(live_server, path, token, "POST", {} if body is None else body)


def consolidate(live_server, row_id, token: str, query: str = "", body=None):
    owner = ShortTermMemory.objects.filter(pk=row_id).values_list("member_id", flat=True)
    member_id = owner.first() or uuid.uuid4()
    path = f"/api/v1/members/{member_id}/short-term/{row_id}/consolidate/?{query}"
    return call(live_server, path, token, "POST", {} if body is None else body)


def consent(live_server, member, consent_type: str, kind: str) -> None:
    # A withdrawal that forgets memory needs a step-up token (issue 42).
    token = step_up_token(member) if kind == "withdrawal" else own_token(member)
    response = call(
        live_server,
        "/api/v1/me/consents/events/",
        token,
        "POST",
        {"consent_type": consent_type, "kind": kind},
    )
    assert response.status == 201, response.body


def assert_envelope(response, status: int | None = None) -> None:
    assert 400 <= response.status < 500, (response.status, response.body)
    if status is not None:
        assert response.status == status, response.body
    error = response.body["error"]
    assert set(error) == {"code", "message", "fields"}, error
    assert isinstance(error["code"], str) and isinstance(error["fields"], dict)


def chain_length() -> int:
    return AuditEvent.objects.count()


def health_note(live_server, member) -> dict:
    """Tara keeps a mental-health note in the member's session s-1 (201)."""
    written = stm_post(live_server, member, service("tara"), category="mental_health", content=NOTE)
    assert written.status == 201, written.body
    return written.body


def stated(member) -> dict:
    """A consolidation as the member's own word: it quotes a turn the member spoke."""
    turn = conversation_turn_append(
        member=member,
        session_id="s-1",
        speaker="member",
        text=NOTE,
        consumer="tara",
        actor=Actor.system("test"),
    )
    return {"origin": "user-stated", "turns": [str(turn.pk)]}


def row_state(row_id) -> tuple:
    return tuple(
        ShortTermMemory.objects.filter(pk=row_id).values_list(
            "ttl_expires", "refreshed_at", "consolidated_to", "consolidated_at", "content"
        )[0]
    )


def workbench_row(member, entry):
    """What `memory_inspect demote --apply` does: an operator's RC3 seed of a workbench
    row in the member's `admin_session` scope, a copy of the entry."""
    return stm_demote(
        member=member,
        entry_id=entry.pk,
        scope_kind="admin_session",
        scope_id="s-1",
        actor=Actor.system("memory-inspect"),
        workbench=True,
    )


# --- claims outside the capability table ------------------------------------------------

CONSUMERS = tuple(Consumer.values)
EVERY_SURFACE = ("admin", "assistant", "notebook", "shell", *CONSUMERS)


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_no_consumer_can_claim_a_surface_or_context_outside_its_capabilities(live_server, consumer):
    """Every consumer, every surface and context it was not granted, on every endpoint
    that takes them: 403 with the code, and nothing resolved, counted or changed."""
    member = consenting_member("category:mental_health")
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    row = stm_write(member, category="mental_health", content=NOTE)
    token = service(consumer)
    caps = capabilities_for(consumer)
    before = chain_length()
    for surface in sorted(set(EVERY_SURFACE) - caps.surfaces):
        refused = bundle(live_server, member, token, surface=surface)
        assert_envelope(refused, 403)
        assert refused.body["error"]["code"] == "surface-not-allowed", surface
    for context in sorted(set(RecallContext.values) - caps.contexts):
        for refused in (
            bundle(live_server, member, token, context=context),
            stm_list(live_server, member, token, f"scope_id=s-1&context={context}"),
            refresh(live_server, member, row.pk, token, f"context={context}"),
            consolidate(live_server, row.pk, token, f"context={context}"),
            # A row that does not exist answers the same: the refusal tells nothing.
            consolidate(live_server, uuid.uuid4(), token, f"context={context}"),
        ):
            assert_envelope(refused, 403)
            assert refused.body["error"]["code"] == "context-not-allowed", context
            assert NOTE not in str(refused.body) and DIAGNOSIS not in str(refused.body)
    assert chain_length() == before
    assert row_state(row.pk)[1:4] == (None, None, None)
    assert MemoryEntry.objects.get(member=member).reference_count == 0


def test_a_surface_naming_itself_gets_no_more_than_the_shell_budget(live_server):
    """A surface may always name itself, and gets no more for it: a Veritas client naming
    `veritas` gets the shell's three entries, never another surface's budget."""
    member = consenting_member()
    for n in range(6):
        remember(member, subject=f"walk-{n}", body=f"I walk route {n} on Sundays")
    veritas = service("veritas")
    itself = bundle(live_server, member, veritas, surface="veritas", query="walk route")
    shell = bundle(live_server, member, service("shell"), query="walk route")
    assert itself.status == 200, itself.body
    assert len(itself.body["ltm"]["entries"]) == len(shell.body["ltm"]["entries"]) == 3
    assert all("rationale" not in e for e in itself.body["ltm"]["entries"])
    refused = bundle(live_server, member, veritas, surface="notebook", query="walk route")
    assert_envelope(refused, 403)


def test_a_narrowed_client_is_refused_what_the_operator_took_away_even_from_cache(
    live_server,
):
    """A platform operator narrows one Tara client: the health context and session memory
    are gone for it at once, a bundle cached before the change included, while another
    Tara client keeps them."""
    member = consenting_member("category:mental_health")
    note = health_note(live_server, member)
    agent_row = stm_write(member, scope_kind="agent_run", scope_id="a-1", content=ORDINARY)
    narrowed_client, narrowed = client("tara")
    other = service("tara")
    first = bundle(live_server, member, narrowed, context="health")
    assert [r["content"] for r in first.body["stm"]] == [NOTE]
    assert bundle(live_server, member, narrowed, context="health").body["cached"] is True
    # when
    service_client_capabilities_set(
        service_client=narrowed_client,
        actor=Actor.system("platform-operator"),
        reason="attack test: no health context, no session memory",
        contexts=["general"],
        read_kinds=["profile"],
    )
    # then
    for refused in (
        bundle(
            live_server, member, narrowed, context="health", scope_id="a-1", scope_kind="agent_run"
        ),
        stm_list(live_server, member, narrowed, "scope_id=s-1&context=health"),
    ):
        assert_envelope(refused, 403)
        assert refused.body["error"]["code"] == "context-not-allowed"
    for refused in (
        bundle(live_server, member, narrowed),  # a user session's bundle reads the session
        stm_list(live_server, member, narrowed, "scope_id=s-1&scope_kind=user_session"),
    ):
        assert_envelope(refused, 403)
        assert refused.body["error"]["code"] == CONSUMER_NOT_ALLOWED
    # Naming no kind: the session's rows are withheld and counted, the agent's row is not.
    listed = stm_list(live_server, member, narrowed)
    assert [r["id"] for r in listed.body["results"]] == []
    assert listed.body["withheld"] == {CONSUMER_NOT_ALLOWED: 1}
    agent = stm_list(live_server, member, narrowed, "scope_id=a-1&scope_kind=agent_run")
    assert [r["id"] for r in agent.body["results"]] == [str(agent_row.pk)]
    assert refresh(live_server, member, note["id"], narrowed).status == 404
    # The other Tara client is not narrowed.
    assert [
        r["content"] for r in bundle(live_server, member, other, context="health").body["stm"]
    ] == [NOTE]


def test_a_client_narrowed_to_write_nothing_writes_no_memory_through_short_term(live_server):
    """The memories endpoint refuses a kind an operator took from the client's writes;
    short-term writes, refreshes and consolidation used to ignore the narrowing, so
    consolidating a row was a side door into long-term memory of any kind the consumer's
    row allows."""
    member = consenting_member()
    row = stm_write(member, content=ORDINARY)
    narrowed_client, narrowed = client("assistant")
    service_client_capabilities_set(
        service_client=narrowed_client,
        actor=Actor.system("platform-operator"),
        reason="attack test: read-only client",
        write_kinds=[],
    )
    before = row_state(row.pk)
    written = stm_post(live_server, member, narrowed, content="attack-write: new row")
    refreshed = refresh(live_server, member, row.pk, narrowed, body={"ttl_seconds": 600})
    for refused in (written, refreshed):
        assert_envelope(refused, 403)
        assert refused.body["error"]["code"] == CONSUMER_NOT_ALLOWED
    for target in ({}, {"scope": {"kind": "profile"}}):
        refused = consolidate(
            live_server, row.pk, narrowed, body={"origin": "user-stated", **target}
        )
        assert_envelope(refused, 403)
        assert refused.body["error"]["code"] == CONSUMER_NOT_ALLOWED
    assert row_state(row.pk) == before
    assert not MemoryEntry.objects.filter(member=member).exists()
    assert ShortTermMemory.objects.filter(member=member).count() == 1
    # The same client still reads, and an unnarrowed one still consolidates.
    assert [r["id"] for r in stm_list(live_server, member, narrowed).body["results"]] == [
        str(row.pk)
    ]
    done = consolidate(live_server, row.pk, service("assistant"))
    assert done.status == 201, done.body


# --- the operators' workbench -----------------------------------------------------------


def test_an_operators_workbench_row_is_never_served_to_a_surface(live_server):
    """An operator seeds a workbench row (RC3) from a memory the member then pauses, in a
    scope id a surface also uses. Before the fix every surface listed it, content and all
    (the paused memory's text), and could refresh and consolidate it."""
    member = consenting_member()
    paused = remember(member, subject="half marathon", body="attack-paused: half marathon").entry
    row = workbench_row(member, paused)
    memory_pause(entry=paused, actor=Actor.of(member), ends_at=None)
    ordinary = stm_write(member, content=ORDINARY)
    for consumer in CONSUMERS:
        token = service(consumer)
        listed = stm_list(live_server, member, token)
        assert listed.status == 200, listed.body
        assert [r["id"] for r in listed.body["results"]] == [str(ordinary.pk)], consumer
        assert listed.body["withheld"] == {CONSUMER_NOT_ALLOWED: 1}, consumer
        named = stm_list(live_server, member, token, "scope_id=s-1&scope_kind=admin_session")
        assert_envelope(named, 403)
        assert named.body["error"]["code"] == CONSUMER_NOT_ALLOWED
        in_bundle = bundle(live_server, member, token)
        assert str(row.pk) not in str(in_bundle.body), consumer
        assert in_bundle.body["stm_withheld"] == {CONSUMER_NOT_ALLOWED: 1}, consumer
        assert_envelope(bundle(live_server, member, token, scope_kind="admin_session"), 403)
    before, state = chain_length(), row_state(row.pk)
    for consumer in ("assistant", "shell"):
        token = service(consumer)
        assert refresh(live_server, member, row.pk, token).status == 404
        assert consolidate(live_server, row.pk, token, body={"origin": "user-stated"}).status == 404
    assert (chain_length(), row_state(row.pk)) == (before, state)
    assert MemoryEntry.objects.filter(member=member).count() == 1


def test_the_bundles_episodic_tier_names_neither_withheld_rows_nor_operator_access(
    live_server,
):
    """A returned entry an operator seeded a workbench row from: the bundle used to list
    the operator's access record and the `hierarchy.stm.demoted` event naming the workbench
    row (its id, then usable on refresh and consolidate)."""
    member = consenting_member()
    entry = remember(member, subject="job", body="I work as a structural engineer").entry
    row = workbench_row(member, entry)
    access_record_append(
        action="hierarchy.ltm.demote_requested",
        actor=Actor.system("memory-inspect"),
        justification="attack test: an operator's justified access",
        target_member_id=member.pk,
        payload={"entry_id": str(entry.pk), "dry_run": False},
    )
    response = bundle(live_server, member, service("veritas"), query="engineer")
    assert [e["id"] for e in response.body["ltm"]["entries"]] == [str(entry.pk)]
    actions = [e["action"] for e in response.body["episodic"]]
    assert actions == ["memory.entry.created"], actions
    assert str(row.pk) not in str(response.body)


# --- refresh and consolidate of a row the client may not see ----------------------------


def test_refreshing_a_row_the_client_may_not_see_reveals_nothing(live_server):
    """Veritas replays the id of Tara's mental-health note: the answer is byte for byte
    that of an id that does not exist, whatever the body, and nothing changes."""
    member = consenting_member("category:mental_health")
    note = health_note(live_server, member)
    veritas = service("veritas")
    stranger = consenting_member()
    before, state = chain_length(), row_state(note["id"])
    # The contract judges the body before any row is looked up: a bad body is the same
    # 400 for every id, a good one the same 404.
    for body, status in (
        ({}, 404),
        ({"ttl_seconds": 60}, 404),
        ({"ttl_seconds": "nonsense"}, 400),
        ({"unknown": 1}, 400),
    ):
        hidden = refresh(live_server, member, note["id"], veritas, body=body)
        missing = refresh(live_server, member, uuid.uuid4(), veritas, body=body)
        assert (hidden.status, hidden.body) == (missing.status, missing.body)
        assert hidden.status == status, hidden.body
        assert hidden.headers.get("Content-Length") == missing.headers.get("Content-Length")
    # Another member's path with this member's row id: 404 as well.
    assert (
        refresh(live_server, stranger, note["id"], service("tara"), "context=health").status == 404
    )
    assert (chain_length(), row_state(note["id"])) == (before, state)
    # Tara, in the health context, may refresh it.
    own = refresh(live_server, member, note["id"], service("tara"), "context=health")
    assert own.status == 200 and own.body["content"] == NOTE


def test_consolidating_a_row_the_client_may_not_see_reveals_nothing(live_server):
    """Before the fix a Veritas client turned Tara's mental-health note, which it may not
    read, into long-term memory (201, as `user-stated`), and every later try answered
    409 naming the new entry."""
    member = consenting_member("category:mental_health")
    note = health_note(live_server, member)
    veritas = service("veritas")
    before, state = chain_length(), row_state(note["id"])
    for body in ({}, {"origin": "user-stated"}, {"scope": {"kind": "profile"}}):
        hidden = consolidate(live_server, note["id"], veritas, body=body)
        missing = consolidate(live_server, uuid.uuid4(), veritas, body=body)
        assert (hidden.status, hidden.body) == (404, missing.body)
        assert hidden.headers.get("Content-Length") == missing.headers.get("Content-Length")
    assert (chain_length(), row_state(note["id"])) == (before, state)
    assert not MemoryEntry.objects.filter(member=member).exists()
    assert not AuditEvent.objects.filter(action="hierarchy.stm.consolidation_refused").exists()
    # Tara, which may read it in the health context, consolidates it once.
    tara = service("tara")
    done = consolidate(live_server, note["id"], tara, "context=health", stated(member))
    assert done.status == 201, done.body
    again = consolidate(live_server, note["id"], veritas, body={"origin": "user-stated"})
    assert (again.status, again.body) == (404, missing.body)  # no "already consolidated into"
    assert_no_audit_mentions(NOTE)


def test_parallel_consolidations_by_a_client_that_may_not_read_the_row_never_write(live_server):
    """Two clients race on one row: the one that may read it wins once, the other is a
    404 however the race falls (the gate is decided under the row's lock)."""
    member = consenting_member("category:mental_health")
    note = health_note(live_server, member)
    tara, veritas = service("tara"), service("veritas")
    quoted = stated(member)
    calls = [
        lambda: consolidate(live_server, note["id"], tara, "context=health", quoted),
        lambda: consolidate(live_server, note["id"], veritas, body={"origin": "user-stated"}),
    ] * 3
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        results = list(pool.map(lambda f: f(), calls))
    tara_statuses = sorted(r.status for r in results[0::2])
    assert tara_statuses == [201, 409, 409], [r.body for r in results]
    assert [r.status for r in results[1::2]] == [404, 404, 404]
    assert MemoryEntry.objects.filter(member=member).count() == 1


# --- consent withdrawals and pauses racing reads, and the bundle cache -------------------


def _race(read, change, *, reads_after: int = 6) -> list:
    """Three threads keep reading while `change` runs; the answers of the reads that
    began after `change` returned (at least `reads_after` of them)."""
    done, stop = threading.Event(), threading.Event()
    after = []

    def reader():
        while not stop.is_set():
            began_after = done.is_set()
            result = read()
            if began_after:
                after.append(result)
                if len(after) >= reads_after:
                    stop.set()

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)
    change()
    done.set()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert len(after) >= reads_after
    return after


def test_a_category_withdrawal_racing_bundles_serves_nothing_withdrawn_after_it(live_server):
    """Three threads keep asking Tara's bundle (health context, cached) while the member
    withdraws `category:mental_health`: no bundle begun after the withdrawal answered
    holds the note or the diagnosis, from the cache or not."""
    member = consenting_member("category:mental_health")
    health_note(live_server, member)
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    tara = service("tara")

    def read():
        response = bundle(live_server, member, tara, context="health", query="anxiety panic")
        assert response.status == 200, response.body
        return response.body

    first = read()
    assert NOTE in str(first) and DIAGNOSIS in str(first)
    assert read()["cached"] is True
    after = _race(
        read, lambda: consent(live_server, member, "category:mental_health", "withdrawal")
    )
    for body in after:
        assert NOTE not in str(body) and DIAGNOSIS not in str(body), body
    assert_no_audit_mentions(NOTE, DIAGNOSIS)


def test_a_pause_racing_bundles_serves_the_paused_memory_to_nothing_begun_after_it(
    live_server,
):
    member = consenting_member()
    entry = remember(member, subject="coffee", body="attack-pause: coffee black").entry
    assistant = service("assistant")

    def read():
        return bundle(live_server, member, assistant, query="coffee").body

    def pause():
        paused = call(
            live_server, f"/api/v1/me/memories/{entry.pk}/pause/", own_token(member), "POST", {}
        )
        assert paused.status == 200, paused.body

    assert [e["id"] for e in read()["ltm"]["entries"]] == [str(entry.pk)]
    assert read()["cached"] is True
    after = _race(read, pause)
    for body in after:
        assert body["ltm"]["entries"] == [], body


def test_withdraw_and_regrant_within_the_cache_window_serves_nothing_ended(live_server):
    """The cache key carries the consent state, so a withdrawal and a re-grant inside
    30 s lead back to the same state, and the same key: the rows and entries the
    withdrawal ended must still not come back from the cache."""
    member = consenting_member("category:mental_health")
    health_note(live_server, member)
    ordinary = stm_write(member, content=ORDINARY)
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    tara = service("tara")
    cached = bundle(live_server, member, tara, context="health", query="anxiety")
    assert NOTE in str(cached.body) and DIAGNOSIS in str(cached.body)
    assert bundle(live_server, member, tara, context="health", query="anxiety").body["cached"]
    # the category
    consent(live_server, member, "category:mental_health", "withdrawal")
    consent(live_server, member, "category:mental_health", "grant")
    again = bundle(live_server, member, tara, context="health", query="anxiety")
    assert NOTE not in str(again.body) and DIAGNOSIS not in str(again.body)
    assert [r["id"] for r in again.body["stm"]] == [str(ordinary.pk)]
    # and processing itself: working memory ends
    assert bundle(live_server, member, tara, context="health").body["stm"] != []
    consent(live_server, member, "data_processing", "withdrawal")
    consent(live_server, member, "data_processing", "grant")
    assert bundle(live_server, member, tara, context="health").body["stm"] == []


def test_an_expired_short_term_row_is_not_served_from_the_bundle_cache(live_server):
    """Before the fix a row with a short TTL stayed in a cached bundle for the whole 30 s,
    after the list endpoint had stopped returning it."""
    member = consenting_member()
    assistant = service("assistant")
    written = stm_post(live_server, member, assistant, content=ORDINARY, ttl_seconds=3)
    assert written.status == 201, written.body
    first = bundle(live_server, member, assistant)
    assert [r["id"] for r in first.body["stm"]] == [written.body["id"]]
    assert bundle(live_server, member, assistant).body["cached"] is True
    expires = ShortTermMemory.objects.get(pk=written.body["id"]).ttl_expires
    while time.time() <= expires.timestamp() + 0.2:
        time.sleep(0.2)
    assert stm_list(live_server, member, assistant).body["results"] == []
    after = bundle(live_server, member, assistant)
    assert after.body["stm"] == [] and after.body["cached"] is False


# --- a second process ------------------------------------------------------------------

CHANGE_ELSEWHERE = """
import sys
import uuid
from datetime import timedelta
import django

django.setup()
from django.utils import timezone
from iris_site.audit.events import Actor
from iris_site.models import User
from memory.forgetting.dsar import memory_hold_place
from memory.models import MemoryEntry
from memory.pauses import memory_pause
from tests.consent.factories import record

what, ident = sys.argv[1], sys.argv[2]
if what == "pause":
    entry = MemoryEntry.objects.get(pk=ident)
    memory_pause(entry=entry, actor=Actor.of(entry.member), ends_at=None)
elif what == "hold":  # what the task worker does for a data-rights soft delete
    entry = MemoryEntry.objects.get(pk=ident)
    memory_hold_place(
        member_id=entry.member_id,
        entry_ids=[ident],
        request_id=uuid.uuid4(),
        release_after=timezone.now() + timedelta(days=7),
        actor=Actor.system("datarights"),
    )
else:
    record(User.objects.get(pk=ident), what, kind="withdrawal")
"""


def change_in_another_process(what: str, ident) -> None:
    """Commit a change the way a second web worker (or the task worker) does: another
    Python process on the same database, with its own (per-process unless CACHE_URL is
    set) cache."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        url = f"sqlite:///{db['NAME']}"
    else:
        auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
        url = f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "iris_site.settings"}
    subprocess.run(  # noqa: S603 - our own interpreter and script, fixed arguments
        [sys.executable, "-c", CHANGE_ELSEWHERE, what, str(ident)],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
        capture_output=True,
    )


def test_a_consent_withdrawn_in_another_process_is_never_answered_from_this_cache(
    live_server,
):
    """The key carries the member's consent state, read from the database on every call,
    so a withdrawal committed by any process reaches a new key here at once."""
    member = consenting_member()
    entry = remember(member, subject="coffee", body="attack-elsewhere: coffee black").entry
    assistant = service("assistant")
    assert [
        e["id"]
        for e in bundle(live_server, member, assistant, query="coffee").body["ltm"]["entries"]
    ] == [str(entry.pk)]
    assert bundle(live_server, member, assistant, query="coffee").body["cached"] is True
    change_in_another_process("data_storage", member.pk)
    after = bundle(live_server, member, assistant, query="coffee")
    assert after.body["cached"] is False
    assert after.body["ltm"]["entries"] == []
    assert after.body["ltm"]["audit_envelope"]["suppression_counts"] == {"scope-suppressed": 1}


@pytest.mark.parametrize(("change", "reason"), [("pause", "user-pause"), ("hold", "deletion-hold")])
def test_a_memory_paused_in_another_process_is_never_answered_from_this_cache(
    live_server, change, reason
):
    """Before the fix each process kept its own bundle generation (LocMem, no CACHE_URL):
    a pause or a data-rights hold committed by another process (a second web worker, the
    task worker) left this one serving the cached bundle, memory and all, for 30 s."""
    member = consenting_member()
    entry = remember(member, subject="coffee", body="attack-elsewhere: coffee black").entry
    assistant = service("assistant")
    assert bundle(live_server, member, assistant, query="coffee").body["ltm"]["entries"] != []
    assert bundle(live_server, member, assistant, query="coffee").body["cached"] is True
    change_in_another_process(change, entry.pk)
    after = bundle(live_server, member, assistant, query="coffee")
    assert after.body["cached"] is False
    assert after.body["ltm"]["entries"] == [], after.body["ltm"]
    assert after.body["ltm"]["audit_envelope"]["suppression_counts"] == {reason: 1}


# --- a copy of a memory in working memory ------------------------------------------------


def test_a_working_memory_copy_of_a_memory_goes_quiet_when_the_memory_is_paused(live_server):
    """An operator copies a memory into the member's session (`memory_inspect demote`);
    the member pauses the memory. Before the fix every surface kept reading the copy,
    and could refresh it, and a paused memory could be copied in the first place."""
    member = consenting_member()
    entry = remember(member, subject="coffee", body="attack-copy: coffee black").entry

    def demote():
        return stm_demote(
            member=member,
            entry_id=entry.pk,
            scope_kind="user_session",
            scope_id="s-1",
            actor=Actor.system("memory-inspect"),
            workbench=True,
        )

    copy = demote()
    assistant = service("assistant")
    assert "attack-copy" in str(stm_list(live_server, member, assistant).body)
    paused = call(
        live_server, f"/api/v1/me/memories/{entry.pk}/pause/", own_token(member), "POST", {}
    )
    assert paused.status == 200, paused.body
    listed = stm_list(live_server, member, assistant)
    assert "attack-copy" not in str(listed.body), listed.body
    assert listed.body["withheld"] == {"user-pause": 1}
    in_bundle = bundle(live_server, member, assistant, query="coffee")
    assert "attack-copy" not in str(in_bundle.body)
    assert in_bundle.body["stm_withheld"] == {"user-pause": 1}
    assert refresh(live_server, member, copy.pk, assistant).status == 404
    with pytest.raises(Conflict) as refused:
        demote()
    assert refused.value.code == "entry-not-active"
    assert ShortTermMemory.objects.filter(member=member).count() == 1


# --- continuation tokens ---------------------------------------------------------------


def _sensitive_token(live_server, member, token: str, grant, **overrides):
    base = f"/api/v1/members/{member.pk}/continuation-tokens/"
    body = token_body(
        member.pk,
        surface="psyche",
        device_id="phone-1",
        sensitive_categories=["mental_health"],
        cross_device_consent_id=str(grant.pk),
        anchor_ref={"surface": "psyche", "anchor_id": ANCHOR, "cursor": "00:01:02"},
        **overrides,
    )
    written = call(live_server, base, token, "PUT", body)
    assert written.status in (200, 201), written.body
    return written.body


def test_replayed_slot_ids_and_device_ids_never_resume_another_clients_sensitive_token(
    live_server,
):
    """Psyche's phone app writes a sensitive token; another Psyche client, Tara, the
    shell, the member's browser and another member replay its slot id and device id."""
    member = consenting_member()
    grant = record(member, "cross_device").event
    phone_client, phone = client("psyche")
    slot = _sensitive_token(live_server, member, phone, grant)["id"]
    consent(live_server, member, "cross_device", "withdrawal")
    base = f"/api/v1/members/{member.pk}/continuation-tokens/"
    stranger = consenting_member()
    attempts = {
        "other psyche client": call(
            live_server, f"{base}{slot}/resume/?device_id=phone-1", service("psyche")
        ),
        "shell": call(live_server, f"{base}{slot}/resume/?device_id=phone-1", service("shell")),
        "tara": call(live_server, f"{base}{slot}/resume/?device_id=phone-1", service("tara")),
        "browser": call(
            live_server, f"/api/v1/me/continuation-tokens/{slot}/resume/", own_token(member)
        ),
        "other member": call(
            live_server, f"/api/v1/me/continuation-tokens/{slot}/resume/", own_token(stranger)
        ),
        "other member's path": call(
            live_server,
            f"/api/v1/members/{stranger.pk}/continuation-tokens/{slot}/resume/?device_id=phone-1",
            phone,
        ),
    }
    for who, response in attempts.items():
        assert response.status == 404, (who, response.body)
        assert ANCHOR not in str(response.body)
    listed = call(live_server, f"{base}?device_id=phone-1", service("shell"))
    assert listed.body["results"] == []
    assert listed.body["withheld"] == {CROSS_DEVICE_REQUIRED: 1}
    # The writing client on its own device still resumes.
    own = call(live_server, f"{base}{slot}/resume/?device_id=phone-1", phone)
    assert own.status == 200 and own.body["anchor_ref"]["anchor_id"] == ANCHOR
    assert phone_client.pk == ContinuationToken.objects.get(pk=slot).written_by_client_id


def test_a_cross_device_withdrawal_racing_resumes_serves_nothing_after_it(live_server):
    member = consenting_member()
    grant = record(member, "cross_device").event
    slot = _sensitive_token(live_server, member, service("psyche"), grant)["id"]
    shell = service("shell")
    path = f"/api/v1/members/{member.pk}/continuation-tokens/{slot}/resume/?device_id=laptop-9"

    def read():
        return call(live_server, path, shell)

    assert read().status == 200
    after = _race(read, lambda: consent(live_server, member, "cross_device", "withdrawal"))
    assert [r.status for r in after] == [404] * len(after)
    assert all(ANCHOR not in str(r.body) for r in after)


def test_a_lost_sensitive_place_goes_back_to_its_device_never_to_the_members_browser(
    live_server,
):
    """Before the fix the member's browser naming `device_id=phone-1` got the phone's
    lost sensitive place (its anchor) in a notice, without the cross-device grant, and
    took the notice away from the phone."""
    member = consenting_member()
    grant = record(member, "cross_device").event
    _, phone = client("psyche")
    laptop = service("psyche")
    _sensitive_token(live_server, member, phone, grant)
    base = f"/api/v1/members/{member.pk}/continuation-tokens/"
    replaced = call(
        live_server,
        base,
        laptop,
        "PUT",
        token_body(member.pk, surface="psyche", device_id="laptop-1"),
    )
    assert replaced.body["outcome"] == "replaced", replaced.body
    consent(live_server, member, "cross_device", "withdrawal")
    browser = call(
        live_server, "/api/v1/me/continuation-tokens/?device_id=phone-1", own_token(member)
    )
    other_client = call(live_server, f"{base}?device_id=phone-1", service("psyche"))
    for response in (browser, other_client):
        assert response.status == 200, response.body
        assert response.body["notices"] == [] and ANCHOR not in str(response.body)
    own = call(live_server, f"{base}?device_id=phone-1", phone)
    [notice] = own.body["notices"]
    assert notice["superseded"]["anchor_ref"]["anchor_id"] == ANCHOR
    assert ContinuityNotice.objects.get(pk=notice["id"]).delivered_at is not None
    assert_no_audit_mentions(ANCHOR)


def test_a_token_naming_a_tenant_the_member_is_not_in_is_not_written(live_server):
    member = consenting_member()
    body = token_body(
        member.pk,
        surface="psyche",
        surface_context={"surface": "psyche", "session_id": "s-1", "tenant_id": str(uuid.uuid4())},
    )
    response = call(
        live_server,
        f"/api/v1/members/{member.pk}/continuation-tokens/",
        service("psyche"),
        "PUT",
        body,
    )
    assert_envelope(response, 404)
    assert not ContinuationToken.objects.filter(member=member).exists()


# --- counts, never content ---------------------------------------------------------------


def test_counts_in_answers_and_audit_payloads_never_carry_content(live_server):
    """Content written through every new path, read and withheld through every new path:
    the `withheld` objects are reason → count, and no audit payload anywhere holds the
    text, the query, or the anchor."""
    member = consenting_member("category:mental_health")
    grant = record(member, "cross_device").event
    note = health_note(live_server, member)
    ordinary = stm_post(live_server, member, service("assistant"), content=ORDINARY).body
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    veritas, tara = service("veritas"), service("tara")
    _sensitive_token(live_server, member, service("psyche"), grant)
    consent(live_server, member, "cross_device", "withdrawal")
    query = f"{QUERY_MARK} anxiety panic"
    answers = [
        bundle(live_server, member, veritas, query=query),
        bundle(live_server, member, tara, query=query, context="health"),
        stm_list(live_server, member, veritas),
        call(live_server, f"/api/v1/members/{member.pk}/continuation-tokens/", service("shell")),
    ]
    refresh(live_server, member, ordinary["id"], veritas)
    refresh(live_server, member, note["id"], veritas)
    consolidate(live_server, note["id"], veritas)
    consolidate(live_server, note["id"], tara, "context=health", stated(member))
    withheld = [
        answers[0].body["stm_withheld"],
        answers[0].body["ltm"]["audit_envelope"]["suppression_counts"],
        answers[2].body["withheld"],
        answers[3].body["withheld"],
    ]
    assert withheld[0] == withheld[2] == {OUTSIDE_CONTEXT: 1}
    assert withheld[3] == {CROSS_DEVICE_REQUIRED: 1}
    for counts in withheld:
        assert all(isinstance(k, str) and type(v) is int and v > 0 for k, v in counts.items())
    events = AuditEvent.objects.filter(target_member_id=member.pk)
    assert events.filter(action="hierarchy.bundle.resolved").count() == 2
    assert_no_audit_mentions(NOTE, ORDINARY, DIAGNOSIS, QUERY_MARK, ANCHOR)


# --- another member's ids ---------------------------------------------------------------


def test_a_member_reaches_none_of_another_members_objects_through_the_member_api(live_server):
    """Member B sends member A's entry, slot and short-term ids to every member path that
    takes an id: 404 each time, A's objects unchanged."""
    a, b = consenting_member(), consenting_member()
    entry = remember(a, subject="coffee", body="attack-idor: coffee black").entry
    slot = ContinuationToken.objects.get(pk=_plain_slot(live_server, a)).pk
    row = stm_write(a, content=ORDINARY)
    b_token = own_token(b)
    state = (
        list(MemoryEntry.objects.filter(member=a).values_list("lifecycle", "revision_id", "body")),
        ConsentEvent.objects.filter(member=a).count(),
        row_state(row.pk),
    )
    me = "/api/v1/me"
    for method, path, body in (
        ("GET", f"{me}/memories/{entry.pk}/", None),
        ("PATCH", f"{me}/memories/{entry.pk}/", {"body": "rewritten by B"}),
        ("GET", f"{me}/memories/{entry.pk}/revisions/", None),
        ("POST", f"{me}/memories/{entry.pk}/preview/", {"category": "preference", "subject": "x"}),
        ("POST", f"{me}/memories/{entry.pk}/pause/", {}),
        ("POST", f"{me}/memories/{entry.pk}/resume/", None),
        ("POST", f"{me}/memories/{entry.pk}/forget/", None),
        ("POST", f"{me}/memories/{entry.pk}/confirm/", None),
        (
            "POST",
            f"{me}/memories/{entry.pk}/scope/",
            {"scope": {"kind": "notebook", "notebook_id": "n"}},
        ),
        ("GET", f"{me}/continuation-tokens/{slot}/resume/", None),
        ("GET", f"/api/v1/members/{a.pk}/short-term/?scope_id=s-1", None),
        ("POST", f"/api/v1/members/{a.pk}/short-term/{row.pk}/refresh/", {}),
        ("POST", f"/api/v1/members/{a.pk}/short-term/{row.pk}/consolidate/", {}),
        ("POST", f"/api/v1/members/{a.pk}/context-bundle/", {"scope_id": "s-1"}),
    ):
        response = call(live_server, path, b_token, method, body)
        assert_envelope(response)
        assert response.status in (403, 404), (path, response.status, response.body)
        assert "attack-idor" not in str(response.body) and ORDINARY not in str(response.body)
    listed = call(live_server, f"{me}/continuation-tokens/", b_token)
    assert listed.body["results"] == []
    assert state == (
        list(MemoryEntry.objects.filter(member=a).values_list("lifecycle", "revision_id", "body")),
        ConsentEvent.objects.filter(member=a).count(),
        row_state(row.pk),
    )


CSRF = "a" * 32  # an unmasked CSRF secret: the cookie and the form field agree


def page(live_server, member, path: str, form: dict | None = None) -> tuple[int, str]:
    """A signed-in browser's round trip (GET, or a form POST with its CSRF token)."""
    browser = Client()
    browser.force_login(member)
    session = browser.cookies[settings.SESSION_COOKIE_NAME].value
    data = None if form is None else urllib.parse.urlencode({**form, "csrfmiddlewaretoken": CSRF})
    request = urllib.request.Request(  # noqa: S310
        f"{live_server.url}{path}",
        data=None if data is None else data.encode(),
        method="GET" if form is None else "POST",
    )
    request.add_header(
        "Cookie", f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={CSRF}"
    )
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_a_member_reaches_none_of_another_members_objects_through_the_member_pages(
    live_server,
):
    """Member B opens and submits every member page that takes one of A's entry ids:
    404 each time, A's entry unchanged; A's own page shows A's cards, never a sensitive
    token away from its device."""
    a, b = consenting_member(), consenting_member()
    grant = record(a, "cross_device").event
    entry = remember(a, subject="coffee", body="attack-idor: coffee black").entry
    _plain_slot(live_server, a)
    _sensitive_token(live_server, a, service("psyche"), grant)
    consent(live_server, a, "cross_device", "withdrawal")
    state = list(
        MemoryEntry.objects.filter(member=a).values_list("lifecycle", "revision_id", "body")
    )
    base = f"/profile/memory/{entry.pk}"
    for path, form in (
        (f"{base}/", None),
        (f"{base}/history/", None),
        (f"{base}/edit/", None),
        (f"{base}/forget/", None),
        (f"{base}/scope/", None),
        (f"{base}/edit/", {"body": "rewritten by B", "subject": "x", "category": "preference"}),
        (f"{base}/pause/", {"ends_at": ""}),
        (f"{base}/resume/", {}),
        (f"{base}/forget/", {}),
        (f"{base}/scope/", {"kind": "notebook", "notebook_id": "n-1"}),
    ):
        status, text = page(live_server, b, path, form)
        assert status == 404, (path, status)
        assert "attack-idor" not in text
    assert state == list(
        MemoryEntry.objects.filter(member=a).values_list("lifecycle", "revision_id", "body")
    )
    status, own = page(live_server, a, "/profile/memory/")
    assert status == 200
    assert "Chapter 4" in own  # A's ordinary card
    assert ANCHOR not in own  # the sensitive one, away from its device without the grant
    status, other = page(live_server, b, "/profile/memory/")
    assert status == 200 and "Chapter 4" not in other and "attack-idor" not in other


def _plain_slot(live_server, member) -> str:
    written = call(
        live_server,
        f"/api/v1/members/{member.pk}/continuation-tokens/",
        service("tara"),
        "PUT",
        token_body(member.pk),
    )
    assert written.status == 201, written.body
    return written.body["id"]


# --- bad input on the new parameters ---------------------------------------------------

BUNDLE_BODIES = [
    {"surface": "ADMIN"},
    {"surface": 5},
    {"surface": ["assistant"]},
    {"surface": ""},
    {"surface": "a" * 40},
    {"surface": "admin"},
    {"context": "HEALTH"},
    {"context": None},
    {"context": ["health"]},
    {"context": {"health": True}},
    {"context": 3},
    {"scope_kind": "bogus"},
    {"scope_kind": "admin_session"},
    {"scope_id": "s\x00x"},
    {"scope_id": "\ud800"},
    {"scope_id": "a:b"},
    {"scope_id": "x" * 129},
    {"query": "coffee\x00"},
    {"query": "q" * 20_000},
    {"include_episodic": "maybe"},
    {"tenant_id": str(uuid.uuid4())},
    {"device_id": "phone-1"},
    {"capabilities": {"contexts": ["health"]}},
]


def test_bad_bundle_bodies_are_4xx_with_the_envelope(live_server):
    member = consenting_member()
    token = service("veritas")
    for overrides in BUNDLE_BODIES:
        response = bundle(live_server, member, token, **overrides)
        assert_envelope(response)
    url = f"{live_server.url}/api/v1/members/{member.pk}/context-bundle/"
    for raw in (b"[]", b'"s-1"', b"null", b'{"scope_id": "s-1", "query": NaN}', b"{", b"\xff"):
        response = _raw_post(url, token, raw)
        assert_envelope(response)
    assert not AuditEvent.objects.filter(action="hierarchy.bundle.resolved").exists()
    # An optional field sent as null is left out (the contract publishes it nullable).
    for overrides in ({"surface": None}, {"scope_kind": None}):
        assert bundle(live_server, member, token, **overrides).status == 200


def _raw_post(url: str, token: str, raw: bytes) -> HttpResponse:
    """`http_request` for a body that is not JSON (it only sends what `json.dumps` makes)."""
    request = urllib.request.Request(url, data=raw, method="POST")  # noqa: S310
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            status, body, headers = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        status, body, headers = error.code, error.read(), dict(error.headers)
    return HttpResponse(status, json.loads(body) if body else {}, headers)


BAD_QUERIES = [
    ("stm-list", ""),
    ("stm-list", "scope_id="),
    ("stm-list", "scope_id=s-1&context=HEALTH"),
    ("stm-list", "scope_id=s-1&context=health%00"),
    ("stm-list", "scope_id=s%00x"),
    ("stm-list", "scope_id=%ED%A0%80"),
    ("stm-list", "scope_id=s-1&scope_kind=bogus"),
    ("stm-list", "scope_id=s-1&scope_kind=admin_session"),
    ("stm-list", "scope_id=s-1&cursor=garbage"),
    ("stm-list", "scope_id=s-1&cursor=bz0tMQ%3D%3D"),  # a forged cursor: offset -1
    ("refresh", "context=HEALTH"),
    ("refresh", "context=%00"),
    ("refresh", "context=health"),
    ("consolidate", "context=HEALTH"),
    ("consolidate", "context=%ff"),
    ("consolidate", "context=health"),
    ("tokens", "device_id=%00"),
    ("tokens", "device_id=" + "x" * 200),
    ("tokens", "device_id=a%20b"),
    ("tokens", "limit=0"),
    ("tokens", "limit=51"),
    ("tokens", "limit=abc"),
    ("tokens", "surface=bogus"),
    ("tokens", "surface=tara"),
    ("resume", "device_id=%00"),
    ("resume", "device_id=" + "x" * 200),
]


@pytest.mark.parametrize(("endpoint", "query"), BAD_QUERIES)
def test_bad_query_parameters_are_4xx_with_the_envelope(live_server, endpoint, query):
    member = consenting_member()
    row = stm_write(member, content=ORDINARY)
    veritas, psyche = service("veritas"), service("psyche")
    members = f"/api/v1/members/{member.pk}"
    if endpoint == "stm-list":
        response = call(live_server, f"{members}/short-term/?{query}", veritas)
    elif endpoint == "refresh":
        response = refresh(live_server, member, row.pk, veritas, query)
    elif endpoint == "consolidate":
        response = consolidate(live_server, row.pk, veritas, query)
    elif endpoint == "tokens":
        response = call(live_server, f"{members}/continuation-tokens/?{query}", psyche)
    else:
        response = call(
            live_server, f"{members}/continuation-tokens/{uuid.uuid4()}/resume/?{query}", psyche
        )
    assert_envelope(response)
    assert row_state(row.pk)[1:4] == (None, None, None)


@pytest.mark.parametrize(
    "body",
    [
        {"ttl_seconds": -1},
        {"ttl_seconds": 0},
        {"ttl_seconds": "x"},
        {"ttl_seconds": 10**30},
        {"ttl_seconds": 1.5},
        {"ttl_seconds": 60, "context": "health"},
        [],
        "ttl",
    ],
)
def test_bad_refresh_bodies_of_a_visible_row_are_4xx_and_change_nothing(live_server, body):
    member = consenting_member()
    row = stm_write(member, content=ORDINARY)
    before = row_state(row.pk)
    response = refresh(live_server, member, row.pk, service("assistant"), body=body)
    assert_envelope(response, 400)
    assert row_state(row.pk) == before


@pytest.mark.parametrize(
    "body",
    [
        {"scope": "profile"},
        {"scope": {"kind": "bogus"}},
        {"scope": {"kind": "session"}},
        {"scope": {"kind": "profile", "user_id": str(uuid.uuid4())}},
        {"scope": {"kind": "tenant", "tenant_id": str(uuid.uuid4())}},
        {"subject": "s" * 201},
        {"origin": "bogus"},
        {"confidence": 2},
        {"confidence": "high"},
        {"explicit": "perhaps"},
        {"entry_id": "not-a-uuid"},
        {"entry_id": str(uuid.uuid4())},
        {"context": "health"},
        [],
    ],
)
def test_bad_consolidate_bodies_of_a_visible_row_are_4xx_and_change_nothing(live_server, body):
    member = consenting_member()
    row = stm_write(member, content=ORDINARY)
    before = row_state(row.pk)
    response = consolidate(live_server, row.pk, service("assistant"), body=body)
    assert_envelope(response)
    assert row_state(row.pk) == before
    assert not MemoryEntry.objects.filter(member=member).exists()
