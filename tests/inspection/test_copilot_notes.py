"""The operator path for copilot notes, over real HTTP: only the operator an inspection
was granted to, while it is granted and inside its time box, adds an `operator-copilot`
note about the inspected member; everyone and everything else is refused and nothing is
stored; the note is audited with ids only and never reaches a surface's recall or
context bundle."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from inspection.models import InspectionRequest
from inspection.services import (
    ACTION_COPILOT_NOTE,
    ACTION_COPILOT_NOTE_REFUSED,
    inspection_transition,
)
from iris_site.audit.refusals import WRITE_REFUSED_ACTION
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.models import MemoryEntry
from tests.conftest import http_request
from tests.inspection.factories import granted, inspection_audit, member_with_memory
from tests.iris_site.factories import MemberFactory, OperatorFactory, ServiceClientFactory

pytestmark = pytest.mark.django_db(transaction=True)

NOTE = "Member gets the wrong reminder on Tuesdays; check the timezone handling"
BODY = {"body": NOTE, "category": "preference", "subject": "reminders"}


def token_of(principal) -> str:
    _, raw = token_issue(owner=principal)
    return raw


def notes_url(live_server, inspection) -> str:
    pk = inspection.pk if hasattr(inspection, "pk") else inspection
    return f"{live_server.url}/api/v1/operator/inspections/{pk}/copilot-notes/"


def copilot_entries(member):
    return MemoryEntry.objects.filter(member=member, origin="operator-copilot")


def assert_note_nowhere_in_the_chain():
    for event in AuditEvent.objects.all():
        payload = json.dumps(event.payload)
        assert "Tuesdays" not in payload and "timezone handling" not in payload, event.action


@pytest.fixture
def world():
    member, _entries = member_with_memory()
    operator = OperatorFactory(role="support")
    inspection = granted(operator, member)
    return member, operator, inspection


def test_the_granted_operator_adds_a_note_stored_as_operator_copilot(live_server, world):
    member, operator, inspection = world
    # when
    response = http_request(
        notes_url(live_server, inspection), method="POST", token=token_of(operator), body=BODY
    )
    # then
    assert response.status == 201, response.body
    [entry] = copilot_entries(member)
    assert response.body == {
        "entry_id": str(entry.pk),
        "inspection_id": str(inspection.pk),
        "scope": {
            "kind": "operator-copilot",
            "user_id": str(member.pk),
            "operator_id": str(operator.pk),
        },
        "category": "preference",
        "origin": "operator-copilot",
        "lifecycle": entry.lifecycle,
        "created": True,
    }
    assert (entry.scope_kind, entry.operator_id, entry.body) == (
        "operator-copilot",
        operator.pk,
        NOTE,
    )
    [audit] = inspection_audit(inspection, ACTION_COPILOT_NOTE)
    assert audit.payload["entry_id"] == str(entry.pk)
    assert audit.actor_type == "operator" and audit.actor_id == operator.pk
    assert audit.target_member_id == member.pk
    assert NOTE not in json.dumps(response.body)
    assert_note_nowhere_in_the_chain()
    # The member sees what an operator noted about them, on their own memory list.
    own = http_request(f"{live_server.url}/api/v1/me/memories/", token=token_of(member))
    assert own.status == 200
    [listed] = [e for e in own.body["results"] if e["id"] == str(entry.pk)]
    assert listed["origin"] == "operator-copilot" and listed["body"] == NOTE


def test_another_operator_a_member_and_a_service_client_are_refused(live_server, world):
    member, _operator, inspection = world
    url = notes_url(live_server, inspection)
    other = OperatorFactory(role="support")
    admin = OperatorFactory(role="admin")  # oversight sees the request, may not write in it
    answers = {
        "other-operator": http_request(url, method="POST", token=token_of(other), body=BODY),
        "admin": http_request(url, method="POST", token=token_of(admin), body=BODY),
        "member": http_request(url, method="POST", token=token_of(member), body=BODY),
        "other-member": http_request(
            url, method="POST", token=token_of(MemberFactory()), body=BODY
        ),
        "service": http_request(
            url, method="POST", token=token_of(ServiceClientFactory()), body=BODY
        ),
        "anonymous": http_request(url, method="POST", body=BODY),
    }
    assert {who: r.status for who, r in answers.items()} == {
        "other-operator": 404,
        "admin": 403,
        "member": 403,
        "other-member": 403,
        "service": 403,
        "anonymous": 401,
    }
    assert answers["admin"].body["error"]["code"] == "not-request-owner"
    assert not copilot_entries(member).exists()
    [refused] = inspection_audit(inspection, ACTION_COPILOT_NOTE_REFUSED)
    assert refused.actor_id == admin.pk and refused.payload["refusal"] == "not-request-owner"
    assert_note_nowhere_in_the_chain()


def test_a_closed_or_expired_inspection_takes_no_note(live_server, world):
    member, operator, inspection = world
    token = token_of(operator)
    # the time box has run out (the close job has not run yet)
    InspectionRequest.objects.filter(pk=inspection.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    expired = http_request(
        notes_url(live_server, inspection), method="POST", token=token, body=BODY
    )
    assert expired.status == 409 and expired.body["error"]["code"] == "grant-expired"
    # a closed one
    second = granted(operator, member)
    inspection_transition(inspection=second, to="closed", operator=operator)
    closed = http_request(notes_url(live_server, second), method="POST", token=token, body=BODY)
    assert closed.status == 409 and closed.body["error"]["code"] == "inspection-not-granted"
    assert not copilot_entries(member).exists()
    refusals = [
        e.payload["refusal"]
        for e in AuditEvent.objects.filter(action=ACTION_COPILOT_NOTE_REFUSED).order_by("sequence")
    ]
    assert refusals == ["grant-expired", "inspection-not-granted"]


def test_a_memory_policy_refusal_is_audited_as_a_refused_write(live_server, world):
    member, operator, inspection = world
    response = http_request(
        notes_url(live_server, inspection),
        method="POST",
        token=token_of(operator),
        body={**BODY, "category": "medical"},  # no medical consent: the storage gate says no
    )
    assert response.status == 422, response.body
    assert not copilot_entries(member).exists()
    [event] = AuditEvent.objects.filter(action=WRITE_REFUSED_ACTION, target_member_id=member.pk)
    assert event.payload["write"] == "copilot-note"
    assert event.payload["reason"] == response.body["error"]["code"]
    assert event.payload["consumer"] == "admin"
    assert event.payload["scope_kind"] == "operator-copilot"
    assert event.payload["inspection_id"] == str(inspection.pk)
    assert_note_nowhere_in_the_chain()


def test_an_invalid_note_is_400_and_stores_nothing(live_server, world):
    member, operator, inspection = world
    response = http_request(
        notes_url(live_server, inspection),
        method="POST",
        token=token_of(operator),
        body={"category": "preference"},
    )
    assert response.status == 400 and "body" in response.body["error"]["fields"]
    assert not copilot_entries(member).exists()


def test_a_surface_s_recall_and_context_bundle_never_return_the_note(live_server, world):
    member, operator, inspection = world
    added = http_request(
        notes_url(live_server, inspection), method="POST", token=token_of(operator), body=BODY
    )
    assert added.status == 201
    entry_id = added.body["entry_id"]
    surface = token_of(ServiceClientFactory(consumer="assistant"))
    base = f"{live_server.url}/api/v1/members/{member.pk}"
    answers = []
    for scope in ({"kind": "profile"}, {"kind": "session", "session_id": "s-1"}):
        recall = http_request(
            f"{base}/recall/",
            method="POST",
            token=surface,
            body={"surface": "assistant", "scope": scope, "query": "reminder Tuesdays timezone"},
        )
        assert recall.status == 200, recall.body
        answers.append(recall)
    # Asking for the copilot scope itself is refused outright.
    asked = http_request(
        f"{base}/recall/",
        method="POST",
        token=surface,
        body={
            "surface": "assistant",
            "scope": {"kind": "operator-copilot", "operator_id": str(operator.pk)},
            "query": "reminder",
        },
    )
    assert asked.status == 403, asked.body
    bundle = http_request(
        f"{base}/context-bundle/",
        method="POST",
        token=surface,
        body={"scope_id": "s-1", "query": "reminder Tuesdays timezone", "include_episodic": True},
    )
    assert bundle.status == 200, bundle.body
    answers.append(bundle)
    for answer in answers:
        text = json.dumps(answer.body)
        assert entry_id not in text and "Tuesdays" not in text and "operator-copilot" not in text
