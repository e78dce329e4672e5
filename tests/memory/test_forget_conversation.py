"""Forget a conversation (issue 41, the conversation extent): its turns, its short-term
rows, its session memory and whatever came only from it go everywhere; another
conversation, and what the member stated in their profile, stay."""

import pytest

from hierarchy.models_stm import ShortTermMemory
from hierarchy.stm import stm_write
from iris_site.audit.events import Actor
from iris_site.errors import NotFound
from memory.enums import Lifecycle
from memory.forgetting.conversations import memory_forget_conversation
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import http_request
from tests.memory.factories import (
    INFERENCE_JOB,
    consenting_member,
    member_turn,
    memory_audit,
    quoting,
    remember,
)
from tests.stepup import step_up_client, step_up_token
from tests.trust.test_forget_completeness import new_marker, schema_hits

pytestmark = pytest.mark.django_db

GONE, KEPT = "c-gone", "c-kept"
LIST = "/api/v1/me/conversations/"


def forget_url(session_id: str) -> str:
    return f"{LIST}{session_id}/forget/"


def history(member, marker: str, other: str) -> dict:
    """Two conversations: `GONE` carries `marker` in every place, `KEPT` carries `other`."""
    gone_turn = member_turn(member, f"I told you about {marker} yesterday", session_id=GONE)
    second_turn = member_turn(member, f"And {marker} is my new bike", session_id=GONE)
    kept_turn = member_turn(member, f"Let us talk about {other} instead", session_id=KEPT)
    stm_write(
        member=member,
        scope_kind="user_session",
        scope_id=GONE,
        category="preference",
        content=f"working note on {marker} here",
        actor=Actor.of(member),
    )
    stm_write(
        member=member,
        scope_kind="user_session",
        scope_id=KEPT,
        category="preference",
        content=f"working note on {other} here",
        actor=Actor.of(member),
    )
    session_entry = remember(
        member,
        scope={"kind": "session", "session_id": GONE},
        subject="bike",
        body=f"The member rides {marker} daily",
    ).entry
    inferred = remember(
        member,
        origin="model-inferred",
        subject="hobby",
        body=f"Probably enjoys cycling with {marker}",
        provenance=quoting(gone_turn, second_turn),
        session_id=GONE,
    ).entry
    summary = remember(
        member,
        origin="summarized-from-session",
        scope={"kind": "session", "session_id": KEPT},
        subject="summary",
        body=f"Summary: talked about {marker} at length",
        provenance=quoting(second_turn),
    ).entry
    mixed = remember(
        member,
        origin="model-inferred",
        subject="both",
        body=f"Mentions {other} across chats",
        provenance=quoting(gone_turn, kept_turn),
        session_id=KEPT,
    ).entry
    stated = remember(member, subject="coffee", body=f"I drink {other} coffee").entry
    kept_entry = remember(
        member,
        scope={"kind": "session", "session_id": KEPT},
        subject="tea",
        body=f"The member likes {other} tea",
    ).entry
    return {
        "gone": [session_entry, inferred, summary],
        "kept": [mixed, stated, kept_entry],
    }


def lifecycle(entry) -> str:
    return MemoryEntry.objects.get(pk=entry.pk).lifecycle


def test_forgetting_a_conversation_erases_it_everywhere_and_nothing_else():
    member = consenting_member()
    marker, other = new_marker(), new_marker()
    entries = history(member, marker, other)
    assert schema_hits(marker)
    # when
    result = memory_forget_conversation(member=member, session_id=GONE, actor=Actor.of(member))
    # then: counts, and no trace of the conversation anywhere in the schema
    assert (result.turns, result.short_term_rows, result.entries) == (2, 1, 3)
    assert schema_hits(marker) == []
    assert not ConversationTurn.objects.filter(member=member, session_id=GONE).exists()
    assert not ShortTermMemory.objects.filter(member=member, scope_id=GONE).exists()
    for entry in entries["gone"]:
        assert lifecycle(entry) == Lifecycle.TOMBSTONED
    # the other conversation, an entry citing both, and the member's own word stay
    for entry in entries["kept"]:
        assert lifecycle(entry) == Lifecycle.ACTIVE
    assert ConversationTurn.objects.filter(member=member, session_id=KEPT).count() == 1
    assert ShortTermMemory.objects.filter(member=member, scope_id=KEPT).count() == 1
    assert schema_hits(other)
    # audited with ids and counts only
    [event] = memory_audit(member, "memory.conversation.forgotten")
    assert event.payload["turn_count"] == 2 and event.payload["entry_count"] == 3
    assert marker not in str(event.payload)
    # and a second forget finds nothing left
    with pytest.raises(NotFound):
        memory_forget_conversation(member=member, session_id=GONE, actor=Actor.of(member))


