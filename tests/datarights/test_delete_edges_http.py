"""Issue 41, bad input and edges of a data-rights delete, over real HTTP (`live_server`):

- a second request over a running one of its kind returns the running one (200, its
  receipt), and two submitted at once make one request that both answers name;
- a scoped hard delete completes for a member who forgot something before (it ended
  `failed / forget-incomplete`, its work state keeping the erased texts sealed), and the
  request keeps none of the erased text;
- an unknown scope kind is a 400 naming the field; another member's request is a 404
  to read, verify or cancel;
- a delete whose job crashes mid-way is resumed by the scheduler from its recorded
  steps, each run once, and leaves nothing of what it covers.

The member submits and verifies (the mailed code), forgets, reads and cancels over HTTP;
the job runs as the worker and the scheduler run it.
"""

import json
import re
import threading
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from datarights import processing
from datarights.enums import TrailEvent
from datarights.models import DataRightsRequest, VerificationCode
from datarights.selectors import STALLED_AFTER
from hierarchy.models import ShortTermMemory
from iris_site.models import AuditEvent
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import HttpResponse
from tests.datarights.factories import audit_for, process, trail_events
from tests.datarights.test_erasure_extents import (  # noqa: F401 - the outbox fixture
    LIST,
    Http,
    _outbox_and_fresh_cache,
    hard,
)
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db(transaction=True)

COFFEE = "I take my coffee black with a little cardamom"
DIAGNOSIS = "Diagnosed with coeliac disease in March"
SOURDOUGH = "I keep a sourdough starter called Gus in the fridge"
ROWING = "I rowed on the Thames in May with my cousin"
SAILING = "I like sailing on the lake near the cabin"
LISBON = "Let us plan the trip to Lisbon in the autumn"
HOTEL = "Find us a hotel near the river in Lisbon"
FLIGHTS = "looking at flights to Lisbon for Friday"
PROFILE = {"kind": "profile"}
SESSION = {"kind": "session", "session_id": "s-1"}
EXPORT = {"scopes": ["profile"], "format": "json", "delivery_channel": "download"}


class Member(Http):
    """`Http` (the member and their assistant over real HTTP) and the member's own API."""

    def submit(self, kind: str, payload: dict) -> HttpResponse:
        return self.call(LIST, self.me, "POST", {"kind": kind, "payload": payload})

    def receipt(self, request_id, token: str | None = None) -> HttpResponse:
        return self.call(f"{LIST}{request_id}/", token or self.me)

    def remember(self, body: str, **fields) -> str:
        response = self.call(
            "/api/v1/me/memories/",
            self.me,
            "POST",
            {
                "body": body,
                "subject": body[:20],
                "category": "preference",
                "scope": PROFILE,
                **fields,
            },
        )
        assert response.status == 201, response.body
        return response.body["id"]

    def forget(self, entry_id: str) -> None:
        response = self.call(f"/api/v1/me/memories/{entry_id}/forget/", self.me, "POST")
        assert response.status == 200, response.body


def _stable(receipt: dict) -> dict:
    """A receipt without its clock (the milliseconds left move between two reads)."""
    return {k: v for k, v in receipt.items() if k != "ms_remaining_to_deadline"}


def _row_text(request: DataRightsRequest) -> str:
    """Every column of the request's row, as stored, and its trail rows."""
    row = DataRightsRequest.objects.filter(pk=request.pk).values().get()
    trail = list(request.trail.values())
    return json.dumps([row, trail], default=str).casefold()


