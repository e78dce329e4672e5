"""Refused writes are audited: one `memory.write.refused` event per refusal (write kind,
reason code, status, consumer, scope kind; never content), written after the refused
write rolled back, on every write path: remember, turn append, short-term writes
(consolidation keeps its own action with the same payload shape)."""

import json
import uuid

import pytest
from django.db import transaction

from hierarchy.models import ShortTermMemory
from hierarchy.stm import stm_demote
from iris_site.audit.events import Actor
from iris_site.audit.refusals import (
    WRITE_REFUSED_ACTION,
    audit_write_refused,
    is_write_refusal,
    refusal_payload,
)
from iris_site.errors import Conflict, InvalidInput, NotFound, NotPermitted, PolicyRefusal
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.forgetting.services import memory_clear_request
from memory.models import ConversationTurn, MemoryEntry
from memory.services import memory_off_the_record_set
from tests.conftest import http_request
from tests.hierarchy.stm_factories import member_with
from tests.iris_site.factories import MemberFactory, ServiceClientFactory
from tests.memory.factories import remember

SECRET = "my sister's new address is 14 Elm Row"
PAYLOAD_KEYS = {"write", "reason", "status", "consumer", "scope_kind"}


def refusals(member=None) -> list[AuditEvent]:
    events = AuditEvent.objects.filter(action=WRITE_REFUSED_ACTION).order_by("sequence")
    if member is not None:
        events = events.filter(target_member_id=member.pk)
    return list(events)


def assert_secret_nowhere_in_the_chain(*texts: str) -> None:
    for event in AuditEvent.objects.all():
        payload = json.dumps(event.payload).casefold()
        for text in texts:
            assert text.casefold() not in payload, event.action


# --- the helper ---------------------------------------------------------------------------


def test_only_403_409_and_422_are_refusals():
    assert is_write_refusal(NotPermitted())
    assert is_write_refusal(Conflict())
    assert is_write_refusal(PolicyRefusal())
    assert not is_write_refusal(InvalidInput())
    assert not is_write_refusal(NotFound())
    assert not is_write_refusal(ValueError("boom"))


def test_the_payload_keeps_tokens_and_drops_free_text():
    payload = refusal_payload(
        write="turn",
        reason="paused",
        status=422,
        consumer=SECRET,
        scope_kind="Some Prose Here",
        extra={"inspection_id": str(uuid.uuid4()), "note": 3},
    )
    assert payload["consumer"] is None and payload["scope_kind"] is None
    assert (payload["write"], payload["reason"], payload["status"]) == ("turn", "paused", 422)
    assert payload["note"] == 3


@pytest.mark.django_db(transaction=True)
def test_the_event_survives_the_rolled_back_write():
    member = MemberFactory()
    actor = Actor.of(member)
    with pytest.raises(PolicyRefusal):
        try:
            with transaction.atomic():
                MemoryEntry.objects.none()  # the write would be here
                raise PolicyRefusal("no", code="paused")
        except PolicyRefusal as exc:
            audit_write_refused(exc, write="remember", actor=actor, member_id=member.pk)
            raise
    [event] = refusals(member)
    assert event.payload == {
        "write": "remember",
        "reason": "paused",
        "status": 422,
        "consumer": None,
        "scope_kind": None,
    }
    assert event.severity == "warning" and event.actor_type == "member"
    # A 400 or a 404 is not a refusal: nothing is recorded.
    assert audit_write_refused(InvalidInput(), write="turn", actor=actor, member_id=None) is None
    assert audit_write_refused(NotFound(), write="turn", actor=actor, member_id=None) is None
    assert len(refusals()) == 1


# --- over real HTTP -------------------------------------------------------------------------


def service_token(consumer: str = "assistant") -> str:
    _, token = token_issue(owner=ServiceClientFactory(consumer=consumer))
    return token


def members_url(live_server, member, tail: str) -> str:
    return f"{live_server.url}/api/v1/members/{member.pk}/{tail}"


