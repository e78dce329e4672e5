"""Writes tell the truth: an origin is bound to who writes, a surface's provenance is
checked, a profile write from a conversation is a promotion, and off the record holds
for every conversation a write comes from. One test per attack, over real HTTP with each
principal's own token; each asserts the refusal code, that nothing was stored, and that
the refusal is on the chain with ids and codes only."""

import uuid

import pytest

from hierarchy.models import ShortTermMemory
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import http_request
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import assert_no_audit_mentions, consenting_member

live = pytest.mark.django_db(transaction=True)
SECRET = "Has been seeing a therapist for panic attacks"
FACT = "Prefers morning meetings"


class World:
    def __init__(self, live_server, *consents: str):
        self.url = live_server.url
        self.member = consenting_member(*consents)
        _, self.member_token = token_issue(owner=self.member)
        self.tokens = {}

    def token(self, consumer: str) -> str:
        if consumer not in self.tokens:
            _, self.tokens[consumer] = token_issue(owner=ServiceClientFactory(consumer=consumer))
        return self.tokens[consumer]

    def members(self, path: str, body=None, *, consumer="assistant", method="POST", member=None):
        member = member or self.member
        return http_request(
            f"{self.url}/api/v1/members/{member.pk}/{path}",
            method=method,
            token=self.token(consumer),
            body=body,
        )

    def remember(self, query: str = "", consumer="assistant", **fields):
        body = {
            "scope": {"kind": "profile"},
            "category": "preference",
            "body": FACT,
            "origin": "model-inferred",
            **fields,
        }
        return self.members(f"memories/{query}", body, consumer=consumer)

    def turn(self, text: str, *, session="s-1", speaker="member", member=None) -> str:
        response = self.members(
            f"sessions/{session}/turns/", {"speaker": speaker, "text": text}, member=member
        )
        assert response.status == 201, response.body
        return response.body["id"]

    def off_the_record(self, session: str):
        response = http_request(
            f"{self.url}/api/v1/me/off-the-record/",
            method="PUT",
            token=self.member_token,
            body={"active": True, "session_id": session},
        )
        assert response.status == 200, response.body


def quoting(turn_id: str) -> list[dict]:
    return [{"kind": "session-turn", "ref": turn_id, "captured_at": "2026-11-30T10:00:00Z"}]


def entries(member) -> list[MemoryEntry]:
    return list(MemoryEntry.objects.filter(member=member))


def refusal_reasons(member) -> list[str]:
    return [
        e.payload["reason"]
        for e in AuditEvent.objects.filter(
            target_member_id=member.pk, action="memory.write.refused"
        ).order_by("sequence")
    ]


def assert_refused(response, status: int, code: str, world: World):
    assert response.status == status, response.body
    assert response.body["error"]["code"] == code
    assert entries(world.member) == []
    if status != 400:  # bad input is not a policy refusal
        assert code in refusal_reasons(world.member)
    assert_no_audit_mentions(SECRET, FACT)


# --- A sensitive inference stays an inference, whatever it is labelled ----------------------


@live
def test_a_surface_cannot_label_a_sensitive_inference_user_confirmed(live_server):
    world = World(live_server, "category:mental_health")
    response = world.remember(
        "?session_id=s-1", category="mental_health", body=SECRET, origin="user-confirmed"
    )
    assert_refused(response, 403, "origin-not-allowed", world)


@pytest.mark.parametrize("origin", ["summarized-from-session", "imported"])
@live
def test_a_sensitive_summary_or_import_from_a_surface_needs_confirmation(live_server, origin):
    world = World(live_server, "category:mental_health")
    response = world.remember(
        "?session_id=s-1",
        category="mental_health",
        body=SECRET,
        origin=origin,
        scope={"kind": "session", "session_id": "s-1"},
    )
    assert_refused(response, 422, "sensitive-inference-requires-confirmation", world)


@live
def test_a_surface_cannot_write_operator_copilot_notes(live_server):
    world = World(live_server)
    response = world.remember("?session_id=s-1", origin="operator-copilot")
    assert_refused(response, 403, "origin-not-allowed", world)


