"""`Idempotency-Key` on every retryable write, over real HTTP (`live_server`): a retry
with the same key and body replays the first answer and stores nothing new; another body
is 409; an expired key runs again; a resource since forgotten or erased is 410; and, on
PostgreSQL, six retries sent at once store exactly one row."""

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from consent.models import ConsentEvent
from continuity.models import ContinuationToken
from datarights.models import DataRightsRequest
from hierarchy.models import ShortTermMemory
from inspection.models import InspectionRequest
from iris_site.idempotency import IDEMPOTENCY_TTL
from iris_site.models import IdempotencyRecord
from iris_site.services import token_issue
from memory.forgetting.dsar import memory_turns_purge
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import HttpResponse, http_request
from tests.continuity.factories import token_body
from tests.datarights.factories import EXPORT
from tests.hierarchy.stm_factories import write as stm_write_row
from tests.iris_site.factories import OperatorFactory, ServiceClientFactory
from tests.memory.factories import consenting_member
from tests.stepup import step_up_token

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 6


def send(url: str, *, token: str, body, key: str | None, method: str = "POST") -> HttpResponse:
    return http_request(url, method=method, token=token, body=body, key=key, timeout=30)


@dataclass
class Case:
    """One retryable endpoint, set up for one member."""

    name: str
    url: str
    token: str
    body: dict
    other_body: dict
    rows: Callable[[], int]
    method: str = "POST"
    status: int = 201
    # Whether running the write again (the key expired) stores another row.
    rerun_stores: bool = True
    # Forget or erase what the first answer created (None: nothing to forget).
    forget: Callable[[dict], None] | None = None
    # Answer fields that are live by design (a countdown): a replay renders them now.
    volatile: frozenset[str] = frozenset()

    def same(self, one: dict, other: dict) -> bool:
        def steady(body: dict) -> dict:
            return {k: v for k, v in body.items() if k not in self.volatile}

        return steady(one) == steady(other)

    def send(self, base: str, body=None, key: str | None = "key-1") -> HttpResponse:
        return send(
            base + self.url,
            token=self.token,
            body=self.body if body is None else body,
            key=key,
            method=self.method,
        )


def _token(owner) -> str:
    """A member's token is a step-up token: these retries follow a forget."""
    if getattr(owner, "is_member", False):
        return step_up_token(owner)
    return token_issue(owner=owner)[1]


def _forget_over_http(base: str, member_token: str) -> Callable[[dict], None]:
    def forget(answer: dict) -> None:
        entry_id = answer.get("entry_id") or answer["id"]
        response = send(
            f"{base}/api/v1/me/memories/{entry_id}/forget/", token=member_token, body={}, key=None
        )
        assert response.status == 200, response.body

    return forget


def _clear_over_http(base: str, member_token: str) -> Callable[[dict], None]:
    def clear(answer: dict) -> None:
        response = send(f"{base}/api/v1/me/memories/clear/", token=member_token, body={}, key=None)
        assert response.status == 201, response.body

    return clear