# --- a second request over a running one ---------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "payload", "other"),
    [
        ("delete", hard("profile"), hard("session")),
        ("export", EXPORT, {**EXPORT, "scopes": ["session"]}),
    ],
)
def test_a_second_request_over_a_running_one_returns_the_running_one(
    live_server, kind, payload, other
):
    """It used to be a 409 `request-already-open`: a retrying client or a double-click
    got an error instead of the request it had made."""
    member = consenting_member()
    http = Member(live_server, member)
    mail.outbox.clear()
    first = http.submit(kind, payload)
    assert first.status == 201, first.body
    # when: the same again, then another payload of that kind, while it waits for its code
    for body in (payload, other):
        again = http.submit(kind, body)
        # then: the running request, as the receipt shows it; nothing new made or mailed
        assert again.status == 200, again.body
        assert again.body["id"] == first.body["id"]
        assert again.body["payload"] == first.body["payload"]
        assert _stable(again.body) == _stable(http.receipt(first.body["id"]).body)
    assert DataRightsRequest.objects.filter(member=member).count() == 1
    assert len(mail.outbox) == 1
    request = DataRightsRequest.objects.get(pk=first.body["id"])
    assert VerificationCode.objects.filter(request=request).count() == 1
    assert trail_events(request) == ["submitted", "code-issued"]
    # verified (and so queued), it is still the one answered
    code = re.search(r"code is (\d{6})", mail.outbox[0].body).group(1)
    verified = http.call(first.body["verification"]["verify_url"], http.me, "POST", {"code": code})
    assert verified.status == 200 and verified.body["status"] == "verified", verified.body
    again = http.submit(kind, other)
    assert again.status == 200 and again.body["id"] == first.body["id"]
    assert again.body["status"] == "verified"
    # once it has finished, the next request is a new one
    assert process(request).status == "completed", request.progress
    after = http.submit(kind, other)
    assert after.status == 201 and after.body["id"] != first.body["id"], after.body


def test_two_deletes_submitted_at_once_make_one_request_both_answers_name(live_server):
    member = consenting_member()
    http = Member(live_server, member)
    mail.outbox.clear()
    start = threading.Barrier(2)
    answers: list[HttpResponse] = []
    errors: list[BaseException] = []

    def submit() -> None:
        try:
            start.wait(timeout=10)
            answers.append(http.submit("delete", hard("profile")))
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(a.status for a in answers) == [200, 201], [(a.status, a.body) for a in answers]
    [request] = DataRightsRequest.objects.filter(member=member)
    assert {a.body["id"] for a in answers} == {str(request.pk)}
    assert len(mail.outbox) == 1
    assert trail_events(request) == ["submitted", "code-issued"]


# --- a scoped hard delete for someone who forgot before ---------------------------------------


def test_a_scoped_hard_delete_completes_for_a_member_who_forgot_something_before(live_server):
    """The `(forgotten)` placeholder was collected as erased text and found again in the
    member's other tombstones: the request ended `failed / forget-incomplete` after it
    had purged the entries, keeping the erased texts sealed in its work state."""
    # given: memories in profile and session scope, one of each forgotten over the API
    member = consenting_member("category:medical")
    http = Member(live_server, member)
    http.forget(http.remember(SOURDOUGH))
    http.forget(http.remember(ROWING, scope=SESSION))
    http.remember(COFFEE)
    http.remember(DIAGNOSIS, category="medical")
    kept = http.remember(SAILING, scope=SESSION)
    # when: the member hard-deletes the profile scope
    request = process(http.delete(hard("profile")))
    # then: it completed, as the member reads it
    receipt = http.receipt(request.pk)
    assert receipt.status == 200, receipt.body
    assert receipt.body["status"] == "completed", (receipt.body, request.progress)
    assert receipt.body["failure_code"] is None and receipt.body["result_fingerprint"]
    assert not AuditEvent.objects.filter(action="datarights.forget_check.failed").exists()
    # the profile's memories are gone, the session's stay as they were
    assert not MemoryEntry.objects.filter(member=member, scope_kind="profile").exists()
    assert MemoryEntry.objects.get(pk=kept).body == SAILING
    # and the request keeps nothing of the erased text, anywhere in its row or trail
    request.refresh_from_db()
    assert request.work_state == ""
    kept_text = _row_text(request) + json.dumps(receipt.body).casefold()
    for text in (COFFEE, DIAGNOSIS, SOURDOUGH):
        assert text.casefold() not in kept_text, text


# --- bad input ----------------------------------------------------------------------------


def test_a_delete_of_an_unknown_scope_kind_is_400_naming_the_field(live_server):
    member = consenting_member()
    http = Member(live_server, member)
    response = http.submit("delete", hard("profile", "no-such-scope"))
    assert response.status == 400, response.body
    error = response.body["error"]
    assert error["code"] == "invalid"
    assert list(error["fields"]) == ["payload.scopes.1"], error
    # an unknown kind of request names its field too
    response = http.submit("forget-everything", hard("profile"))
    assert response.status == 400 and list(response.body["error"]["fields"]) == ["kind"]
    assert not DataRightsRequest.objects.filter(member=member).exists()


