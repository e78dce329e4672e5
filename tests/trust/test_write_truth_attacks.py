"""Writes tell the truth, attacked: a hostile surface and a retrying client try what
`test_write_truth.py` does not. Over real HTTP (`live_server`), each principal with its own
token; each asserts the refusal (or the harmless answer) and what was, or was not, stored.

- an `Idempotency-Key` is never another principal's: reused by another surface, or by the
  same surface for another member, it never replays the first answer (that would hand
  over what was stored);
- a write that the conflict ladder answers with an existing memory never echoes one the
  read gate withholds from the writer (paused by the member);
- an explicit consolidation is not the member's explicit request: working memory reaches
  the profile on the member's quoted words or the third occurrence only;
- a member's opt-out of conversation history (or of memory) is not bypassed by the turn
  log;
- origins and consent provenance are exact tokens, never case or whitespace variants.
"""

import json

import pytest

from consent.models import ConsentEvent
from hierarchy.models import ShortTermMemory
from iris_site.models import AuditEvent, IdempotencyRecord
from iris_site.services import token_issue
from memory.models import ConversationTurn, MemoryEntry
from tests.conftest import HttpResponse, http_request
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import assert_no_audit_mentions, consenting_member
from tests.stepup import step_up_token

live = pytest.mark.django_db(transaction=True)
SECRET = "Has been seeing a therapist for panic attacks"
FACT = "Prefers morning meetings"
PAUSED = "Takes the night train to Lyon every Friday"


def send(url, *, token, body=None, key=None, method="POST") -> HttpResponse:
    return http_request(url, method=method, token=token, body=body, key=key, timeout=30)


class World:
    def __init__(self, live_server, *consents: str):
        self.url = live_server.url
        self.member = consenting_member(*consents)
        self.member_token = step_up_token(self.member)
        self.tokens = {}

    def token(self, consumer: str) -> str:
        if consumer not in self.tokens:
            _, self.tokens[consumer] = token_issue(owner=ServiceClientFactory(consumer=consumer))
        return self.tokens[consumer]

    def members(self, path, body=None, *, consumer="assistant", member=None, key=None):
        member = member or self.member
        return send(
            f"{self.url}/api/v1/members/{member.pk}/{path}",
            token=self.token(consumer),
            body=body,
            key=key,
        )

    def me(self, path, body=None, *, method="POST", key=None):
        return send(
            f"{self.url}/api/v1/me/{path}",
            token=self.member_token,
            body=body,
            method=method,
            key=key,
        )

    def opt_out(self, category: str):
        response = self.me("opt-outs/", {"category": category, "opted_out": True})
        assert response.status == 201, response.body

    def short_term(self, content=FACT, *, scope_kind="user_session", scope_id="s-1", **fields):
        response = self.members(
            "short-term/",
            {
                "scope_kind": scope_kind,
                "scope_id": scope_id,
                "category": "preference",
                "content": content,
                **fields,
            },
        )
        assert response.status == 201, response.body
        return response.body["id"]


def session_write(body=FACT, **fields) -> dict:
    return {
        "scope": {"kind": "session", "session_id": "s-1"},
        "category": "preference",
        "body": body,
        "origin": "model-inferred",
        **fields,
    }


def refusal_events(member) -> list[AuditEvent]:
    return list(
        AuditEvent.objects.filter(
            target_member_id=member.pk,
            action__in=["memory.write.refused", "hierarchy.stm.consolidation_refused"],
        ).order_by("sequence")
    )


# --- Idempotency keys belong to their principal ---------------------------------------------


@live
def test_another_surface_reusing_a_key_never_gets_the_first_surfaces_answer(live_server):
    world = World(live_server)
    first = world.members("memories/", session_write(SECRET), key="shared-key")
    assert first.status == 201, first.body
    # when another surface sends the same key with the same body for the same member
    other = world.members("memories/", session_write(SECRET), key="shared-key", consumer="tara")
    # then it is its own write, never a replay of the assistant's answer
    assert not other.replayed
    assert other.body.get("id") != first.body["id"]
    assert other.status in (200, 201), other.body
    assert IdempotencyRecord.objects.filter(key="shared-key").count() == 2
    # and a third surface guessing the key with another body is not told anything either
    guess = world.members("memories/", session_write("x y z"), key="shared-key", consumer="nyx")
    assert not guess.replayed and guess.status in (200, 201, 403), guess.body
    assert SECRET not in json.dumps(guess.body)