@live
def test_user_stated_from_a_surface_needs_the_members_turn(live_server):
    world = World(live_server, "category:mental_health")
    # no turn at all
    bare = world.remember("?session_id=s-1", category="mental_health", origin="user-stated")
    assert_refused(bare, 422, "user-stated-needs-member-turn", world)
    # the assistant's own turn is not the member's word
    said_by_assistant = world.turn(SECRET, speaker="assistant")
    echoed = world.remember(
        category="mental_health",
        body=SECRET,
        origin="user-stated",
        provenance=quoting(said_by_assistant),
    )
    assert_refused(echoed, 422, "user-stated-needs-member-turn", world)
    # another member's turn, or one that does not exist, is refused the same way
    other = consenting_member()
    theirs = world.turn(SECRET, member=other)
    for ref in (theirs, str(uuid.uuid4()), "not-a-turn"):
        forged = world.remember(
            category="mental_health", body=SECRET, origin="user-stated", provenance=quoting(ref)
        )
        assert_refused(forged, 422, "provenance-turn-not-found", world)


@live
def test_user_stated_must_be_what_the_quoted_turn_says(live_server):
    world = World(live_server, "category:mental_health")
    hello = world.turn("hi there, how are you today")
    pinned = world.remember(
        category="mental_health", body=SECRET, origin="user-stated", provenance=quoting(hello)
    )
    assert_refused(pinned, 422, "user-stated-not-in-turn", world)


@live
def test_user_stated_with_the_members_turn_is_kept_as_their_word(live_server):
    world = World(live_server, "category:mental_health")
    said = world.turn(SECRET)
    response = world.remember(
        category="mental_health", body=SECRET, origin="user-stated", provenance=quoting(said)
    )
    # then: stored in the profile, as an explicit promotion (the member's own words)
    assert response.status == 201, response.body
    assert response.body["origin"] == "user-stated"
    assert response.body["scope"]["kind"] == "profile"
    assert response.headers["Iris-Promotion"] == "explicit-promotion"
    assert response.headers["Iris-Stored-As"] == "profile"


# --- Session memory is never silently promoted ---------------------------------------------


@live
def test_a_one_off_inference_aimed_at_the_profile_stays_in_its_session(live_server):
    world = World(live_server)
    response = world.remember("?session_id=s-1")
    assert response.status == 201, response.body
    assert response.headers["Iris-Promotion"] == "implicit-promotion-blocked"
    assert response.headers["Iris-Stored-As"] == "session"
    assert response.body["scope"] == {
        "kind": "session",
        "user_id": str(world.member.pk),
        "session_id": "s-1",
    }
    [entry] = entries(world.member)
    assert entry.scope_kind == "session"


@live
def test_labelling_a_fact_an_import_does_not_skip_the_promotion_rule(live_server):
    world = World(live_server)
    imported = [{"kind": "manual-import", "ref": "crm-1", "captured_at": "2026-11-30T10:00:00Z"}]
    response = world.remember("?session_id=s-1", origin="imported", provenance=imported)
    assert response.status == 201, response.body
    assert response.headers["Iris-Stored-As"] == "session"
    assert not MemoryEntry.objects.filter(member=world.member, scope_kind="profile").exists()
    no_session = world.remember(origin="imported", provenance=imported)
    assert no_session.status == 400 and no_session.body["error"]["code"] == "session-required"


@live
def test_the_third_occurrence_is_promoted_to_the_profile(live_server):
    world = World(live_server)
    outcomes = [world.remember(f"?session_id=s-{n}").headers["Iris-Promotion"] for n in (1, 2, 3)]
    assert outcomes == [
        "implicit-promotion-blocked",
        "repeated-occurrence-threshold-not-met",
        "repeated-occurrence-threshold-met",
    ]
    kinds = sorted(
        MemoryEntry.objects.filter(member=world.member).values_list("scope_kind", flat=True)
    )
    assert kinds == ["profile", "session", "session"]


