"""The members' opt-out ledger: append-only events through one service, the member API
over real HTTP, and the audit each change leaves (ids only)."""

import json

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from consent.enums import OptOutCategory
from consent.models import ConsentEvent, OptOutEvent
from consent.selectors import (
    consent_active,
    consent_gate_state,
    opt_out_latest,
    opt_outs_active,
)
from consent.services import OPT_OUT_ACTION
from iris_site.errors import InvalidInput
from iris_site.models import AuditEvent, User
from iris_site.services import token_issue
from tests.conftest import bearer_client, http_request
from tests.consent.factories import opt, record
from tests.iris_site.factories import MemberFactory, OperatorFactory, ServiceClientFactory
from tests.tamper import owner_tamper

pytestmark = pytest.mark.django_db

OPT_OUTS = "/api/v1/me/opt-outs/"


# --- the service ---------------------------------------------------------------------------


def test_opting_out_and_back_in_appends_events_and_repeats_write_nothing():
    # given
    member = MemberFactory()
    # when
    first = opt(member, "embodied")
    again = opt(member, "embodied")
    back = opt(member, "embodied", opted_out=False)
    back_again = opt(member, "embodied", opted_out=False)
    never = opt(member, "memory", opted_out=False)
    # then
    assert (first.created, again.created, back.created, back_again.created) == (
        True,
        False,
        True,
        False,
    )
    assert again.event.pk == first.event.pk and back_again.event.pk == back.event.pk
    assert never.created is False and never.event is None and never.opted_out is False
    events = list(OptOutEvent.objects.filter(member=member).order_by("sequence"))
    assert [(e.sequence, e.category, e.kind) for e in events] == [
        (1, "embodied", "opt-out"),
        (2, "embodied", "opt-in"),
    ]
    assert all(e.actor_id == member.pk and e.witness == "session" for e in events)
    assert opt_outs_active(member_id=member.pk) == frozenset()


def test_the_current_set_is_the_latest_event_per_category_and_per_member():
    member, other = MemberFactory(), MemberFactory()
    opt(member, "embodied")
    opt(member, "personalization")
    opt(member, "embodied", opted_out=False)
    opt(other, "memory")
    assert opt_outs_active(member_id=member.pk) == {"personalization"}
    assert opt_outs_active(member_id=other.pk) == {"memory"}
    assert {c: e.kind for c, e in opt_out_latest(member_id=member.pk).items()} == {
        "embodied": "opt-in",
        "personalization": "opt-out",
    }


def test_the_current_set_is_one_query_on_the_ledger_alone():
    """Read on every recall and write: the ledger's own index answers it, without joining
    the members' table to order by their email (the ordering is by the member's id)."""
    member = MemberFactory()
    opt(member, "embodied")
    with CaptureQueriesContext(connection) as queries:
        assert opt_outs_active(member_id=member.pk) == {"embodied"}
    assert len(queries) == 1
    assert User._meta.db_table not in queries[0]["sql"]


def test_each_change_is_audited_with_ids_and_enums_only():
    member = MemberFactory()
    result = opt(member, "conversation_history")
    opt(member, "conversation_history")  # a repeat: no second event
    (event,) = AuditEvent.objects.filter(target_member_id=member.pk, action=OPT_OUT_ACTION)
    assert event.payload == {
        "event_id": str(result.event.pk),
        "sequence": 1,
        "category": "conversation_history",
        "kind": "opt-out",
    }
    assert event.actor_type == "member" and str(event.actor_id) == str(member.pk)


def test_an_unknown_category_is_refused():
    with pytest.raises(InvalidInput, match="opt-out is invalid") as excinfo:
        opt(MemberFactory(), "telepathy")
    assert excinfo.value.fields == {"category": ["Unknown opt-out category 'telepathy'."]}
    assert not OptOutEvent.objects.exists()


# --- append-only -------------------------------------------------------------------------


def test_the_model_refuses_to_save_an_existing_event():
    event = opt(MemberFactory(), "memory").event
    with pytest.raises(ValueError, match="append-only"):
        event.save()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE consent_optoutevent SET kind = 'opt-in' WHERE id = %s",
        "DELETE FROM consent_optoutevent WHERE id = %s",
    ],
    ids=["update", "delete"],
)
def test_the_database_refuses_update_and_delete(statement):
    """PostgreSQL's trigger (no session switch turns it off), SQLite's native one."""
    event = opt(MemberFactory(), "memory").event
    pk = event.pk.hex if connection.vendor == "sqlite" else str(event.pk)
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        if connection.vendor == "postgresql":
            pgid = OptOutEvent._meta.triggers[0].get_pgid(OptOutEvent)
            cursor.execute(f"SET LOCAL pgtrigger.ignore = '{{{pgid}}}'")
        cursor.execute(statement, [pk])
    event.refresh_from_db()
    assert event.kind == "opt-out"


# --- the member API over real HTTP --------------------------------------------------------


