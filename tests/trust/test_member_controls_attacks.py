"""Attacks on the member's controls of issue 19, as a careful member and a hostile surface
would try them: every door a surface reads or writes through honours *Stop using my
memories* and *Pause a surface*; *Forget automatically after…* takes effect for what is
already older than the choice; multi-select forget never reaches another member's memory."""

import uuid
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from continuity.models import ContinuationToken
from interfaces.mcp.rest import Caller, rest_call
from iris_site.services import token_issue
from memory.models import MemoryEntity, MemoryEntry, MemoryNotice
from tests.conftest import bearer_client
from tests.continuity.factories import token_body, write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, memory_settings, remember
from tests.stepup import step_up, step_up_client

pytestmark = pytest.mark.django_db


def surface(consumer):
    client = ServiceClientFactory(consumer=consumer)
    return client, bearer_client(client)


def url(member, path):
    return f"/api/v1/members/{member.pk}/{path}"


def recall(api, member, consumer, **extra):
    body = {"surface": consumer, "scope": {"kind": "profile"}, "query": "coffee", **extra}
    return api.post(url(member, "recall/"), body, format="json")


def sam(member, **kw):
    return remember(
        member,
        category="relationship",
        subject="job",
        body="Sam works at the bakery",
        multi_actor={"actor_name": "Samwise Example", "relationship_note": "my sister"},
        **kw,
    )


# --- stop using my memories -------------------------------------------------------------


def test_stop_using_withholds_entity_and_as_of_recall():
    member = consenting_member()
    sam(member)
    person = MemoryEntity.objects.get(member=member, kind="person")
    _, api = surface("assistant")
    assert recall(api, member, "assistant", entity=str(person.pk)).json()["entries"] != []
    memory_settings(member, stop_using=True)
    for extra in (
        {"entity": str(person.pk)},
        {"as_of": (timezone.now() + timedelta(seconds=1)).isoformat()},
        {"entity": str(person.pk), "as_of": timezone.now().isoformat()},
    ):
        answer = recall(api, member, "assistant", **extra)
        assert answer.status_code == 200, (extra, answer.content)
        data = answer.json()
        assert data["entries"] == [] and data["relationships"] == [], extra
        assert data["entities"] == [], extra


def test_stop_using_withholds_the_bundle_narrowed_to_an_entity():
    member = consenting_member()
    sam(member)
    person = MemoryEntity.objects.get(member=member, kind="person")
    _, api = surface("assistant")
    memory_settings(member, stop_using=True)
    body = {"scope_id": "s-1", "query": "sam", "entity": str(person.pk)}
    answer = api.post(url(member, "context-bundle/"), body, format="json")
    assert answer.status_code == 200, answer.content
    ltm = answer.json()["ltm"]
    assert ltm["entries"] == [] and ltm["relationships"] == []


def ask(member, entry):
    return MemoryNotice.objects.create(
        member=member, entry=entry, kind=MemoryNotice.Kind.RECONFIRM, created_at=timezone.now()
    )


def test_stop_using_and_a_pause_withhold_open_questions_about_memories():
    member = consenting_member()
    entry = remember(member, body="I take my coffee black", subject="coffee").entry
    ask(member, entry)
    _, assistant = surface("assistant")
    _, tara = surface("tara")
    assert len(assistant.get(url(member, "questions/")).json()["questions"]) == 1
    memory_settings(member, stop_using=True)
    answer = assistant.get(url(member, "questions/"))
    assert answer.status_code == 200 and answer.json()["questions"] == []
    memory_settings(member, paused_consumers=["tara"])
    assert tara.get(url(member, "questions/")).json()["questions"] == []


# --- pause a surface ----------------------------------------------------------------------


def test_a_paused_surface_cannot_write_continuation_tokens():
    member = consenting_member()
    _, tara = surface("tara")
    memory_settings(member, paused_consumers=["tara"])
    body = token_body(member.pk)
    answer = tara.put(url(member, "continuation-tokens/"), body, format="json")
    assert answer.status_code == 422, answer.content
    assert answer.json()["error"]["code"] == "surface-paused"
    assert not ContinuationToken.objects.filter(member=member).exists()


