"""Time as the member means it, for facts about themself (issue 47): an entry keeps when
it was TRUE, read from its words by the same parser as relationships
(`memory.entities.when`), beside when Iris LEARNED it (`created_at`); recall `as_of`
answers by the first where the member said it, else by the second — the relationship
rule (`memory.entities.policy.fact_held_at`), over REST and MCP alike; an unclear time
stays open; entries stored before keep learned time as the rule (migration 0031); the
memory page shows both where they differ."""

import io
import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from datarights.contracts import ExportPayload
from datarights.export import write_bundle
from iris_site.audit.events import Actor
from iris_site.services import token_issue
from memory.entities.policy import FactTime, fact_held_at, fact_told
from memory.entities.when import stated_times
from memory.forgetting.erasure import memory_erase
from memory.models import MemoryEntry
from memory.services import memory_edit
from tests.conftest import bearer_client
from tests.interfaces.test_mcp import mcp, mcp_url  # noqa: F401 - the MCP server fixture
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember
from tests.memory.test_entities import recall, returned_bodies
from tests.stepup import step_up, step_up_client

YEAR = timezone.now().year - 1
JAN = datetime(YEAR, 1, 10, 9, tzinfo=UTC)
MARCH = datetime(YEAR, 3, 1, tzinfo=UTC)
APRIL = datetime(YEAR, 4, 20, tzinfo=UTC)
JUNE = datetime(YEAR, 6, 3, 9, tzinfo=UTC)
JULY = datetime(YEAR, 7, 15, tzinfo=UTC)
Y2019 = datetime(2019, 1, 1, tzinfo=UTC)
Y2020 = datetime(2020, 6, 1, tzinfo=UTC)
Y2018 = datetime(2018, 6, 1, tzinfo=UTC)
LISBON = "I've lived in Lisbon since 2019"
ACME = "I worked at Acme until March"


# --- The pure rule ------------------------------------------------------------------------------


def held(text, *, told, at, superseded_at=None) -> bool:
    time = fact_told(stated_times(text, told=told))
    return fact_held_at(time=time, learned_at=told, superseded_at=superseded_at, at=at)


def test_a_fact_told_late_held_from_the_start_the_member_said():
    assert fact_told(stated_times(LISBON, told=JUNE)) == FactTime(Y2019, "year")
    assert held(LISBON, told=JUNE, at=Y2020)
    assert not held(LISBON, told=JUNE, at=Y2018)


def test_an_end_the_member_said_excludes_it_after_whenever_iris_heard_it():
    assert fact_told(stated_times(ACME, told=JUNE)) == FactTime(
        valid_to=MARCH, valid_to_precision="month"
    )
    # ended in March, heard in June: not in April, nor after Iris heard it
    assert not held(ACME, told=JUNE, at=APRIL)
    assert not held(ACME, told=JUNE, at=JULY)
    # and no one said since when: no time before its end is answered by it either
    assert not held(ACME, told=JUNE, at=MARCH - timedelta(days=1))
    # with a start said, it held between
    said = f"I worked at Acme from 2019 until March {YEAR}"
    assert held(said, told=JUNE, at=Y2020) and not held(said, told=JUNE, at=APRIL)


def test_an_unclear_time_stays_open_and_learned_time_is_the_rule():
    # "until March" said in January could mean the coming March: not read
    for text in ("I'm staying with my aunt until March", "I moved here a while back"):
        assert fact_told(stated_times(text, told=JAN)) == FactTime()
        assert held(text, told=JAN, at=APRIL)
        assert not held(text, told=JAN, at=JAN - timedelta(days=1))
        # superseded in June: held until then, as Iris learned
        assert held(text, told=JAN, at=APRIL, superseded_at=JUNE)
        assert not held(text, told=JAN, at=JULY, superseded_at=JUNE)


@given(
    told=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
    ),
    at=st.datetimes(
        min_value=datetime(1990, 1, 1), max_value=datetime(2031, 1, 1), timezones=st.just(UTC)
    ),
)
def test_with_no_time_said_a_fact_answers_by_when_iris_learned_it(told, at):
    assert fact_held_at(time=FactTime(), learned_at=told, superseded_at=None, at=at) == (told <= at)
    # a time without its precision was not said, and is ignored
    ghost = FactTime(valid_from=datetime(1990, 1, 1, tzinfo=UTC), valid_to=told)
    assert fact_held_at(time=ghost, learned_at=told, superseded_at=None, at=at) == (told <= at)


