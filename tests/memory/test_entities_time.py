"""Time as the member means it (issue 47): a relationship is stored with when it was TRUE,
as the member said it, beside when Iris LEARNED it; recall `as_of` answers by the first,
over REST and MCP alike; a restatement extends its period; an explicit end closes it at
the end the member said; relationships stored before keep their learned time as their
valid time (migration 0030)."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone
from hypothesis import assume, given
from hypothesis import strategies as st

from iris_site.audit.events import Actor
from iris_site.services import token_issue
from memory.entities.policy import period_replayed, period_restated, period_told
from memory.entities.selectors import entity_detail, recalled_graph
from memory.entities.when import Point, Stated
from memory.forgetting.services import memory_tombstone
from memory.models import MemoryEntity, MemoryEntry, MemoryRelationship
from tests.conftest import bearer_client, http_request
from tests.interfaces.test_mcp import mcp, mcp_url  # noqa: F401 - the MCP server fixture
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember
from tests.memory.test_entities import ENTITIES, recall, returned_bodies
from tests.stepup import step_up, step_up_client

YEAR = timezone.now().year - 1
JAN = datetime(YEAR, 1, 10, 9, tzinfo=UTC)
FEB = datetime(YEAR, 2, 14, tzinfo=UTC)
MARCH = datetime(YEAR, 3, 1, tzinfo=UTC)
APRIL = datetime(YEAR, 4, 20, tzinfo=UTC)
JUNE = datetime(YEAR, 6, 3, 9, tzinfo=UTC)
NAME = "Samwise Example"


def sam(member, *, now, note, body="Sam and I go climbing"):
    return remember(
        member,
        category="relationship",
        subject="climbing",
        body=body,
        multi_actor={"actor_name": NAME, "relationship_note": note},
        now=now,
    ).entry


def person(member) -> MemoryEntity:
    return MemoryEntity.objects.get(member=member, kind="person")


def theirs(member, type_):
    """The relationship periods of one type, as the entity API gives them."""
    detail = entity_detail(member, person(member).pk)
    return [r for r in detail.relationships if r.type == type_]


def graph_types(member, result, as_of):
    graph = recalled_graph(
        member_id=member.pk, entry_ids=result.audit_envelope.returned_ids, as_of=as_of
    )
    return {r.type for r in graph.relationships}


@pytest.mark.django_db
def test_a_relationship_told_late_is_true_from_when_the_member_said():
    # given "my partner since 2019", told in June
    member = consenting_member()
    sam(member, now=JUNE, note="my partner since 2019", body="Sam and I live together")
    [partner] = theirs(member, "partner")
    assert (partner.valid_from, partner.valid_from_precision) == (
        datetime(2019, 1, 1, tzinfo=UTC),
        "year",
    )
    assert (partner.learned_at, partner.valid_to) == (JUNE, None)
    # when recall asks as of 2020: Iris had not heard it yet, but it was true then
    then = recall(member, as_of=datetime(2020, 6, 1, tzinfo=UTC))
    assert returned_bodies(then) == ["Sam and I live together"]
    assert "partner" in graph_types(member, then, datetime(2020, 6, 1, tzinfo=UTC))
    # before it began, nothing held
    assert returned_bodies(recall(member, as_of=datetime(2018, 6, 1, tzinfo=UTC))) == []


@pytest.mark.django_db
def test_a_restatement_extends_its_period_instead_of_opening_a_second():
    member = consenting_member()
    sam(member, now=JAN, note="my girlfriend")
    sam(member, now=JUNE, note="my girlfriend", body="Sam and I go climbing on Sundays")
    rows = MemoryRelationship.objects.filter(member=member, type="girlfriend")
    assert rows.count() == 2  # two statements, kept for audit …
    assert len({r.period_id for r in rows}) == 1  # … of one period
    [girlfriend] = theirs(member, "girlfriend")  # the API shows one relationship
    assert (girlfriend.valid_from, girlfriend.valid_to, girlfriend.learned_at) == (JAN, None, JAN)
    # a restatement that says when it began moves the start, and only the start
    sam(member, now=JUNE + timedelta(days=1), note="my girlfriend since 2024")
    [girlfriend] = theirs(member, "girlfriend")
    assert (girlfriend.valid_from, girlfriend.valid_from_precision) == (
        datetime(2024, 1, 1, tzinfo=UTC),
        "year",
    )
    assert (girlfriend.learned_at, girlfriend.valid_to) == (JAN, None)


@pytest.mark.django_db
def test_forgetting_the_statement_that_said_when_takes_its_time_with_it():
    """Found by review: a restatement carries the period's start onto its own row, so
    forgetting the one statement that said "since 2019" left 2019 on the person page, the
    entity API, `as_of` and the export. The period is now told again from the statements
    that remain: the start goes back to when Iris learned it from them."""
    member = consenting_member()
    said = sam(member, now=APRIL, note="my partner since 2019", body="Sam and I live together")
    sam(member, now=JUNE, note="my partner", body="Sam and I cook on Sundays")
    [partner] = theirs(member, "partner")
    assert (partner.valid_from, partner.valid_from_precision) == (Y2019, "year")
    memory_tombstone(entry=MemoryEntry.objects.get(pk=said.pk), actor=Actor.of(member))
    [partner] = theirs(member, "partner")
    assert (partner.valid_from, partner.valid_from_precision) == (JUNE, "")
    assert partner.learned_at == JUNE
    assert not MemoryRelationship.objects.filter(member=member, valid_from=Y2019).exists()


Y2019 = datetime(2019, 1, 1, tzinfo=UTC)
MAY_2021 = Point(datetime(2021, 5, 1, tzinfo=UTC), "month")
_STARTS = st.sampled_from([None, Point(Y2019, "year"), MAY_2021])
_ENDS = st.sampled_from([None, Point(datetime(2022, 3, 1, tzinfo=UTC), "month")])
_HISTORIES = st.lists(
    st.tuples(st.builds(Stated, start=_STARTS, end=_ENDS), st.sampled_from([APRIL, JUNE])),
    min_size=1,
    max_size=5,
).map(lambda told: sorted(told, key=lambda s: s[1]))


@given(history=_HISTORIES, gone=st.integers(0, 4))
def test_a_replayed_period_keeps_no_time_only_a_gone_statement_said(history, gone):
    """Over random histories: told again without one statement, every time the period
    says it was said by a statement that remains; with all of them, it is what telling
    them one by one gave."""
    assume(len(history) > 1)
    gone %= len(history)
    (first, at), *rest = history
    was = period_told(first, now=at)
    for stated, said_at in rest:
        was = period_restated(was, stated, now=said_at)
    assert period_replayed(history, was=was) == was
    left = history[:gone] + history[gone + 1 :]
    period = period_replayed(left, was=was)
    said_starts = {s.start for s, _ in left if s.start}
    said_ends = {s.end for s, _ in left if s.end}
    if period.valid_from_precision:
        assert Point(period.valid_from, period.valid_from_precision) in said_starts
    if period.valid_to_precision:
        assert Point(period.valid_to, period.valid_to_precision) in said_ends


@pytest.mark.django_db
def test_an_explicit_end_closes_the_period_at_the_end_the_member_said():
    # given a girlfriend told of in January, and in June "we broke up in March"
    member = consenting_member()
    sam(member, now=JAN, note="my girlfriend", body="Sam is my girlfriend")
    sam(member, now=JUNE, note="my girlfriend, we broke up in March", body="Sam and I split")
    [girlfriend] = theirs(member, "girlfriend")
    assert (girlfriend.valid_from, girlfriend.valid_to, girlfriend.valid_to_precision) == (
        JAN,
        MARCH,
        "month",
    )
    # when Iris learned each end is kept for audit
    assert (girlfriend.learned_at, girlfriend.end_learned_at) == (JAN, JUNE)
    # recall as of February: she was his girlfriend (as Iris knew then)
    february = recall(member, as_of=FEB)
    assert "Sam is my girlfriend" in returned_bodies(february)
    assert "girlfriend" in graph_types(member, february, FEB)
    # as of April, though Iris only heard in June: it had ended in March
    april = recall(member, as_of=APRIL)
    assert "Sam is my girlfriend" not in returned_bodies(april)
    assert "girlfriend" not in graph_types(member, april, APRIL)
    # and a later word that does not restate it leaves the member's end standing
    sam(member, now=JUNE + timedelta(days=3), note="my friend", body="Sam and I are friends")
    [girlfriend] = theirs(member, "girlfriend")
    assert (girlfriend.valid_to, girlfriend.end_learned_at) == (MARCH, JUNE)


@pytest.mark.django_db
def test_recall_as_of_over_rest_answers_by_valid_time_with_the_learned_time():
    member = consenting_member()
    sam(member, now=JAN, note="my girlfriend", body="Sam is my girlfriend")
    sam(member, now=JUNE, note="my girlfriend, we broke up in March", body="Sam and I split")
    client = bearer_client(ServiceClientFactory(consumer="assistant"))
    url = f"/api/v1/members/{member.pk}/recall/"
    body = {"surface": "assistant", "scope": {"kind": "profile"}}

    def at(when):
        answer = client.post(url, {**body, "as_of": when.isoformat()}, format="json")
        assert answer.status_code == 200, answer.content
        return answer.json()

    february, april = at(FEB), at(APRIL)
    assert [e["body"] for e in february["entries"]] == ["Sam is my girlfriend"]
    [girlfriend] = [r for r in february["relationships"] if r["type"] == "girlfriend"]
    assert girlfriend["valid_to"].startswith(f"{YEAR}-03-01")
    assert girlfriend["learned_at"].startswith(f"{YEAR}-01-10")
    assert "Sam is my girlfriend" not in [e["body"] for e in april["entries"]]
    assert "girlfriend" not in {r["type"] for r in april["relationships"]}


@pytest.mark.django_db(transaction=True)
def test_recall_as_of_over_mcp_answers_by_valid_time(live_server, mcp_url):  # noqa: F811
    member = consenting_member()
    sam(member, now=JUNE, note="my partner since 2019", body="Sam and I live together")
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    recall_args = {
        "member_id": str(member.pk),
        "surface": "assistant",
        "scope": {"kind": "profile"},
    }

    async def calls(session):
        then = await session.call_tool(
            "recall", {**recall_args, "as_of": datetime(2020, 6, 1, tzinfo=UTC).isoformat()}
        )
        before = await session.call_tool(
            "recall", {**recall_args, "as_of": datetime(2018, 6, 1, tzinfo=UTC).isoformat()}
        )
        return then, before

    then, before = mcp(mcp_url, token, calls)
    assert not then.is_error and not before.is_error
    assert [e["body"] for e in then.structured_content["entries"]] == ["Sam and I live together"]
    [partner] = [r for r in then.structured_content["relationships"] if r["type"] == "partner"]
    assert partner["valid_from"].startswith("2019-01-01")
    assert partner["learned_at"].startswith(f"{YEAR}-06-03")
    assert before.structured_content["entries"] == []
    # REST says the same
    rest = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/recall/",
        method="POST",
        token=token,
        body={k: v for k, v in recall_args.items() if k != "member_id"}
        | {"as_of": datetime(2020, 6, 1, tzinfo=UTC).isoformat()},
    )
    assert rest.status == 200
    assert [e["body"] for e in rest.body["entries"]] == ["Sam and I live together"]


# --- Migration 0030 ---------------------------------------------------------------------------

BEFORE = [("memory", "0029_notice_promotion")]
AFTER = [("memory", "0030_relationship_valid_and_learned_time")]


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
def test_existing_relationships_keep_their_learned_time_as_their_valid_time(migrate):
    # given relationships stored before, whose interval was when Iris learned them
    apps = migrate(BEFORE)
    User = apps.get_model("iris_site", "User")
    Entity = apps.get_model("memory", "MemoryEntity")
    Relationship = apps.get_model("memory", "MemoryRelationship")
    member = User.objects.create(email="time@example.test", kind="member")
    me, sam_ = (
        Entity.objects.create(
            member=member, kind=kind, digest=kind * 8, created_at=JAN, state_changed_at=JAN
        )
        for kind in ("self", "person")
    )
    ended = Relationship.objects.create(
        id=uuid.UUID(int=1),
        member=member,
        from_entity=me,
        to_entity=sam_,
        type="sister",
        valid_from=JAN,
        valid_to=JUNE,
        created_at=JAN,
    )
    holds = Relationship.objects.create(
        id=uuid.UUID(int=2),
        member=member,
        from_entity=me,
        to_entity=sam_,
        type="colleague",
        valid_from=JUNE,
        created_at=JUNE,
    )
    # when
    apps = migrate(AFTER)
    # then each keeps its times as both clocks, said to no precision, as its own period
    Relationship = apps.get_model("memory", "MemoryRelationship")
    got = {
        r.pk: (r.valid_from, r.valid_to, r.learned_at, r.end_learned_at, r.period_id)
        for r in Relationship.objects.all()
    }
    assert got == {
        ended.pk: (JAN, JUNE, JAN, JUNE, ended.pk),
        holds.pk: (JUNE, None, JUNE, None, holds.pk),
    }
    assert set(Relationship.objects.values_list("valid_from_precision", flat=True)) == {""}


# --- The People page ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_person_page_shows_when_it_was_true_and_when_iris_learned_it_where_they_differ():
    member = consenting_member()
    sam(member, now=JAN, note="my girlfriend", body="Sam is my girlfriend")
    sam(member, now=JUNE, note="my girlfriend, we broke up in March", body="Sam and I split")
    sam(member, now=JUNE, note="my climbing partner since 2019", body="Sam belays me")
    client = Client()
    client.force_login(member)
    step_up(client)
    page = client.get(f"/profile/memory/people/{person(member).pk}/")
    text = " ".join(page.content.decode().split())
    # an end the member said, to the month, learned later than it happened
    assert (
        f"<span>from 10 January {YEAR} until March {YEAR}</span>"
        f' <span class="muted">· Iris learned it ended 3 June {YEAR}</span>'
    ) in text
    # a start told late, to the year
    assert (
        "<span>from 2019, still true</span>"
        f' <span class="muted">· Iris learned this 3 June {YEAR}</span>'
    ) in text
    # where they do not differ, one time: "about climbing" was true from when Iris heard it
    assert f"<span>from 10 January {YEAR}, still true</span>;" not in text
    assert text.count("Iris learned") == 2


@pytest.mark.django_db
def test_the_entity_api_gives_both_clocks_and_one_relationship_per_period():
    member = consenting_member()
    sam(member, now=JAN, note="my girlfriend", body="Sam is my girlfriend")
    sam(member, now=JUNE, note="my girlfriend, we broke up in March", body="Sam and I split")
    client = step_up_client(member)
    detail = client.get(f"{ENTITIES}{person(member).pk}/").json()
    [girlfriend] = [r for r in detail["relationships"] if r["type"] == "girlfriend"]
    assert girlfriend["valid_from"].startswith(f"{YEAR}-01-10")
    assert girlfriend["valid_from_precision"] == ""
    assert girlfriend["valid_to"].startswith(f"{YEAR}-03-01")
    assert girlfriend["valid_to_precision"] == "month"
    assert girlfriend["learned_at"].startswith(f"{YEAR}-01-10")
    assert girlfriend["end_learned_at"].startswith(f"{YEAR}-06-03")
    listed = {e["id"]: e for e in client.get(ENTITIES).json()}
    # the girlfriend period and the one "about climbing": two, however often restated
    assert listed[str(person(member).pk)]["relationship_count"] == 2