def test_a_paused_surface_reads_no_continuation_token():
    member = consenting_member()
    client, tara = surface("tara")
    written = write(member, client=client)
    memory_settings(member, paused_consumers=["tara"])
    listed = tara.get(url(member, "continuation-tokens/"))
    assert listed.status_code == 200, listed.content
    assert "chapter-4" not in listed.content.decode()
    # and it is told why: every token of the member withheld as a paused surface's
    assert listed.json()["results"] == []
    assert listed.json()["withheld"] == {"surface-paused": 1}
    resumed = tara.get(url(member, f"continuation-tokens/{written.token.pk}/resume/"))
    assert resumed.status_code == 404, resumed.content


@pytest.mark.django_db(transaction=True)
def test_a_paused_surface_reads_nothing_through_mcp():
    member = consenting_member()
    remember(member, body="I take my coffee black", subject="coffee")
    client = ServiceClientFactory(consumer="tara")
    _, raw = token_issue(owner=client)
    memory_settings(member, paused_consumers=["tara"])
    caller = Caller(token=raw, client_host="127.0.0.1", headers={"host": "testserver"})
    body = {"surface": "tara", "scope": {"kind": "profile"}, "query": "coffee"}
    answer = rest_call(caller, "POST", url(member, "recall/"), body=body)
    assert answer.status == 200 and answer.body["entries"] == []
    remembered = rest_call(
        caller,
        "POST",
        url(member, "memories/"),
        body={
            "scope": {"kind": "session", "session_id": "s-1"},
            "category": "preference",
            "subject": "tea",
            "body": "Likes green tea",
            "origin": "model-inferred",
        },
    )
    assert remembered.status == 422 and remembered.body["error"]["code"] == "surface-paused"


def test_a_paused_surface_cannot_refresh_or_consolidate_a_row():
    member = consenting_member()
    _, tara = surface("tara")
    row = tara.post(
        url(member, "short-term/"),
        {
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": "Wants the window open",
        },
        format="json",
    ).json()
    memory_settings(member, paused_consumers=["tara"])
    refreshed = tara.post(url(member, f"short-term/{row['id']}/refresh/"), {}, format="json")
    assert refreshed.status_code == 404, refreshed.content
    consolidated = tara.post(url(member, f"short-term/{row['id']}/consolidate/"), {}, format="json")
    assert consolidated.status_code == 404, consolidated.content
    assert not MemoryEntry.objects.filter(member=member).exists()


# --- forget automatically after… ---------------------------------------------------------


def test_entries_already_older_than_the_choice_are_not_recalled_before_the_sweep():
    member = consenting_member()
    remember(
        member,
        body="I take my coffee black",
        subject="coffee",
        now=timezone.now() - timedelta(days=200),
    )
    _, api = surface("assistant")
    assert recall(api, member, "assistant").json()["entries"] != []
    memory_settings(member, auto_forget_months={"profile": 3})
    assert recall(api, member, "assistant").json()["entries"] == []


def test_an_entry_whose_time_comes_between_sweeps_is_not_recalled_nor_asked_about():
    """The sweep erases hourly; the read gate stops the use at the instant itself, on the
    recall and the open questions, and counts it under the member's choice. (Time is
    moved by ageing the entry: the rule is its age.)"""
    member = consenting_member()
    entry = remember(
        member,
        body="I take my coffee black",
        subject="coffee",
        now=timezone.now() - timedelta(days=91) + timedelta(minutes=5),
    ).entry
    ask(member, entry)
    memory_settings(member, auto_forget_months={"profile": 3})  # not yet older than the choice
    _, api = surface("assistant")
    assert [e["id"] for e in recall(api, member, "assistant").json()["entries"]] == [str(entry.pk)]
    assert len(api.get(url(member, "questions/")).json()["questions"]) == 1
    MemoryEntry.objects.filter(pk=entry.pk).update(
        updated_at=F("updated_at") - timedelta(minutes=10)
    )

    data = recall(api, member, "assistant").json()
    assert data["entries"] == []
    assert data["audit_envelope"]["suppression_counts"] == {"member-auto-forget": 1}
    questions = api.get(url(member, "questions/"))
    assert questions.status_code == 200, questions.content
    assert questions.json()["questions"] == []
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "active"  # the sweep erases it


# --- multi-select forget -------------------------------------------------------------------


FORGET = "/api/v1/me/memories/forget/"