@pytest.fixture
def member_token():
    member = MemberFactory()
    _, raw = token_issue(owner=member)
    return member, raw


@pytest.mark.django_db(transaction=True)
def test_a_member_opts_out_and_back_in_over_http_and_reads_the_history(live_server, member_token):
    member, token = member_token
    url = live_server.url + OPT_OUTS
    # when
    created = http_request(
        url, method="POST", token=token, body={"category": "embodied", "opted_out": True}
    )
    repeated = http_request(
        url, method="POST", token=token, body={"category": "embodied", "opted_out": True}
    )
    http_request(
        url, method="POST", token=token, body={"category": "personalization", "opted_out": True}
    )
    back = http_request(
        url, method="POST", token=token, body={"category": "embodied", "opted_out": False}
    )
    listing = http_request(url, token=token)
    # then
    assert created.status == 201 and repeated.status == 200 and back.status == 201
    assert created.body["category"] == "embodied" and created.body["opted_out"] is True
    assert created.body["label"] == "Scenes and movement"
    assert repeated.body["event_id"] == created.body["event_id"]
    assert back.body["opted_out"] is False
    assert listing.status == 200
    body = listing.body
    assert body["opted_out"] == ["personalization"]
    states = {s["category"]: s["opted_out"] for s in body["categories"]}
    assert states == {
        "memory": False,
        "personalization": True,
        "conversation_history": False,
        "embodied": False,
        "cross_domain_sharing": False,
    }
    assert [(e["sequence"], e["category"], e["kind"]) for e in body["history"]] == [
        (3, "embodied", "opt-in"),
        (2, "personalization", "opt-out"),
        (1, "embodied", "opt-out"),
    ]
    assert body["history_count"] == 3
    assert all(e["witness"].startswith("token:") for e in body["history"])
    assert all(e["actor_id"] == str(member.pk) for e in body["history"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"category": "telepathy", "opted_out": True}, "category"),
        ({"category": "memory", "opted_out": "yes"}, "opted_out"),
        ({"category": "memory", "opted_out": 1}, "opted_out"),
        ({"category": "memory"}, "opted_out"),
        ({"category": "memory", "opted_out": True, "forever": True}, "forever"),
    ],
)
def test_strict_input_is_a_400_envelope_naming_the_field(body, field):
    client = bearer_client(MemberFactory())
    response = client.post(OPT_OUTS, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and field in error["fields"]
    assert not OptOutEvent.objects.exists()


def test_only_members_have_opt_outs():
    for principal in (ServiceClientFactory(consumer="assistant"), OperatorFactory()):
        client = bearer_client(principal)
        assert client.get(OPT_OUTS).status_code == 403
        response = client.post(OPT_OUTS, {"category": "memory", "opted_out": True}, format="json")
        assert response.status_code == 403
    assert not OptOutEvent.objects.exists()


def test_a_members_opt_outs_are_their_own():
    a, b = MemberFactory(), MemberFactory()
    opt(a, "memory")
    body = bearer_client(b).get(OPT_OUTS).json()
    assert body["opted_out"] == [] and body["history"] == [] and body["history_count"] == 0
    assert json.dumps(body).count(str(a.pk)) == 0


# --- the gate's read of both ledgers at once -------------------------------------------------

_CONSENT_STEPS = st.tuples(
    st.sampled_from(["data_processing", "data_storage", "category:medical", "category:financial"]),
    st.sampled_from(["grant", "withdrawal"]),
)
_OPT_OUT_STEPS = st.tuples(st.sampled_from(list(OptOutCategory.values)), st.booleans())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(st.one_of(_CONSENT_STEPS, _OPT_OUT_STEPS), max_size=8),
    forged=st.booleans(),
)
def test_the_gate_reads_both_ledgers_in_one_statement_as_the_two_reads_say(steps, forged):
    # given a member's random history of consents and opt-outs, and another member's
    member, other = MemberFactory(), MemberFactory()
    opt(other, "memory")
    record(other, "data_storage")
    for step in steps:
        if isinstance(step[1], bool):
            opt(member, step[0], opted_out=step[1])
        elif (step[1] == "grant") != consent_active(member_id=member.pk).allows(step[0]):
            record(member, step[0], step[1])  # a grant of what is not granted, or back
    if forged and ConsentEvent.objects.filter(member=member).exists():
        # a ledger rewritten behind Iris's back: the gate must fail closed on consents
        with transaction.atomic(), owner_tamper(ConsentEvent):
            ConsentEvent.objects.filter(member=member).update(witness="forged")
    # when the gate reads both at once
    with CaptureQueriesContext(connection) as captured:
        active, opt_outs = consent_gate_state(member_id=member.pk)
    # then it says exactly what the two reads say, in one statement (a forged ledger
    # adds the settling, under the member lock)
    assert active == consent_active(member_id=member.pk)
    assert opt_outs == opt_outs_active(member_id=member.pk)
    if not forged:
        assert len(captured.captured_queries) == 1