@live
def test_the_same_key_for_another_member_is_a_409_not_a_replay(live_server):
    world = World(live_server)
    other = consenting_member()
    first = world.members("memories/", session_write(SECRET), key="k-1")
    assert first.status == 201, first.body
    again = world.members("memories/", session_write(SECRET), key="k-1", member=other)
    assert again.status == 409, again.body
    error = again.body["error"]
    assert error["code"] == "idempotency-key-reused" and "Idempotency-Key" in error["fields"]
    assert SECRET not in json.dumps(again.body)
    assert not MemoryEntry.objects.filter(member=other).exists()
    # a member reusing the surface's key on their own endpoint runs their own write
    mine = world.me("memories/", {**session_write(FACT), "origin": "user-stated"}, key="k-1")
    assert mine.status == 201 and not mine.replayed, mine.body


@live
def test_a_replay_after_the_memory_was_forgotten_does_not_return_its_text(live_server):
    world = World(live_server)
    first = world.members("memories/", session_write(SECRET), key="k-forget")
    assert first.status == 201, first.body
    forgot = world.me(f"memories/{first.body['id']}/forget/", {})
    assert forgot.status == 200, forgot.body
    again = world.members("memories/", session_write(SECRET), key="k-forget")
    assert again.status == 410, again.body
    assert SECRET not in json.dumps(again.body)
    # nor does a short-term replay after a full clear
    row_key = "k-stm"
    body = {"scope_kind": "user_session", "scope_id": "s-1", "category": "preference"}
    row = world.members("short-term/", {**body, "content": PAUSED}, key=row_key)
    assert row.status == 201, row.body
    assert world.me("memories/clear/", {}).status == 201
    retry = world.members("short-term/", {**body, "content": PAUSED}, key=row_key)
    assert retry.status == 410 and PAUSED not in json.dumps(retry.body), retry.body


# --- The conflict ladder's answer is an echo, never a read-gate bypass ----------------------


@live
def test_a_conflicting_write_does_not_echo_a_memory_the_member_paused(live_server):
    world = World(live_server)
    stated = world.me(
        "memories/",
        {
            "scope": {"kind": "profile"},
            "category": "preference",
            "subject": "commute",
            "body": PAUSED,
        },
    )
    assert stated.status == 201, stated.body
    paused = world.me(f"memories/{stated.body['id']}/pause/", {})
    assert paused.status == 200, paused.body
    # when a surface probes the subject with a conflicting inference
    probe = world.members("memories/", session_write("takes the bus", subject="commute"))
    # then the ladder keeps the member's fact, but the answer does not hand it over
    assert probe.status == 200, probe.body
    assert probe.body["outcome"] == "kept-existing"
    assert PAUSED not in json.dumps(probe.body), probe.body
    assert probe.body["entry"] is None
    # and a retry with a key replays the same content-free answer
    keyed = world.members(
        "memories/", session_write("takes the tram", subject="commute"), key="probe"
    )
    replay = world.members(
        "memories/", session_write("takes the tram", subject="commute"), key="probe"
    )
    assert keyed.status == 200 and replay.status == 200 and replay.replayed, replay.body
    for answer in (keyed, replay):
        assert PAUSED not in json.dumps(answer.body), answer.body


@live
def test_a_conflicting_write_still_echoes_a_memory_the_surface_may_read(live_server):
    world = World(live_server)
    stated = world.me(
        "memories/",
        {
            "scope": {"kind": "profile"},
            "category": "preference",
            "subject": "commute",
            "body": PAUSED,
        },
    )
    assert stated.status == 201, stated.body
    probe = world.members("memories/", session_write("takes the bus", subject="commute"))
    assert probe.status == 200 and probe.body["outcome"] == "kept-existing", probe.body
    assert probe.body["entry"]["id"] == stated.body["id"]


# --- Consolidation: "explicit" is not the member's word -------------------------------------


@live
def test_explicit_consolidation_of_a_one_off_session_row_into_the_profile_is_refused(
    live_server,
):
    world = World(live_server)
    row = world.short_term()
    response = world.members(
        f"short-term/{row}/consolidate/", {"explicit": True, "scope": {"kind": "profile"}}
    )
    assert response.status == 422, response.body
    assert response.body["error"]["code"] == "implicit-promotion-blocked"
    assert not MemoryEntry.objects.filter(member=world.member).exists()
    assert ShortTermMemory.objects.get(pk=row).consolidated_to is None
    [event] = refusal_events(world.member)
    assert event.payload["reason"] == "implicit-promotion-blocked"
    assert_no_audit_mentions(FACT)


