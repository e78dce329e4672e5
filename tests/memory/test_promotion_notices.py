"""Issue 47, items 4 and 7: when Iris puts a memory into "About you" on its own (the third
occurrence of a surface's inference, or a consolidation that reached it), the member is
told by a notice they keep, edit or forget; every answer to a notice (promotion, conflict
question, re-confirmation), on the page or over the API, appends an audit event with ids
and the choice, never the words."""

import pytest

from hierarchy.consolidation import ConsolidationInput, stm_consolidate
from iris_site.audit.events import Actor
from iris_site.errors import Conflict
from iris_site.models import AuditEvent
from memory.enums import Lifecycle
from memory.models import MemoryEntry, MemoryNotice
from memory.promotions import memory_promotion_answer
from memory.services import memory_edit
from tests.conftest import bearer_client
from tests.hierarchy.stm_factories import service_actor
from tests.hierarchy.stm_factories import write as stm_write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember
from tests.memory.test_one_fact_one_memory import surface_write
from tests.stepup import step_up_client

pytestmark = pytest.mark.django_db

NOVELS = "Likes reading detective novels on the train"
ANSWER_KEYS = {"notice_id", "entry_id", "answer"}


def promoted(member):
    """An assistant infers NOVELS in three conversations: the third goes into "About you"."""
    assistant = ServiceClientFactory(consumer="assistant")
    results = [surface_write(member, assistant, NOVELS, session=s) for s in ("s-1", "s-2", "s-3")]
    assert results[-1].stored_as == "profile"
    return results[-1].entry


def answers(action):
    return list(AuditEvent.objects.filter(action=action).order_by("sequence"))


def assert_no_words(*events):
    for event in events:
        assert NOVELS.lower() not in str(event.payload).lower()


def test_the_third_occurrence_opens_a_promotion_notice_and_the_first_two_do_not():
    member = consenting_member()
    entry = promoted(member)
    [notice] = MemoryNotice.objects.filter(member=member)
    assert (notice.kind, notice.state, notice.entry_id) == ("promotion", "open", entry.pk)
    assert notice.rule == "repeated-occurrence-threshold-met"


def test_the_members_own_word_in_about_you_opens_no_notice():
    member = consenting_member()
    remember(member, body=NOVELS)  # the member's own write: no promotion at all
    assert not MemoryNotice.objects.filter(member=member).exists()


def test_a_consolidation_that_reaches_about_you_by_recurrence_opens_a_notice():
    member = consenting_member()
    given = ConsolidationInput(explicit=False, scope={"kind": "profile"})
    first = stm_write(member, content="Prefers morning walks")
    stm_write(member, scope_id="s-2", content="prefers morning walks")
    stm_write(member, scope_id="s-3", content="PREFERS morning walks")
    result = stm_consolidate(stm_id=first.pk, actor=service_actor(), given=given)
    [notice] = MemoryNotice.objects.filter(member=member)
    assert (notice.kind, str(notice.entry_id)) == ("promotion", str(result.entry_id))


def test_keeping_makes_it_the_members_word_and_is_audited_with_ids_only():
    member = consenting_member()
    entry = promoted(member)
    notice = MemoryNotice.objects.get(member=member)
    answered = memory_promotion_answer(notice=notice, answer="keep", actor=Actor.of(member))
    assert answered.state == "kept" and answered.answered_at is not None
    entry.refresh_from_db()
    assert (entry.origin, entry.lifecycle, entry.scope_kind) == (
        "user-confirmed",
        Lifecycle.ACTIVE,
        "profile",
    )
    [event] = answers("memory.promotion.answered")
    assert set(event.payload) == ANSWER_KEYS
    assert event.payload == {
        "notice_id": str(notice.pk),
        "entry_id": str(entry.pk),
        "answer": "kept",
    }
    assert event.actor_type == "member"
    assert_no_words(event)
    with pytest.raises(Conflict) as caught:
        memory_promotion_answer(notice=notice, answer="forget", actor=Actor.of(member))
    assert caught.value.code == "notice-answered"