# --- Stored and recalled ------------------------------------------------------------------------


def fact(member, body, *, now, subject="home"):
    return remember(member, body=body, subject=subject, now=now).entry


def rest_recall(member, when):
    client = bearer_client(ServiceClientFactory(consumer="assistant"))
    answer = client.post(
        f"/api/v1/members/{member.pk}/recall/",
        {"surface": "assistant", "scope": {"kind": "profile"}, "as_of": when.isoformat()},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    return answer.json()


@pytest.mark.django_db
def test_a_fact_told_late_is_recalled_as_of_when_it_was_true_over_rest():
    # given "since 2019", told in June of last year
    member = consenting_member()
    entry = fact(member, LISBON, now=JUNE)
    assert (entry.valid_from, entry.valid_from_precision, entry.valid_to) == (Y2019, "year", None)
    assert entry.created_at == JUNE  # when Iris learned it, kept apart
    # when recall asks as of 2020: Iris had not heard it yet, but it was true then
    then = rest_recall(member, Y2020)
    [got] = then["entries"]
    assert got["body"] == LISBON
    assert got["valid_from"].startswith("2019-01-01") and got["valid_from_precision"] == "year"
    assert (got["valid_to"], got["valid_to_precision"]) == (None, "")
    assert got["learned_at"].startswith(f"{YEAR}-06-03")
    # before it began, nothing held
    assert rest_recall(member, Y2018)["entries"] == []
    # the member's entry API gives both clocks
    detail = step_up_client(member).get(f"/api/v1/me/memories/{entry.pk}/")
    assert detail.status_code == 200, detail.content
    body = detail.json()
    assert body["valid_from"].startswith("2019-01-01") and body["valid_from_precision"] == "year"
    assert body["created_at"].startswith(f"{YEAR}-06-03")


@pytest.mark.django_db
def test_an_explicit_end_is_not_recalled_after_it_even_when_heard_later():
    member = consenting_member()
    entry = fact(member, ACME, now=JUNE, subject="work")
    assert (entry.valid_to, entry.valid_to_precision) == (MARCH, "month")
    plain = fact(member, "I take my coffee black", now=JAN, subject="coffee")
    for when in (APRIL, JULY):
        assert returned_bodies(recall(member, as_of=when)) == [plain.body]


@pytest.mark.django_db
def test_an_edit_that_keeps_the_time_words_keeps_the_time_they_said():
    """Found by review: fixing "Acme" to "ACME" in December re-read "until March" as of
    December, so the job ended a year later on every door. Time words the edit kept mean
    what they meant when first told; words the member writes anew are read as of now."""
    member = consenting_member()
    entry = fact(member, ACME, now=JUNE, subject="work")
    edited = memory_edit(entry=entry, actor=Actor.of(member), body="I worked at ACME until March")
    assert (edited.valid_to, edited.valid_to_precision) == (MARCH, "month")
    assert returned_bodies(recall(member, as_of=JULY)) == []
    now = timezone.now()
    rewritten = memory_edit(
        entry=edited, actor=Actor.of(member), body="I worked at ACME until last month"
    )
    year, month = divmod(now.year * 12 + now.month - 2, 12)
    last_month = datetime(year, month + 1, 1, tzinfo=UTC)
    assert (rewritten.valid_to, rewritten.valid_to_precision) == (last_month, "month")


@pytest.mark.django_db
def test_an_unclear_time_stays_open_and_answers_by_learned_time():
    member = consenting_member()
    entry = fact(member, "I'm staying with my aunt until March", now=JAN)
    assert (entry.valid_from, entry.valid_to) == (None, None)
    assert (entry.valid_from_precision, entry.valid_to_precision) == ("", "")
    assert returned_bodies(recall(member, as_of=APRIL)) == [entry.body]
    assert returned_bodies(recall(member, as_of=JAN - timedelta(days=1))) == []


@pytest.mark.django_db(transaction=True)
def test_recall_as_of_over_mcp_answers_by_when_the_fact_was_true(live_server, mcp_url):  # noqa: F811
    member = consenting_member()
    fact(member, LISBON, now=JUNE)
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    args = {"member_id": str(member.pk), "surface": "assistant", "scope": {"kind": "profile"}}

    async def calls(session):
        return (
            await session.call_tool("recall", {**args, "as_of": Y2020.isoformat()}),
            await session.call_tool("recall", {**args, "as_of": Y2018.isoformat()}),
        )

    then, before = mcp(mcp_url, token, calls)
    assert not then.is_error and not before.is_error
    [got] = then.structured_content["entries"]
    assert got["body"] == LISBON and got["valid_from"].startswith("2019-01-01")
    assert got["learned_at"].startswith(f"{YEAR}-06-03")
    assert before.structured_content["entries"] == []


# --- The memory page ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_memory_page_shows_when_it_was_true_and_when_iris_learned_it_where_they_differ():
    member = consenting_member()
    told_late = fact(member, LISBON, now=JUNE)
    plain = fact(member, "I take my coffee black", now=JAN, subject="coffee")
    client = Client()
    client.force_login(member)
    step_up(client)

    def page(entry):
        answer = client.get(f"/profile/memory/{entry.pk}/")
        assert answer.status_code == 200
        return " ".join(answer.content.decode().split())

    assert f"true since 2019 · Iris learned this 3 June {YEAR}" in page(told_late)
    assert "Iris learned this" not in page(plain)


# --- Migration 0031 ---------------------------------------------------------------------------


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def migrate():
    yield _migrate
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_existing_entries_keep_learned_time_as_their_rule(migrate):
    # given an entry stored before entries kept valid time (its words say "since 2019")
    member = consenting_member()
    entry = fact(member, LISBON, now=JUNE)
    migrate([("memory", "0030_relationship_valid_and_learned_time")])
    # when the migration adds the columns
    apps = migrate([("memory", "0031_entry_valid_time")])
    # then they are empty: no time said, so learned time stays its rule
    Entry = apps.get_model("memory", "MemoryEntry")
    assert list(
        Entry.objects.filter(pk=entry.pk).values_list(
            "valid_from", "valid_from_precision", "valid_to", "valid_to_precision"
        )
    ) == [(None, "", None, "")]
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    assert returned_bodies(recall(member, as_of=Y2020)) == []
    assert returned_bodies(recall(member, as_of=JULY)) == [LISBON]
    assert MemoryEntry.objects.get(pk=entry.pk).created_at == JUNE


@pytest.mark.django_db
def test_the_export_carries_both_clocks_and_a_forgotten_fact_neither():
    member = consenting_member()
    lisbon = fact(member, LISBON, now=JUNE)
    acme = fact(member, ACME, now=JUNE)
    forgotten = fact(member, "I've had a cat since 2015", now=JUNE)
    memory_erase(
        member_id=member.pk, entry_ids=[forgotten.pk], actor=Actor.of(member), reason="member"
    )
    out = io.BytesIO()
    write_bundle(
        request_id=uuid.uuid4(),
        member_id=member.pk,
        payload=ExportPayload.model_validate({"scopes": ["profile"]}),
        generated_at=timezone.now(),
        out=out,
    )
    entries = {e["id"]: e for e in json.loads(out.getvalue())["entries"]}
    told = entries[str(lisbon.pk)]
    assert told["valid_from"].startswith("2019-01-01") and told["valid_from_precision"] == "year"
    assert (told["valid_to"], told["valid_to_precision"]) == (None, "")
    assert told["created_at"].startswith(f"{YEAR}-06-03")
    ended = entries[str(acme.pk)]
    assert ended["valid_to"].startswith(f"{YEAR}-03") and ended["valid_to_precision"] == "month"
    assert "valid_from" not in entries[str(forgotten.pk)]


@pytest.mark.django_db
def test_forgetting_a_fact_erases_when_it_was_true_with_its_words():
    member = consenting_member()
    entry = fact(member, LISBON, now=JUNE)
    memory_erase(member_id=member.pk, entry_ids=[entry.pk], actor=Actor.of(member), reason="member")
    entry.refresh_from_db()
    assert entry.lifecycle == "tombstoned"
    assert (entry.valid_from, entry.valid_from_precision) == (None, "")
