"""Re-confirmation, closed loop over the member API: the freshness job's request for a
stale, low-confidence inference reaches the member as a `reconfirm` notice ("Is this
still true?") in `GET /api/v1/me/notices/`; `confirm` makes it the member's confirmed
word (confidence up, freshness reset) and closes the request; `forget` erases it; an edit
through the edit API settles it too. Audited with ids only."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hierarchy.freshness_job import freshness_confidence_run
from hierarchy.models import ReconfirmRequest
from iris_site.models import AuditEvent
from memory.forgetting.erasure import FORGOTTEN_BODY, memory_erasure_residue
from memory.models import MemoryEntry, MemoryNotice
from memory.policy.freshness import freshness, staleness
from memory.policy.storage import confidence_for_origin
from tests.conftest import bearer_client
from tests.memory.factories import assert_no_audit_mentions, consenting_member, remember
from tests.stepup import step_up_client

pytestmark = pytest.mark.django_db

NOTICES = "/api/v1/me/notices/"
BODY = "Prefers calls after the kestrel-lantern meeting"


def stale_inference(member, body=BODY, subject="calls"):
    entry = remember(member, subject=subject, body=body, origin="model-inferred").entry
    MemoryEntry.objects.filter(pk=entry.pk).update(updated_at=timezone.now() - timedelta(days=90))
    return MemoryEntry.objects.get(pk=entry.pk)


def queued(member, body=BODY):
    entry = stale_inference(member, body)
    report = freshness_confidence_run()
    assert report.enqueued >= 1
    return entry, ReconfirmRequest.objects.get(entry_id=entry.pk, state="open")


def listed(client) -> list[dict]:
    response = client.get(NOTICES)
    assert response.status_code == 200
    return [n for n in response.json()["results"] if n["kind"] == "reconfirm"]


def answer(client, notice_id, **body):
    return client.post(f"{NOTICES}{notice_id}/answer/", body, format="json")


def test_the_request_reaches_the_member_as_one_notice():
    member = consenting_member()
    client = bearer_client(member)
    entry, _ = queued(member)
    freshness_confidence_run()  # again: still one request, one notice

    [notice] = listed(client)

    assert (notice["entry_id"], notice["entry_body"], notice["state"]) == (
        str(entry.pk),
        BODY,
        "open",
    )
    assert notice["proposed_entry_id"] is None
    assert MemoryNotice.objects.filter(entry=entry, kind="reconfirm").count() == 1
    assert ReconfirmRequest.objects.filter(entry_id=entry.pk).count() == 1
    # another member never sees it
    assert listed(bearer_client(consenting_member())) == []


def test_confirm_raises_confidence_resets_freshness_and_closes_the_request():
    member = consenting_member()
    client = bearer_client(member)
    entry, request = queued(member)
    before = staleness(
        origin=entry.origin,
        confidence=entry.confidence,
        asserted_at=entry.updated_at,
        now=timezone.now(),
    )
    assert before.stale
    [notice] = listed(client)

    response = answer(client, notice["id"], answer="confirm")

    assert response.status_code == 200, response.json()
    assert response.json()["state"] == "confirmed"
    entry.refresh_from_db()
    assert entry.origin == "user-confirmed"
    assert entry.confidence == confidence_for_origin("user-confirmed") > before.effective_confidence
    now = timezone.now()
    assert freshness(origin=entry.origin, asserted_at=entry.updated_at, now=now) == pytest.approx(
        1.0, abs=1e-4
    )
    after = staleness(
        origin=entry.origin, confidence=entry.confidence, asserted_at=entry.updated_at, now=now
    )
    assert not after.stale and after.effective_confidence > before.effective_confidence
    # over the API, the entry says so too
    detail = client.get(f"/api/v1/me/memories/{entry.pk}/").json()
    assert (detail["origin"], detail["confidence"]) == ("user-confirmed", entry.confidence)
    request.refresh_from_db()
    assert request.state == "resolved" and request.resolved_at is not None
    assert listed(client)[0]["state"] == "confirmed"
    answered = AuditEvent.objects.get(action="memory.reconfirm.answered")
    assert answered.payload == {"entry_id": str(entry.pk), "answer": "confirmed"}
    resolved = AuditEvent.objects.get(action="hierarchy.freshness_confidence.resolved")
    assert resolved.payload["reconfirm_request_id"] == str(request.pk)
    assert_no_audit_mentions("kestrel-lantern")
    # answered once
    again = answer(client, notice["id"], answer="confirm")
    assert again.status_code == 409 and again.json()["error"]["code"] == "notice-answered"
    # and the next run does not ask again
    assert freshness_confidence_run().enqueued == 0


def test_forget_erases_the_memory_everywhere_and_closes_the_request():
    member = consenting_member()
    client = step_up_client(member)  # forgetting needs a recent re-authentication
    entry, request = queued(member)
    [notice] = listed(client)
    refused = answer(bearer_client(member), notice["id"], answer="forget")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "reauthentication-required"

    response = answer(client, notice["id"], answer="forget")

    assert response.status_code == 200, response.json()
    assert response.json()["state"] == "forgotten"
    assert response.json()["entry_body"] == FORGOTTEN_BODY
    entry.refresh_from_db()
    assert entry.lifecycle == "tombstoned" and entry.body == FORGOTTEN_BODY
    assert (
        memory_erasure_residue(
            member_id=member.pk, entry_ids=[str(entry.pk)], texts=[BODY], purge=False
        )
        == {}
    )
    assert listed(client) == []  # the notice went with the memory
    request.refresh_from_db()
    assert request.state == "resolved"
    assert_no_audit_mentions("kestrel-lantern")


def test_an_edit_through_the_edit_api_settles_it():
    member = consenting_member()
    client = bearer_client(member)
    entry, request = queued(member)

    edited = client.patch(
        f"/api/v1/me/memories/{entry.pk}/",
        {"body": "Prefers calls in the morning", "revision_id": str(entry.revision_id)},
        format="json",
    )

    assert edited.status_code == 200, edited.json()
    assert listed(client)[0]["state"] == "edited"
    request.refresh_from_db()
    assert request.state == "resolved"


def test_the_answer_must_fit_the_question():
    member = consenting_member()
    client = bearer_client(member)
    queued(member)
    [notice] = listed(client)
    for body in ({"accept": True}, {}, {"answer": "maybe"}):
        refused = answer(client, notice["id"], **body)
        assert refused.status_code == 400, body
    # a conflict question still takes `accept`, not `answer`
    remember(member, subject="coffee", body="I take my coffee black")
    asked = remember(member, subject="coffee", body="takes oat milk", origin="model-inferred")
    conflict = asked.notice
    assert answer(client, conflict.pk, answer="confirm").status_code == 400
    assert answer(client, conflict.pk, accept=False).status_code == 200
    # another member's notice is not found
    assert (
        answer(bearer_client(consenting_member()), notice["id"], answer="confirm").status_code
        == 404
    )