def test_forgetting_forgets_it_and_is_audited():
    member = consenting_member()
    entry = promoted(member)
    notice = MemoryNotice.objects.get(member=member)
    answered = memory_promotion_answer(notice=notice, answer="forget", actor=Actor.of(member))
    assert answered.state == "forgotten"
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == Lifecycle.TOMBSTONED
    [event] = answers("memory.promotion.answered")
    assert event.payload["answer"] == "forgotten" and event.payload["entry_id"] == str(entry.pk)
    assert_no_words(event)


def test_editing_the_memory_answers_the_notice():
    member = consenting_member()
    entry = promoted(member)
    memory_edit(entry=entry, body="Reads crime novels on the train", actor=Actor.of(member))
    notice = MemoryNotice.objects.get(member=member)
    assert notice.state == "edited"
    [event] = answers("memory.promotion.answered")
    assert event.payload["answer"] == "edited"
    assert "crime" not in str(event.payload)


def test_the_api_answers_a_promotion_keep_or_forget_and_refuses_anything_else():
    member = consenting_member()
    entry = promoted(member)
    notice = MemoryNotice.objects.get(member=member)
    url = f"/api/v1/me/notices/{notice.pk}/answer/"
    [listed] = bearer_client(member).get("/api/v1/me/notices/").json()["results"]
    assert (listed["kind"], listed["entry_id"]) == ("promotion", str(entry.pk))
    client = step_up_client(member)
    for bad in ({"accept": True}, {"answer": "confirm"}, {}, {"answer": "keep", "accept": True}):
        response = client.post(url, bad, format="json")
        assert response.status_code == 400, bad
    assert MemoryNotice.objects.get(pk=notice.pk).state == "open"
    response = client.post(url, {"answer": "keep"}, format="json")
    assert response.status_code == 200 and response.json()["state"] == "kept"
    [event] = answers("memory.promotion.answered")
    assert event.payload["notice_id"] == str(notice.pk)
    again = client.post(url, {"answer": "forget"}, format="json")
    assert again.status_code == 409


def test_forgetting_over_the_api_needs_a_recent_sign_in():
    member = consenting_member()
    promoted(member)
    notice = MemoryNotice.objects.get(member=member)
    url = f"/api/v1/me/notices/{notice.pk}/answer/"
    response = bearer_client(member).post(url, {"answer": "forget"}, format="json")
    assert response.status_code in (401, 403)
    assert MemoryNotice.objects.get(pk=notice.pk).state == "open"
    assert step_up_client(member).post(url, {"answer": "forget"}, format="json").status_code == 200


@pytest.mark.parametrize("accept", [True, False])
def test_a_conflict_answer_on_the_page_is_audited_with_ids_and_the_choice(client, accept):
    member = consenting_member()
    remember(member, subject="coffee", body="I take my coffee black")
    notice = remember(
        member, subject="coffee", body="Takes coffee with oat milk", origin="model-inferred"
    ).notice
    client.force_login(member)
    response = client.post(
        f"/profile/memory/notices/{notice.pk}/answer/", {"answer": "update" if accept else "keep"}
    )
    assert response.status_code == 302
    [event] = answers("memory.conflict.answered")
    assert event.payload["notice_id"] == str(notice.pk)
    assert event.payload["answer"] == ("accepted" if accept else "dismissed")
    assert "coffee" not in str(event.payload)


def test_keeping_a_promotion_on_the_page_is_audited(client):
    member = consenting_member()
    promoted(member)
    notice = MemoryNotice.objects.get(member=member)
    client.force_login(member)
    response = client.post(f"/profile/memory/notices/{notice.pk}/answer/", {"answer": "keep"})
    assert response.status_code == 302
    assert MemoryNotice.objects.get(pk=notice.pk).state == "kept"
    [event] = answers("memory.promotion.answered")
    assert event.payload["answer"] == "kept"