def test_a_profile_fact_stated_in_the_conversation_stays():
    member = consenting_member()
    turn = member_turn(member, "I am allergic to peanuts", session_id=GONE)
    stated = remember(
        member, subject="allergy", body="I am allergic to peanuts", provenance=quoting(turn)
    ).entry
    memory_forget_conversation(member=member, session_id=GONE, actor=Actor.of(member))
    assert lifecycle(stated) == Lifecycle.ACTIVE
    assert not ConversationTurn.objects.filter(member=member).exists()


def test_the_member_lists_and_forgets_conversations_over_the_api():
    member = consenting_member()
    marker, other = new_marker(), new_marker()
    history(member, marker, other)
    client = step_up_client(member)
    # the list: ids, counts and times, newest first, no text
    listed = client.get(LIST, {"page_size": 1})
    assert listed.status_code == 200, listed.content
    [first] = listed.json()["results"]
    assert first["session_id"] == KEPT and first["turn_count"] == 1
    assert set(first) == {"session_id", "turn_count", "first_turn_at", "last_turn_at"}
    second = client.get(listed.json()["next"])
    assert [c["session_id"] for c in second.json()["results"]] == [GONE]
    assert second.json()["results"][0]["turn_count"] == 2
    # forget one
    response = client.post(forget_url(GONE))
    assert response.status_code == 200, response.content
    assert response.json() == {
        "session_id": GONE,
        "turns_erased": 2,
        "short_term_rows_erased": 1,
        "entries_erased": 3,
    }
    assert [c["session_id"] for c in client.get(LIST).json()["results"]] == [KEPT]
    # a second forget: nothing left, 404 with the structured error
    again = client.post(forget_url(GONE))
    assert again.status_code == 404
    assert again.json()["error"]["code"] == "not_found"


def test_another_members_or_an_unknown_conversation_is_404():
    owner, other = consenting_member(), consenting_member()
    member_turn(owner, "Something private to me", session_id=GONE)
    client = step_up_client(other)
    for session_id in (GONE, "never-was"):
        response = client.post(forget_url(session_id))
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    assert ConversationTurn.objects.filter(member=owner, session_id=GONE).count() == 1
    assert client.post(forget_url("has:colon")).status_code == 400
    assert client.get(LIST, {"cursor": "garbage"}).status_code == 400


def test_a_session_with_only_short_term_rows_is_forgotten():
    member = consenting_member()
    stm_write(
        member=member,
        scope_kind="user_session",
        scope_id=GONE,
        category="preference",
        content="a scratch note in progress",
        actor=INFERENCE_JOB,
    )
    response = step_up_client(member).post(forget_url(GONE))
    assert response.status_code == 200, response.content
    assert response.json()["short_term_rows_erased"] == 1


@pytest.mark.django_db(transaction=True)
def test_forgetting_a_conversation_over_real_http(live_server):
    member = consenting_member()
    marker, other = new_marker(), new_marker()
    history(member, marker, other)
    token = step_up_token(member)
    response = http_request(f"{live_server.url}{forget_url(GONE)}", method="POST", token=token)
    assert response.status == 200, response.body
    assert response.body["turns_erased"] == 2
    assert schema_hits(marker) == []
    again = http_request(f"{live_server.url}{forget_url(GONE)}", method="POST", token=token)
    assert again.status == 404 and again.body["error"]["code"] == "not_found"


def test_the_audit_keeps_no_caller_chosen_session_or_notebook_id():
    """A session or notebook id is chosen by a surface and may say anything: the chain
    keeps only its keyed digest."""
    from iris_site.audit.events import Actor
    from iris_site.models import AuditEvent
    from memory.forgetting.conversations import memory_forget_conversation
    from memory.forgetting.notebooks import notebook_close, notebook_delete
    from tests.memory.factories import consenting_member, remember

    member = consenting_member()
    session, notebook = "therapy-with-dr-quorvex", "divorce-papers"
    remember(member, scope={"kind": "session", "session_id": session}, body="Talked it through")
    remember(member, scope={"kind": "notebook", "notebook_id": notebook}, body="Draft one")
    memory_forget_conversation(member=member, session_id=session, actor=Actor.of(member))
    notebook_close(member=member, notebook_id=notebook, actor=Actor.of(member))
    notebook_delete(member=member, notebook_id=notebook, actor=Actor.of(member))
    payloads = str(list(AuditEvent.objects.values_list("payload", flat=True)))
    assert session not in payloads and notebook not in payloads