def build(name: str, base: str) -> Case:
    member = consenting_member()
    mine = _token(member)
    members = f"/api/v1/members/{member.pk}"
    assistant = _token(ServiceClientFactory(consumer="assistant"))
    entries = lambda: MemoryEntry.objects.filter(member=member).count()  # noqa: E731
    if name == "member-remember":
        body = {"scope": {"kind": "profile"}, "category": "preference", "body": "I take tea"}
        return Case(
            name,
            "/api/v1/me/memories/",
            mine,
            body,
            {**body, "body": "I take coffee"},
            entries,
            forget=_forget_over_http(base, mine),
            rerun_stores=False,  # the same fact in the same scope: `unchanged`
        )
    if name == "surface-remember":
        body = {
            "scope": {"kind": "session", "session_id": "s-1"},
            "category": "preference",
            "body": "likes long walks by the river",
            "origin": "model-inferred",
        }
        return Case(
            name,
            f"{members}/memories/",
            assistant,
            body,
            {**body, "body": "likes short walks in the park"},
            entries,
            forget=_forget_over_http(base, mine),
            rerun_stores=False,  # the same fact in the same scope: `unchanged`
        )
    if name == "turn":

        def purge(answer: dict) -> None:
            memory_turns_purge(member_id=member.pk, turn_ids=[answer["id"]], reason="test")

        return Case(
            name,
            f"{members}/sessions/s-1/turns/",
            assistant,
            {"speaker": "member", "text": "hello there"},
            {"speaker": "member", "text": "goodbye"},
            lambda: ConversationTurn.objects.filter(member=member).count(),
            forget=purge,
        )
    if name == "short-term":
        body = {
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": "prefers morning walks",
        }
        return Case(
            name,
            f"{members}/short-term/",
            assistant,
            body,
            {**body, "content": "prefers evening walks"},
            lambda: ShortTermMemory.objects.filter(member=member).count(),
            forget=_clear_over_http(base, mine),
        )
    if name == "consolidate":
        row = stm_write_row(member)
        return Case(
            name,
            f"{members}/short-term/{row.pk}/consolidate/",
            assistant,
            {"explicit": True},
            {"explicit": True, "subject": "walks"},
            entries,
            rerun_stores=False,  # already consolidated: 409
            forget=_forget_over_http(base, mine),
        )
    if name == "consent-event":
        return Case(
            name,
            "/api/v1/me/consents/events/",
            mine,
            {"consent_type": "category:medical", "kind": "grant"},
            {"consent_type": "category:health", "kind": "grant"},
            lambda: ConsentEvent.objects.filter(member=member).count(),
            rerun_stores=False,  # granting what is granted writes nothing
        )
    if name == "data-rights":
        return Case(
            name,
            "/api/v1/me/data-rights/",
            mine,
            {"kind": "export", "payload": EXPORT},
            {"kind": "export", "payload": {**EXPORT, "format": "csv"}},
            lambda: DataRightsRequest.objects.filter(member=member).count(),
            rerun_stores=False,  # one open request of a kind at a time
            volatile=frozenset({"ms_remaining_to_deadline"}),
        )
    if name == "inspection":
        body = {
            "target_user_id": str(member.pk),
            "scope": {"kind": "profile", "user_id": str(member.pk)},
            "justification": "Ticket 4411: the member asked why a memory surfaced.",
            "signed_incident_ref": None,
        }
        return Case(
            name,
            "/api/v1/operator/inspections/",
            _token(OperatorFactory(role="support")),
            body,
            {**body, "justification": "Ticket 4412: another question."},
            lambda: InspectionRequest.objects.filter(member=member).count(),
        )
    if name == "continuation-token":
        body = token_body(member.pk, idempotency_key="key-1")

        def erase(answer: dict) -> None:
            ContinuationToken.objects.filter(pk=answer["id"]).delete()

        return Case(
            name,
            f"{members}/continuation-tokens/",
            _token(ServiceClientFactory(consumer="tara")),
            body,
            {**body, "posture": "paused"},
            lambda: ContinuationToken.objects.filter(member=member).count(),
            method="PUT",
            rerun_stores=False,  # one slot per scope: a rerun replaces it
            forget=erase,
        )
    raise AssertionError(name)


ENDPOINTS = [
    "member-remember",
    "surface-remember",
    "turn",
    "short-term",
    "consolidate",
    "consent-event",
    "data-rights",
    "inspection",
    "continuation-token",
]
FORGETTABLE = [
    "member-remember",
    "surface-remember",
    "turn",
    "short-term",
    "consolidate",
    "continuation-token",
]


@pytest.mark.parametrize("name", ENDPOINTS)
def test_a_retry_replays_the_first_answer_and_stores_nothing_new(live_server, name):
    case = build(name, live_server.url)
    first = case.send(live_server.url)
    assert first.status == case.status, first.body
    assert not first.replayed
    stored = case.rows()
    # when
    again = case.send(live_server.url)
    # then
    assert again.status == first.status and case.same(again.body, first.body)
    assert again.replayed
    assert case.rows() == stored
    [record] = IdempotencyRecord.objects.all()
    assert record.state == "completed" and record.status_code == case.status
    # nothing of the body is kept, not even in the reference
    kept = json.dumps([record.reference, record.fingerprint, record.key])
    for value in json.dumps(case.body).split('"'):
        if len(value) > 8 and " " in value:
            assert value not in kept


@pytest.mark.parametrize("name", ENDPOINTS)
def test_the_same_key_with_another_body_is_409(live_server, name):
    case = build(name, live_server.url)
    assert case.send(live_server.url).status == case.status
    stored = case.rows()
    response = case.send(live_server.url, body=case.other_body)
    assert response.status == 409, response.body
    error = response.body["error"]
    assert error["code"] == "idempotency-key-reused" and error["fields"]
    assert case.rows() == stored