def test_another_members_request_is_404_to_read_verify_or_cancel(live_server):
    owner, stranger = consenting_member(), consenting_member()
    mine = Member(live_server, owner)
    theirs = Member(live_server, stranger)
    submitted = mine.submit("delete", hard("profile"))
    assert submitted.status == 201, submitted.body
    request_id = submitted.body["id"]
    for method, suffix, body in (
        ("GET", "", None),
        ("POST", "verify/", {"code": "123456"}),
        ("POST", "cancel/", None),
    ):
        response = theirs.call(f"{LIST}{request_id}/{suffix}", theirs.me, method, body)
        assert response.status == 404, (suffix, response.status, response.body)
        assert response.body["error"]["code"] == "not_found"
    assert theirs.call(LIST, theirs.me).body["results"] == []
    # the owner's request is as it was
    assert mine.receipt(request_id).body["status"] == "submitted"
    assert trail_events(DataRightsRequest.objects.get(pk=request_id)) == [
        "submitted",
        "code-issued",
    ]


# --- a crash mid-way --------------------------------------------------------------------------


class Crash(RuntimeError):
    pass


def test_a_delete_interrupted_by_a_crash_resumes_from_its_recorded_steps(live_server, monkeypatch):
    # given: session memory (two entries, a conversation log no entry repeats, a user
    # session's working memory) and a profile memory the delete does not cover
    member = consenting_member()
    http = Member(live_server, member)
    http.remember(LISBON, scope=SESSION)
    http.remember(ROWING, scope=SESSION)
    profile = http.remember(COFFEE)
    http.turn("s-1", HOTEL)
    http.turn("s-1", "And somewhere to eat grilled sardines")
    http.short_term("user_session", "s-1", FLIGHTS)
    request = http.delete(hard("session"))
    # when: the worker dies inside the member-wide erasure, after it erased the log
    real = processing.memory_erase

    def crash_after_erasing(**kwargs):
        real(**kwargs)
        raise Crash("worker died before the step was recorded")

    monkeypatch.setattr(processing, "memory_erase", crash_after_erasing)
    with pytest.raises(Crash):
        processing.datarights_process(request_id=request.pk)
    monkeypatch.undo()
    # then: the steps before it are recorded, the interrupted one left nothing half-done
    request.refresh_from_db()
    assert request.status == "in-progress"
    assert request.progress["done"] == ["snapshot", "collect-text", "erase-entries"]
    assert not MemoryEntry.objects.filter(member=member, scope_kind="session").exists()
    assert ConversationTurn.objects.filter(member=member).count() == 2  # rolled back whole
    assert ShortTermMemory.objects.filter(member=member).count() == 1
    assert http.receipt(request.pk).body["status"] == "in-progress"
    # when: the scheduler finds it stalled and resumes it
    later = timezone.now() + STALLED_AFTER + timedelta(minutes=1)
    assert processing.datarights_run_due(now=later)["resumed"] == 1
    # then: it completed, as the member reads it, with nothing left of what it covered
    receipt = http.receipt(request.pk)
    assert receipt.body["status"] == "completed", (receipt.body, request.progress)
    request.refresh_from_db()
    assert request.work_state == ""
    assert not MemoryEntry.objects.filter(member=member, scope_kind="session").exists()
    assert not ConversationTurn.objects.filter(member=member).exists()
    assert not ShortTermMemory.objects.filter(member=member).exists()
    assert http.listed("s-1") == ([], {})
    assert MemoryEntry.objects.get(pk=profile).body == COFFEE
    kept_text = _row_text(request)
    for text in (LISBON, ROWING, HOTEL, FLIGHTS):
        assert text.casefold() not in kept_text, text
    # each recorded step ran once: one trail row, one audit event, one purge of each store
    steps = list(
        request.trail.filter(event=TrailEvent.STEP_COMPLETED)
        .order_by("sequence")
        .values_list("detail", flat=True)
    )
    names = [detail["step"] for detail in steps]
    assert names == ["snapshot", "collect-text", "erase-entries", "erase-member-stores"]
    audited = [e.payload["step"] for e in audit_for(request, "datarights.request.step_completed")]
    assert sorted(audited) == sorted(names)
    assert request.progress["done"] == names
    for action in ("memory.entries.purged", "memory.turns.purged"):
        assert AuditEvent.objects.filter(action=action, target_member_id=member.pk).count() == 1
    assert trail_events(request).count("completed") == 1
    assert [row["status"] for row in receipt.body["audit_trail"]].count("completed") == 1