@pytest.mark.django_db(transaction=True)
def test_a_turn_refused_off_the_record_is_audited_without_its_text(live_server):
    member = member_with()
    memory_off_the_record_set(member=member, active=True, actor=Actor.of(member))
    token = service_token("assistant")
    url = members_url(live_server, member, "sessions/s-1/turns/")
    body = {"speaker": "member", "text": SECRET}
    # when
    refused = http_request(url, method="POST", token=token, body=body)
    # then
    assert refused.status == 422 and refused.body["error"]["code"] == "paused"
    assert not ConversationTurn.objects.filter(member=member).exists()
    [event] = refusals(member)
    assert event.payload == {
        "write": "turn",
        "reason": "paused",
        "status": 422,
        "consumer": "assistant",
        "scope_kind": None,
    }
    assert event.actor_type == "service" and event.actor_role == "assistant"
    # an invalid turn (400) is not a refusal
    invalid = http_request(url, method="POST", token=token, body={"speaker": "member"})
    assert invalid.status == 400 and len(refusals(member)) == 1
    assert_secret_nowhere_in_the_chain(SECRET, "Elm Row")


@pytest.mark.django_db(transaction=True)
def test_a_turn_and_a_short_term_write_refused_by_a_pending_clear_are_audited(live_server):
    member = member_with()
    memory_clear_request(member=member, actor=Actor.of(member))
    token = service_token("assistant")
    turn = http_request(
        members_url(live_server, member, "sessions/s-1/turns/"),
        method="POST",
        token=token,
        body={"speaker": "member", "text": SECRET},
    )
    short = http_request(
        members_url(live_server, member, "short-term/"),
        method="POST",
        token=token,
        body={
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": SECRET,
        },
    )
    assert (turn.status, short.status) == (409, 409), (turn.body, short.body)
    assert turn.body["error"]["code"] == short.body["error"]["code"] == "clear-pending"
    assert not ConversationTurn.objects.filter(member=member).exists()
    assert not ShortTermMemory.objects.filter(member=member).exists()
    assert [
        (e.payload["write"], e.payload["reason"], e.payload["status"]) for e in refusals(member)
    ] == [
        ("turn", "clear-pending", 409),
        ("short-term", "clear-pending", 409),
    ]
    assert refusals(member)[1].payload["scope_kind"] == "user_session"
    assert_secret_nowhere_in_the_chain(SECRET, "Elm Row")


@pytest.mark.django_db(transaction=True)
def test_a_sensitive_short_term_write_without_consent_is_audited_with_its_reason(live_server):
    member = member_with()
    response = http_request(
        members_url(live_server, member, "short-term/"),
        method="POST",
        token=service_token("assistant"),
        body={
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "medical",
            "content": "takes insulin at night",
        },
    )
    assert response.status == 422, response.body
    assert not ShortTermMemory.objects.filter(member=member).exists()
    [event] = refusals(member)
    assert set(event.payload) == PAYLOAD_KEYS
    assert event.payload["write"] == "short-term"
    assert event.payload["reason"] == response.body["error"]["code"]
    assert event.payload["consumer"] == "assistant"
    assert_secret_nowhere_in_the_chain("insulin")


@pytest.mark.django_db(transaction=True)
def test_a_refused_remember_is_audited_once_and_stores_nothing(live_server):
    member = member_with()
    response = http_request(
        members_url(live_server, member, "memories/"),
        method="POST",
        token=service_token("assistant"),
        body={
            "scope": {"kind": "session", "session_id": "s-1"},
            "category": "medical",
            "body": "takes insulin at night",
            "origin": "model-inferred",
        },
    )
    assert response.status in (403, 422), response.body
    assert not MemoryEntry.objects.filter(member=member).exists()
    [event] = refusals(member)
    assert event.payload["write"] == "remember"
    assert event.payload["reason"] == response.body["error"]["code"]
    assert event.payload["status"] == response.status
    assert_secret_nowhere_in_the_chain("insulin")


@pytest.mark.django_db
def test_a_demotion_refused_off_the_record_is_audited_as_a_short_term_write():
    member = member_with()
    entry = remember(member, subject="walks", body="walks every morning").entry
    memory_off_the_record_set(member=member, active=True, actor=Actor.of(member))
    actor = Actor.system("memory-inspect")
    with pytest.raises(PolicyRefusal):
        stm_demote(
            member=member,
            entry_id=entry.pk,
            scope_kind="admin_session",
            scope_id="a-1",
            actor=actor,
        )
    [event] = refusals(member)
    assert (event.payload["write"], event.payload["reason"]) == ("short-term", "paused")
    assert event.payload["consumer"] is None and event.payload["scope_kind"] == "admin_session"