@pytest.mark.parametrize("name", ENDPOINTS)
def test_an_expired_key_runs_the_write_again(live_server, name):
    case = build(name, live_server.url)
    assert case.send(live_server.url).status == case.status
    stored = case.rows()
    IdempotencyRecord.objects.update(
        created_at=timezone.now() - IDEMPOTENCY_TTL - timedelta(minutes=1)
    )
    again = case.send(live_server.url)
    assert not again.replayed, again.body
    assert case.rows() == stored + (1 if case.rerun_stores else 0)
    if 200 <= again.status < 300:
        [record] = IdempotencyRecord.objects.all()
        assert record.created_at > timezone.now() - timedelta(minutes=1)


@pytest.mark.parametrize("name", FORGETTABLE)
def test_a_retry_after_the_resource_is_forgotten_is_410_and_writes_nothing(live_server, name):
    case = build(name, live_server.url)
    first = case.send(live_server.url)
    assert first.status == case.status, first.body
    case.forget(first.body)
    stored = case.rows()
    again = case.send(live_server.url)
    assert again.status == 410, again.body
    assert again.body["error"]["code"] == "idempotency-resource-gone"
    assert case.rows() == stored


def test_a_forget_marks_the_key_gone_whatever_the_retry_sends(live_server):
    case = build("member-remember", live_server.url)
    first = case.send(live_server.url)
    case.forget(first.body)
    [record] = IdempotencyRecord.objects.all()
    assert (record.state, record.fingerprint, record.reference, record.member_id) == (
        "gone",
        "",
        {},
        None,
    )
    assert case.send(live_server.url, body=case.other_body).status == 410


def test_without_the_header_nothing_changes(live_server):
    case = build("member-remember", live_server.url)
    assert case.send(live_server.url, key=None).status == 201
    assert case.send(live_server.url, key=None).status in {200, 201}
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.parametrize("key", ["", "has space", "x" * 129, "tab\there"])
def test_a_malformed_key_is_400_and_writes_nothing(live_server, key):
    case = build("inspection", live_server.url)
    response = case.send(live_server.url, key=key)
    assert response.status == 400, response.body
    assert "Idempotency-Key" in response.body["error"]["fields"]
    assert case.rows() == 0 and not IdempotencyRecord.objects.exists()


def test_a_refused_write_frees_its_key(live_server):
    case = build("member-remember", live_server.url)
    refused = case.send(live_server.url, body={**case.body, "category": "no-such-category"})
    assert refused.status == 400
    assert not IdempotencyRecord.objects.exists()
    assert case.send(live_server.url, body={**case.body}).status == 201


def test_keys_belong_to_their_caller(live_server):
    first, second = (
        build("member-remember", live_server.url),
        build("member-remember", live_server.url),
    )
    assert first.send(live_server.url).status == 201
    answer = second.send(live_server.url)
    assert answer.status == 201 and not answer.replayed
    assert IdempotencyRecord.objects.count() == 2


# --- Concurrency (PostgreSQL: real row locks and a unique index under contention) -----------


@pytest.mark.parametrize("name", ENDPOINTS)
def test_simultaneous_retries_store_exactly_one_row(live_server, name):
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers: PostgreSQL only (SQLite has one write lock)")
    case = build(name, live_server.url)
    before = case.rows()
    key = "key-1"  # a continuation token's body carries the same key
    start = threading.Barrier(THREADS)
    answers: list[HttpResponse] = []
    errors: list[BaseException] = []

    def retry() -> None:
        try:
            start.wait(timeout=10)
            answers.append(case.send(live_server.url, key=key))
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=retry) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(answers) == THREADS
    # exactly one write ran; every other retry was replayed or told to wait
    assert case.rows() == before + 1
    originals = [a for a in answers if a.status == case.status and not a.replayed]
    assert len(originals) == 1, [(a.status, a.body) for a in answers]
    for answer in answers:
        if answer is originals[0]:
            continue
        if answer.status == 409:
            assert answer.body["error"]["code"] == "idempotency-in-progress"
            assert answer.headers.get("Retry-After") == "1"
        else:
            assert answer.replayed and case.same(answer.body, originals[0].body)
    [record] = IdempotencyRecord.objects.filter(key=key)
    assert record.state == "completed"