@live
def test_a_profile_write_names_the_conversation_it_came_from(live_server):
    world = World(live_server)
    response = world.remember()
    assert_refused(response, 400, "session-required", world)
    assert "session_id" in response.body["error"]["fields"]


# --- Off the record by conversation --------------------------------------------------------


@live
def test_an_off_the_record_conversation_refuses_writes_that_do_not_name_it(live_server):
    world = World(live_server)
    said = world.turn(FACT, session="quiet")
    world.off_the_record("quiet")
    # when a surface quotes that conversation's turn without volunteering `?session_id=`
    for scope in ({"kind": "profile"}, {"kind": "notebook", "notebook_id": "n-1"}):
        response = world.remember(origin="user-stated", provenance=quoting(said), scope=scope)
        assert_refused(response, 422, "paused", world)
    # and a turn in it is refused too
    turn = world.members("sessions/quiet/turns/", {"speaker": "member", "text": FACT})
    assert turn.status == 422 and turn.body["error"]["code"] == "paused"
    assert ConversationTurn.objects.filter(member=world.member).count() == 1


# --- Consolidation is member-scoped and writer-scoped --------------------------------------


@live
def test_consolidation_names_the_member_and_follows_the_origin_rule(live_server):
    world = World(live_server, "category:mental_health")
    other = consenting_member("category:mental_health")
    row = world.members(
        "short-term/",
        {
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "preference",
            "content": FACT,
        },
    )
    assert row.status == 201, row.body
    path = f"short-term/{row.body['id']}/consolidate/"
    # under another member's path the row is not there
    elsewhere = world.members(path, {"explicit": True}, member=other)
    assert elsewhere.status == 404
    # the old, member-less path is gone
    legacy = http_request(
        f"{world.url}/api/v1/short-term/{row.body['id']}/consolidate/",
        method="POST",
        token=world.token("assistant"),
        body={},
    )
    assert legacy.status == 404
    # a surface cannot promote working memory as the member's word
    for origin, status, code in (
        ("user-confirmed", 403, "origin-not-allowed"),
        ("user-stated", 422, "user-stated-needs-member-turn"),
        ("operator-copilot", 403, "origin-not-allowed"),
    ):
        refused = world.members(path, {"explicit": True, "origin": origin})
        assert refused.status == status, refused.body
        assert refused.body["error"]["code"] == code
    assert entries(world.member) == []
    assert ShortTermMemory.objects.get(pk=row.body["id"]).consolidated_to is None
    # as an inference, it is consolidated
    done = world.members(path, {"explicit": True})
    assert done.status == 201, done.body
    assert MemoryEntry.objects.get(pk=done.body["entry_id"]).origin == "model-inferred"


@live
def test_a_consumer_cannot_consolidate_another_consumers_sensitive_row(live_server):
    world = World(live_server, "category:medical")
    row = world.members(
        "short-term/",
        {
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "medical",
            "content": SECRET,
        },
        consumer="tara",
    )
    assert row.status == 201, row.body
    path = f"short-term/{row.body['id']}/consolidate/"
    for consumer in ("assistant", "nisaba"):
        response = world.members(
            f"{path}?context=health",
            {"explicit": True, "origin": "user-confirmed"},
            consumer=consumer,
        )
        assert response.status in (403, 404), response.body
    # and even its own writer cannot make it the member's confirmed word
    own = world.members(
        f"{path}?context=health", {"explicit": True, "origin": "user-confirmed"}, consumer="tara"
    )
    assert own.status == 403 and own.body["error"]["code"] == "origin-not-allowed", own.body
    own_inference = world.members(f"{path}?context=health", {"explicit": True}, consumer="tara")
    assert own_inference.status == 422
    assert own_inference.body["error"]["code"] == "sensitive-inference-requires-confirmation"
    assert entries(world.member) == []
    assert ShortTermMemory.objects.get(pk=row.body["id"]).consolidated_to is None
    assert_no_audit_mentions(SECRET)