@live
def test_explicit_consolidation_of_an_agent_row_into_the_profile_needs_the_members_turn(
    live_server,
):
    world = World(live_server)
    row = world.short_term(scope_kind="agent_run", scope_id="run-1")
    # the default target of an agent's row is the profile
    refused = world.members(f"short-term/{row}/consolidate/", {"explicit": True})
    assert refused.status == 422, refused.body
    assert refused.body["error"]["code"] == "implicit-promotion-blocked"
    assert not MemoryEntry.objects.filter(member=world.member).exists()
    # with the member's own words quoted, it is the member's explicit request
    said = world.members("sessions/s-9/turns/", {"speaker": "member", "text": FACT})
    assert said.status == 201, said.body
    done = world.members(
        f"short-term/{row}/consolidate/",
        {"explicit": True, "origin": "user-stated", "turns": [said.body["id"]]},
    )
    assert done.status == 201, done.body
    assert done.body["promotion_reason"] == "explicit-promotion"
    entry = MemoryEntry.objects.get(pk=done.body["entry_id"])
    assert (entry.scope_kind, entry.origin) == ("profile", "user-stated")


@live
def test_quoting_an_off_the_record_conversation_refuses_the_consolidation(live_server):
    world = World(live_server)
    said = world.members("sessions/quiet/turns/", {"speaker": "member", "text": FACT})
    assert said.status == 201, said.body
    row = world.short_term(scope_kind="agent_run", scope_id="run-1")
    went_quiet = world.me("off-the-record/", {"active": True, "session_id": "quiet"}, method="PUT")
    assert went_quiet.status == 200, went_quiet.body
    response = world.members(
        f"short-term/{row}/consolidate/",
        {"explicit": True, "origin": "user-stated", "turns": [said.body["id"]]},
    )
    assert response.status == 422 and response.body["error"]["code"] == "paused", response.body
    assert not MemoryEntry.objects.filter(member=world.member).exists()


# --- Opt-outs hold for the turn log too -----------------------------------------------------


@pytest.mark.parametrize("category", ["conversation_history", "memory"])
@live
def test_a_turn_is_not_logged_once_the_member_opted_out(live_server, category):
    world = World(live_server)
    world.opt_out(category)
    response = world.members("sessions/s-1/turns/", {"speaker": "member", "text": SECRET})
    assert response.status == 422, response.body
    assert response.body["error"]["code"] == "scope-suppressed"
    assert not ConversationTurn.objects.filter(member=world.member).exists()
    [event] = refusal_events(world.member)
    assert (event.payload["write"], event.payload["reason"]) == ("turn", "scope-suppressed")
    assert_no_audit_mentions(SECRET)


@live
def test_an_embodied_opt_out_does_not_stop_the_turn_log(live_server):
    world = World(live_server)
    world.opt_out("embodied")
    response = world.members("sessions/s-1/turns/", {"speaker": "member", "text": FACT})
    assert response.status == 201, response.body


# --- Exact tokens: origins and consent provenance -------------------------------------------


@pytest.mark.parametrize(
    "origin", ["User-Confirmed", "user-confirmed ", " user-stated", "USER-STATED", "member", ""]
)
@live
def test_origin_variants_are_bad_input_and_store_nothing(live_server, origin):
    world = World(live_server, "category:mental_health")
    response = world.members(
        "memories/", session_write(SECRET, category="mental_health", origin=origin)
    )
    assert response.status == 400, response.body
    assert "origin" in response.body["error"]["fields"]
    assert not MemoryEntry.objects.filter(member=world.member).exists()
    assert_no_audit_mentions(SECRET)


@pytest.mark.parametrize(
    "provenance",
    [
        {"capture_method": "Operator-Recorded"},
        {"capture_method": "operator-recorded "},
        {"capture_method": "dsar-import"},
        {"legal_basis": "Vital_Interests"},
        {"legal_basis": "legitimate_interests"},
        {"capture_method": "settings-toggle", "legal_basis": "vital_interests"},
    ],
)
@live
def test_a_member_cannot_forge_consent_provenance_by_variant(live_server, provenance):
    world = World(live_server)
    before = ConsentEvent.objects.filter(member=world.member).count()
    response = world.me(
        "consents/events/", {"consent_type": "category:medical", "kind": "grant", **provenance}
    )
    assert response.status in (400, 403), response.body
    assert ConsentEvent.objects.filter(member=world.member).count() == before