def test_duplicate_and_foreign_ids_in_one_selection():
    member, other = consenting_member(), consenting_member()
    mine = remember(member, body="Likes the kestrel café", subject="cafe").entry
    theirs = remember(other, body="Not mine at all", subject="x").entry
    api = step_up_client(member)
    # duplicates: one forget, counted once
    done = api.post(FORGET, {"ids": [str(mine.pk), str(mine.pk)]}, format="json")
    assert done.status_code in (200, 400), done.content
    if done.status_code == 200:
        assert done.json()["forgotten_count"] == 1
    # another member's id, alone or with a forgotten one or a random one: 404, nothing forgotten
    for ids in ([str(theirs.pk)], [str(theirs.pk), str(theirs.pk)], [str(uuid.uuid4())]):
        answer = api.post(FORGET, {"ids": ids}, format="json")
        assert answer.status_code == 404, (ids, answer.content)
    theirs.refresh_from_db()
    assert theirs.lifecycle == "active" and theirs.body == "Not mine at all"
    # a surface may not use it
    _, tara = surface("tara")
    assert tara.post(FORGET, {"ids": [str(mine.pk)]}, format="json").status_code == 403
    # too many ids is a structured 400, not a 500
    many = api.post(FORGET, {"ids": [str(uuid.uuid4()) for _ in range(5000)]}, format="json")
    assert many.status_code in (400, 404), many.status_code


def test_a_cached_bundle_is_not_served_after_the_member_stops_use_or_pauses():
    from django.core.cache import cache

    cache.clear()
    member = consenting_member()
    remember(member, scope={"kind": "session", "session_id": "s-1"}, body="Coffee in session")
    _, tara = surface("tara")
    body = {"scope_id": "s-1", "query": "coffee"}
    first = tara.post(url(member, "context-bundle/"), body, format="json").json()
    assert first["ltm"]["entries"] != []
    memory_settings(member, stop_using=True)
    stopped = tara.post(url(member, "context-bundle/"), body, format="json").json()
    assert stopped["ltm"]["entries"] == []
    memory_settings(member, paused_consumers=["tara"])
    paused = tara.post(url(member, "context-bundle/"), body, format="json").json()
    assert paused["ltm"]["entries"] == [] and paused["stm"] == []
    cache.clear()


def test_the_page_forgets_a_selection_with_duplicates_once_and_a_foreign_id_never():
    from django.test import Client

    member, other = consenting_member(), consenting_member()
    mine = remember(member, body="Likes the kestrel café", subject="cafe").entry
    theirs = remember(other, body="Not mine at all", subject="x").entry
    client = Client()
    client.force_login(member)
    step_up(client)
    page = "/profile/memory/forget-selected/"
    assert client.get(page, {"ids": [theirs.pk]}).status_code == 404
    assert client.post(page, {"ids": [theirs.pk, theirs.pk]}).status_code == 404
    assert client.post(page, {"ids": ["not-a-uuid"]}).status_code in (302, 400, 404)
    done = client.post(page, {"ids": [mine.pk, mine.pk]}, follow=True)
    assert done.status_code == 200
    assert "kestrel" not in done.content.decode()
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.lifecycle == "tombstoned" and "kestrel" not in mine.body
    assert theirs.lifecycle == "active"


def test_a_paused_surface_gets_no_echo_of_its_earlier_writes_by_replaying_them():
    member = consenting_member()
    _, tara = surface("tara")
    stm = {
        "scope_kind": "user_session",
        "scope_id": "s-1",
        "category": "preference",
        "content": "Wants the window open",
    }
    remembered = {
        "scope": {"kind": "session", "session_id": "s-1"},
        "category": "preference",
        "subject": "tea",
        "body": "Likes green tea",
        "origin": "model-inferred",
    }
    token = token_body(member.pk, idempotency_key="k-token")
    writes = (
        ("post", url(member, "short-term/"), stm, "k-stm"),
        ("post", url(member, "memories/"), remembered, "k-remember"),
        ("put", url(member, "continuation-tokens/"), token, "k-token"),
    )

    def send(method, path, body, key):
        return getattr(tara, method)(path, body, format="json", headers={"Idempotency-Key": key})

    for write_ in writes:
        first = send(*write_)
        assert first.status_code == 201, first.content
    memory_settings(member, paused_consumers=["tara"])
    for write_ in writes:
        again = send(*write_)
        assert again.status_code == 422, (write_[1], again.content)
        assert again.json()["error"]["code"] == "surface-paused"
        assert "window" not in again.content.decode() and "green tea" not in again.content.decode()
        assert "chapter-4" not in again.content.decode()
    # resumed, the retry is answered as before
    memory_settings(member, paused_consumers=[])
    for write_ in writes:
        again = send(*write_)
        assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