@live
def test_refusal_events_hold_codes_never_the_body_or_the_subject(live_server):
    world = World(live_server, "category:mental_health")
    attempts = [
        session_write(SECRET, category="mental_health", origin="user-confirmed"),
        session_write(SECRET, category="mental_health", origin="operator-copilot"),
        session_write(SECRET, category="medical", subject="panic attacks"),
        session_write(SECRET, category="mental_health", origin="user-stated"),
    ]
    for body in attempts:
        assert world.members("memories/", body).status in (403, 422)
    events = refusal_events(world.member)
    assert len(events) == len(attempts)
    for event in events:
        assert set(event.payload) <= {"write", "reason", "status", "consumer", "scope_kind"}
    assert_no_audit_mentions(SECRET, "panic attacks")


# --- A profile write always names its conversation ------------------------------------------


@live
def test_a_third_occurrence_into_the_profile_still_names_its_conversation(live_server):
    world = World(live_server)
    for session in ("s-1", "s-2"):
        stored = world.members(
            f"memories/?session_id={session}",
            {**session_write(FACT), "scope": {"kind": "profile"}},
        )
        assert stored.headers["Iris-Stored-As"] == "session", stored.body
    went_quiet = world.me("off-the-record/", {"active": True, "session_id": "quiet"}, method="PUT")
    assert went_quiet.status == 200, went_quiet.body
    # when the third occurrence comes from the quiet conversation without naming it
    unnamed = world.members("memories/", {**session_write(FACT), "scope": {"kind": "profile"}})
    assert unnamed.status == 400, unnamed.body
    assert unnamed.body["error"]["code"] == "session-required"
    named = world.members(
        "memories/?session_id=quiet", {**session_write(FACT), "scope": {"kind": "profile"}}
    )
    assert named.status == 422 and named.body["error"]["code"] == "paused", named.body
    assert not MemoryEntry.objects.filter(member=world.member, scope_kind="profile").exists()


# --- One key, racing across endpoints and principals (PostgreSQL) ---------------------------


@live
def test_one_key_racing_across_endpoints_and_surfaces_never_crosses_over(live_server):
    import threading

    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers: PostgreSQL only (SQLite has one write lock)")
    world = World(live_server)
    for consumer in ("assistant", "tara"):
        world.token(consumer)
    writes = {
        "memories/": lambda consumer: session_write(f"{consumer} notes a liking for figs"),
        "sessions/s-1/turns/": lambda consumer: {"speaker": "member", "text": f"hi {consumer}"},
        "short-term/": lambda consumer: {
            "scope_kind": "user_session",
            "scope_id": f"s-{consumer}",
            "category": "preference",
            "content": f"{consumer} working note",
        },
    }
    jobs = [(path, consumer) for path in writes for consumer in ("assistant", "tara")] * 3
    start = threading.Barrier(len(jobs))
    answers: list[tuple[str, str, HttpResponse]] = []
    errors: list[BaseException] = []

    def run(path, consumer):
        try:
            start.wait(timeout=20)
            answer = world.members(path, writes[path](consumer), consumer=consumer, key="same")
            answers.append((path, consumer, answer))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    assert errors == [] and len(answers) == len(jobs)
    # exactly one write per (endpoint, surface), each replayed only to its own surface
    assert MemoryEntry.objects.filter(member=world.member).count() == 2
    assert ConversationTurn.objects.filter(member=world.member).count() == 2
    assert ShortTermMemory.objects.filter(member=world.member).count() == 2
    ids: dict[tuple[str, str], set[str]] = {}
    for path, consumer, answer in answers:
        if answer.status == 409:
            assert answer.body["error"]["code"] == "idempotency-in-progress", answer.body
            continue
        assert answer.status == 201, answer.body
        ids.setdefault((path, consumer), set()).add(answer.body["id"])
        field = {"memories/": "body", "short-term/": "content"}.get(path)
        if field is not None:
            assert answer.body[field] == writes[path](consumer)[field], (path, consumer)
    for path in writes:
        mine, theirs = ids.get((path, "assistant"), set()), ids.get((path, "tara"), set())
        assert len(mine) <= 1 and len(theirs) <= 1 and not mine & theirs, (path, ids)
