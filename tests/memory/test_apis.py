"""The memory HTTP API: the member's own memory and the surfaces' remember and turns,
over HTTP semantics (envelopes, status codes, isolation) with the audit each write leaves."""

import itertools
import json
from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from iris_site.audit.sealing import resolver_for
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.enums import Lifecycle
from memory.forgetting.services import memory_clear_purge_due
from memory.models import (
    ConversationTurn,
    MemoryEntry,
    MemoryNotice,
    MemoryRevision,
    RecallRecord,
)
from tests.conftest import bearer_client, http_request
from tests.iris_site.factories import (
    MemberFactory,
    OperatorFactory,
    ServiceClientFactory,
    TenantFactory,
)
from tests.memory.factories import (
    assert_no_audit_mentions,
    consenting_member,
    memory_audit,
    remember,
)
from tests.stepup import step_up_client

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/memories/"
COFFEE = "I take my coffee black"
TEA = "I switched to green tea"
CONTRACT_FIELDS = {
    "id",
    "revision_id",
    "previous_revision_id",
    "user_id",
    "tenant_id",
    "scope",
    "category",
    "subject",
    "body",
    "confidence",
    "origin",
    "lifecycle",
    "consent",
    "provenance_chain",
    "expires_at",
    "last_referenced_at",
    "reference_count",
    "suppression",
    "multi_actor",
    "audit_chain",
    "created_at",
    "updated_at",
    # when it was true, as the member said it (issue 47), apart from when Iris learned it
    "valid_from",
    "valid_from_precision",
    "valid_to",
    "valid_to_precision",
}


def detail(entry_id) -> str:
    return f"{ME}{entry_id}/"


def service_url(member, path: str = "memories/") -> str:
    return f"/api/v1/members/{member.pk}/{path}"


def surface(consumer: str = "assistant") -> APIClient:
    return bearer_client(ServiceClientFactory(consumer=consumer))


def create(client, **fields):
    body = {"scope": {"kind": "profile"}, "category": "preference", "body": COFFEE, **fields}
    return client.post(ME, body, format="json")


def error(response) -> dict:
    return response.json()["error"]


def entry_events(member):
    """The member's entry events (the entities each write derives audit apart)."""
    return [e for e in memory_audit(member) if e.action.startswith("memory.entry.")]


# --- Create ----------------------------------------------------------------------------------


def test_a_member_states_a_memory():
    # given
    member = consenting_member()
    client = step_up_client(member)
    # when
    response = create(client, subject="coffee", origin="user-stated")
    # then
    assert response.status_code == 201
    entry = response.json()
    assert set(entry) == CONTRACT_FIELDS
    assert entry["scope"] == {"kind": "profile", "user_id": str(member.pk)}
    assert entry["user_id"] == str(member.pk) and entry["tenant_id"] is None
    assert (entry["origin"], entry["lifecycle"], entry["confidence"]) == (
        "user-stated",
        "active",
        1.0,
    )
    assert (entry["subject"], entry["body"], entry["previous_revision_id"]) == (
        "coffee",
        COFFEE,
        None,
    )
    assert entry["suppression"] is None and entry["multi_actor"] is None
    assert [a["action"] for a in entry["audit_chain"]] == ["created"]
    [event] = entry_events(member)
    assert event.action == "memory.entry.created"
    assert event.payload["entry_id"] == entry["id"]
    assert event.payload["revision_id"] == entry["revision_id"]
    assert (event.actor_type, event.actor_id) == ("member", member.pk)
    assert_no_audit_mentions(COFFEE)


SESSION_WITHOUT_ID = {"scope": {"kind": "session"}}
POSE_WITHOUT_AVATAR = {
    "scope": {"kind": "pose", "session_id": "s", "scene_id": "c", "pose_id": "p"}
}


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"body": "x" * 4001}, "body"),
        ({"body": "   "}, "body"),
        ({"category": "astrology"}, "category"),
        (SESSION_WITHOUT_ID, "scope"),
        (POSE_WITHOUT_AVATAR, "scope"),
        ({"scope": {"session_id": "s-1"}}, "scope"),
        (
            {
                "scope": {
                    "kind": "operator-copilot",
                    "operator_id": "6f1f0a56-9f43-4a4e-9d0e-5d3c1f1b7a10",
                }
            },
            "scope.kind",
        ),
        ({"scope": {"kind": "crisis"}}, "scope.kind"),
        ({"origin": "model-inferred"}, "origin"),
        ({"confidence": 0.2}, "confidence"),
        ({"multi_actor": {"relationship_note": "sister"}}, "multi_actor"),
    ],
)
def test_an_invalid_member_write_is_400_with_field_errors_and_writes_nothing(fields, field):
    member = consenting_member()
    response = create(step_up_client(member), **fields)
    assert response.status_code == 400
    assert error(response)["code"] == "invalid"
    assert any(key.startswith(field) for key in error(response)["fields"]), error(response)
    assert "x" * 100 not in response.content.decode()  # input never echoed back
    assert not MemoryEntry.objects.exists() and not MemoryRevision.objects.exists()
    assert memory_audit(member) == []


def test_a_scope_naming_another_member_is_refused():
    member, other = consenting_member(), MemberFactory()
    response = create(step_up_client(member), scope={"kind": "profile", "user_id": str(other.pk)})
    assert response.status_code == 400
    assert not MemoryEntry.objects.exists()


def test_a_non_object_body_is_400():
    response = step_up_client(consenting_member()).post(ME, [1, 2], format="json")
    assert response.status_code == 400 and error(response)["code"] == "invalid"


def test_a_sensitive_memory_without_consent_is_422_with_the_seeds_code():
    member = consenting_member()
    response = create(step_up_client(member), category="medical", body="I use an inhaler")
    assert response.status_code == 422
    assert error(response)["code"] == "sensitive-category-without-consent"
    assert "category:medical" in error(response)["message"]
    assert not MemoryEntry.objects.exists()


def test_a_member_restating_a_subject_supersedes_the_older_statement():
    client = step_up_client(consenting_member())
    first = create(client, subject="coffee").json()
    second = create(client, subject="Coffee ", body=TEA)
    assert second.status_code == 201
    assert client.get(detail(first["id"])).json()["lifecycle"] == "superseded"


# --- List ------------------------------------------------------------------------------------


def test_the_list_filters_searches_and_paginates():
    # given
    member = consenting_member("category:medical")
    client = step_up_client(member)
    profile = create(client, subject="coffee").json()
    session = create(
        client, scope={"kind": "session", "session_id": "s-1"}, category="goal", body="Run 5k"
    ).json()
    medical = create(client, category="medical", body="I use an inhaler").json()
    inferred = remember(member, subject="tea", body=TEA, origin="model-inferred").entry
    forgotten = create(client, subject="gone", body="Something I forgot").json()
    client.post(f"{detail(forgotten['id'])}forget/")

    def ids(**params) -> set[str]:
        response = client.get(ME, params)
        assert response.status_code == 200, response.json()
        return {e["id"] for e in response.json()["results"]}

    # then
    assert ids() == {profile["id"], session["id"], medical["id"], str(inferred.pk)}
    assert ids(scope_kind="session") == {session["id"]}
    assert ids(category="medical") == {medical["id"]}
    assert ids(origin="model-inferred") == {str(inferred.pk)}
    assert ids(lifecycle="active", q="COFFEE") == {profile["id"]}
    assert ids(q="inhaler") == {medical["id"]}
    page = client.get(ME, {"page_size": 2}).json()
    assert len(page["results"]) == 2 and page["next"]
    rest = client.get(page["next"]).json()
    assert len(rest["results"]) == 2 and rest["next"] is None
    newest_first = [e["updated_at"] for e in page["results"] + rest["results"]]
    assert newest_first == sorted(newest_first, reverse=True)
    assert client.get(ME, {"category": "astrology"}).status_code == 400


# --- Detail, edit, preview, revisions ----------------------------------------------------------


def test_the_detail_shows_recent_recalls_and_an_open_question():
    # given
    member = consenting_member()
    client = step_up_client(member)
    entry = create(client, subject="coffee").json()
    now = timezone.now()
    for minutes in range(12):
        RecallRecord.objects.create(
            member=member,
            surface="assistant",
            consumer="assistant",
            scope_key=f"profile:{member.pk}",
            context="general",
            returned_ids=[entry["id"]],
            rationales={entry["id"]: f"matched coffee ({minutes})"},
            created_at=now - timedelta(minutes=minutes),
        )
    proposal = surface().post(
        f"{service_url(member)}?session_id=s-1",
        {
            "scope": {"kind": "profile"},
            "category": "preference",
            "subject": "coffee",
            "body": TEA,
            "origin": "model-inferred",
        },
        format="json",
    )
    assert proposal.status_code == 200
    # when
    response = client.get(detail(entry["id"]))
    # then
    assert response.status_code == 200
    shown = response.json()
    assert set(shown) == CONTRACT_FIELDS | {"recent_recalls", "pending_notice"}
    assert len(shown["recent_recalls"]) == 10
    assert shown["recent_recalls"][0]["surface"] == "assistant"
    assert shown["recent_recalls"][0]["rationale"] == "matched coffee (0)"
    notice = shown["pending_notice"]
    assert notice["id"] == proposal.json()["notice_id"]
    assert (notice["entry_id"], notice["proposed_body"]) == (entry["id"], TEA)


def test_editing_appends_a_revision_and_audits_it():
    member = consenting_member()
    client = step_up_client(member)
    entry = create(client, subject="coffee").json()
    # when
    response = client.patch(detail(entry["id"]), {"body": TEA, "subject": None}, format="json")
    # then
    assert response.status_code == 200
    edited = response.json()
    assert (edited["body"], edited["subject"]) == (TEA, None)
    assert edited["previous_revision_id"] == entry["revision_id"]
    assert edited["id"] == entry["id"] and edited["revision_id"] != entry["revision_id"]
    [event] = memory_audit(member, "memory.entry.edited")
    assert event.payload["revision_id"] == edited["revision_id"]
    assert_no_audit_mentions(COFFEE, TEA)


@pytest.mark.parametrize(
    "body",
    [{}, {"body": "x" * 4001}, {"body": ""}, {"category": "astrology"}, {"origin": "user-stated"}],
)
def test_an_invalid_edit_is_400_and_changes_nothing(body):
    member = consenting_member()
    client = step_up_client(member)
    entry = create(client).json()
    response = client.patch(detail(entry["id"]), body, format="json")
    assert response.status_code == 400
    assert MemoryRevision.objects.count() == 1
    assert [e.action for e in entry_events(member)] == ["memory.entry.created"]


def test_an_edit_into_a_sensitive_category_needs_its_consent():
    client = step_up_client(consenting_member())
    entry = create(client).json()
    response = client.patch(detail(entry["id"]), {"category": "medical"}, format="json")
    assert response.status_code == 422
    assert error(response)["code"] == "sensitive-category-without-consent"


def test_the_edit_preview_shows_the_consequences_and_saves_nothing():
    member = consenting_member()
    client = step_up_client(member)
    coffee = create(client, subject="coffee").json()
    tea = create(client, subject="tea", body=TEA).json()
    before = (MemoryRevision.objects.count(), AuditEvent.objects.count())
    # when
    clash = client.post(f"{detail(tea['id'])}preview/", {"subject": "coffee"}, format="json")
    sensitive = client.post(f"{detail(tea['id'])}preview/", {"category": "medical"}, format="json")
    # then
    assert clash.status_code == 200
    assert clash.json() == {"conflicting_entry_ids": [coffee["id"]], "storage_refusal": None}
    assert sensitive.json() == {
        "conflicting_entry_ids": [],
        "storage_refusal": "sensitive-category-without-consent",
    }
    assert (MemoryRevision.objects.count(), AuditEvent.objects.count()) == before
    # and saving it does what the preview said
    client.patch(detail(tea["id"]), {"subject": "coffee"}, format="json")
    assert client.get(detail(coffee["id"])).json()["lifecycle"] == "superseded"


def test_the_revision_chain_of_five_edits_is_complete_and_oldest_first():
    member = consenting_member()
    client = step_up_client(member)
    entry = create(client).json()
    bodies = [f"Coffee habit, take {n}" for n in range(1, 6)]
    for body in bodies:
        assert client.patch(detail(entry["id"]), {"body": body}, format="json").status_code == 200
    # when
    response = client.get(f"{detail(entry['id'])}revisions/")
    # then
    assert response.status_code == 200
    revisions = response.json()["results"]
    assert [r["number"] for r in revisions] == [1, 2, 3, 4, 5, 6]
    assert revisions[0]["previous_revision_id"] is None
    for previous, revision in itertools.pairwise(revisions):
        assert revision["previous_revision_id"] == previous["revision_id"]
    assert [r["action"] for r in revisions] == ["created"] + ["edited"] * 5
    assert [r["content"]["body"] for r in revisions] == [COFFEE, *bodies]
    assert revisions[1]["changed_fields"] == ["body"] and revisions[1]["actor"] == "member"
    assert len(memory_audit(member, "memory.entry.edited")) == 5


# --- Lifecycle actions ----------------------------------------------------------------------


def test_pause_and_resume():
    member = consenting_member()
    client = step_up_client(member)
    entry = create(client).json()
    ends_at = (timezone.now() + timedelta(days=3)).isoformat()
    # when
    paused = client.post(f"{detail(entry['id'])}pause/", {"ends_at": ends_at}, format="json")
    # then
    assert paused.status_code == 200
    assert paused.json()["lifecycle"] == "paused"
    suppression = paused.json()["suppression"]
    assert suppression["reason"] == "user-pause"
    assert datetime.fromisoformat(suppression["ends_at"]) == datetime.fromisoformat(ends_at)
    again = client.post(f"{detail(entry['id'])}pause/")
    assert again.status_code == 409 and error(again)["code"] == "not-active"
    resumed = client.post(f"{detail(entry['id'])}resume/")
    assert resumed.status_code == 200
    assert (resumed.json()["lifecycle"], resumed.json()["suppression"]) == ("active", None)
    assert client.post(f"{detail(entry['id'])}resume/").status_code == 409
    assert [e.action for e in entry_events(member)] == [
        "memory.entry.created",
        "memory.entry.paused",
        "memory.entry.resumed",
    ]


def test_a_pause_ending_in_the_past_is_400():
    client = step_up_client(consenting_member())
    entry = create(client).json()
    past = (timezone.now() - timedelta(hours=1)).isoformat()
    response = client.post(f"{detail(entry['id'])}pause/", {"ends_at": past}, format="json")
    assert response.status_code == 400 and "ends_at" in error(response)["fields"]


def test_forgetting_one_memory_tombstones_it_for_good():
    member = consenting_member()
    client = step_up_client(member)
    entry = create(client).json()
    response = client.post(f"{detail(entry['id'])}forget/")
    assert response.status_code == 200 and response.json()["lifecycle"] == "tombstoned"
    assert client.get(ME).json()["results"] == []
    again = client.post(f"{detail(entry['id'])}forget/")
    assert again.status_code == 409 and error(again)["code"] == "tombstoned"
    assert memory_audit(member, "memory.entry.tombstoned")
    assert memory_audit(member)[-1].action == "memory.entries.erased"


def test_confirming_an_inference():
    member = consenting_member()
    client = step_up_client(member)
    inferred = remember(member, origin="model-inferred").entry
    response = client.post(f"{detail(inferred.pk)}confirm/")
    assert response.status_code == 200
    assert (response.json()["origin"], response.json()["confidence"]) == ("user-confirmed", 0.9)
    assert memory_audit(member)[-1].action == "memory.entry.confirmed"
    refused = client.post(f"{detail(inferred.pk)}confirm/")
    assert refused.status_code == 409 and error(refused)["code"] == "not-an-inference"


def test_session_memory_can_move_to_the_profile():
    member = consenting_member()
    client = step_up_client(member)
    entry = create(client, scope={"kind": "session", "session_id": "s-1"}).json()
    # when
    response = client.post(
        f"{detail(entry['id'])}scope/", {"scope": {"kind": "profile"}}, format="json"
    )
    # then
    assert response.status_code == 200
    assert response.json()["scope"] == {"kind": "profile", "user_id": str(member.pk)}
    [event] = memory_audit(member, "memory.entry.scope_changed")
    assert event.payload["scope_kind"] == "profile"


def test_tenant_memory_never_moves_to_the_profile():
    tenant = TenantFactory()
    member = consenting_member(tenants=[tenant])
    client = step_up_client(member)
    entry = create(client, scope={"kind": "tenant", "tenant_id": str(tenant.pk)}).json()
    assert entry["tenant_id"] == str(tenant.pk)
    # when
    response = client.post(
        f"{detail(entry['id'])}scope/", {"scope": {"kind": "profile"}}, format="json"
    )
    # then
    assert response.status_code == 422
    assert error(response)["code"] == "tenant-memory-stays-in-tenant"
    assert error(response)["message"]
    assert client.get(detail(entry["id"])).json()["scope"]["kind"] == "tenant"
    assert memory_audit(member, "memory.entry.scope_changed") == []


@pytest.mark.parametrize(
    "body",
    [{"scope": {"kind": "session"}}, {"scope": "profile"}, {}, {"scope": {"kind": "moon"}}],
)
def test_an_invalid_scope_change_is_400(body):
    client = step_up_client(consenting_member())
    entry = create(client, scope={"kind": "session", "session_id": "s-1"}).json()
    response = client.post(f"{detail(entry['id'])}scope/", body, format="json")
    assert response.status_code == 400
    assert any(key.startswith("scope") for key in error(response)["fields"])


def test_a_member_cannot_place_a_memory_in_a_tenant_they_do_not_belong_to():
    member = consenting_member()
    response = create(
        step_up_client(member), scope={"kind": "tenant", "tenant_id": str(TenantFactory().pk)}
    )
    assert response.status_code == 403 and error(response)["code"] == "not-a-tenant-member"


# --- Forgetting in bulk ----------------------------------------------------------------------


def test_forgetting_a_category():
    member = consenting_member("category:medical")
    client = step_up_client(member)
    medical = [
        create(client, category="medical", subject=s, body=f"Take {s} daily").json()
        for s in ("ibuprofen", "vitamin d")
    ]
    kept = create(client).json()
    # when
    response = client.post(f"{ME}forget-category/", {"category": "medical"}, format="json")
    # then
    assert response.status_code == 200
    assert sorted(response.json()["tombstoned_ids"]) == sorted(e["id"] for e in medical)
    assert response.json()["tombstoned_count"] == 2
    assert [e["id"] for e in client.get(ME).json()["results"]] == [kept["id"]]
    [event] = memory_audit(member, "memory.category.forgotten")
    # the category is kept sealed under the member's audit key (issue 42)
    assert resolver_for(member.pk)[event.payload["category"]] == "medical"
    assert event.payload["tombstoned_count"] == 2
    assert client.post(f"{ME}forget-category/", {"category": "x"}, format="json").status_code == 400


def test_forgetting_every_mention_of_a_person():
    member = consenting_member()
    client = step_up_client(member)
    anna = [
        create(
            client,
            category="relationship",
            subject=f"anna {n}",
            body=f"Anna visits {n}",
            multi_actor={"actor_name": "Anna", "relationship_note": "sister"},
        ).json()
        for n in range(2)
    ]
    ben = create(
        client, category="relationship", body="Ben called", multi_actor={"actor_name": "Ben"}
    ).json()
    handle = anna[0]["multi_actor"]["actor_handle"]
    assert anna[1]["multi_actor"]["actor_handle"] == handle != ben["multi_actor"]["actor_handle"]
    # when
    response = client.post(f"/api/v1/me/actors/{handle}/forget/")
    # then
    assert response.status_code == 200 and response.json()["tombstoned_count"] == 2
    assert [e["id"] for e in client.get(ME).json()["results"]] == [ben["id"]]
    assert memory_audit(member, "memory.actor.forgotten")[0].payload["tombstoned_count"] == 2
    assert_no_audit_mentions("Anna", "sister")
    bad = client.post("/api/v1/me/actors/anna/forget/")
    assert bad.status_code == 400 and "actor_handle" in error(bad)["fields"]


def test_full_clear_cancel_and_purge():
    member = consenting_member()
    client = step_up_client(member)
    create(client, subject="coffee")
    create(client, subject="tea", body=TEA)
    clear_url = f"{ME}clear/"
    assert client.get(clear_url).json() == {"pending": None}
    # when a clear is requested
    requested = client.post(clear_url)
    # then
    assert requested.status_code == 201
    clear = requested.json()
    assert (clear["state"], clear["entry_count"]) == ("pending", 2)
    window = datetime.fromisoformat(clear["purge_after"]) - timezone.now()
    assert timedelta(days=6, hours=23) < window <= timedelta(days=7)
    assert client.post(clear_url).status_code == 409
    assert client.get(clear_url).json()["pending"]["id"] == clear["id"]
    # when it is cancelled
    cancelled = client.delete(clear_url)
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    again = client.delete(clear_url)
    assert again.status_code == 409 and error(again)["code"] == "no-clear-pending"
    # when requested again and the window passes
    purge_after = datetime.fromisoformat(client.post(clear_url).json()["purge_after"])
    assert memory_clear_purge_due(now=purge_after + timedelta(seconds=1)) == 2
    # then
    assert client.get(ME).json()["results"] == []
    assert not MemoryRevision.objects.exists()
    assert client.get(clear_url).json() == {"pending": None}
    actions = [e.action for e in memory_audit(member)]
    assert [a for a in actions if a.startswith("memory.clear.")] == [
        "memory.clear.requested",
        "memory.clear.cancelled",
        "memory.clear.requested",
        "memory.clear.purged",
    ]
    last_request = max(i for i, a in enumerate(actions) if a == "memory.clear.requested")
    assert "memory.entries.purged" in actions[last_request:]


# --- Off the record ------------------------------------------------------------------------


def test_off_the_record_blocks_every_write_until_switched_off():
    member = consenting_member()
    client, service = step_up_client(member), surface()
    url = "/api/v1/me/off-the-record/"
    assert client.get(url).json() == {"active": False, "session_id": None}
    # when
    switched = client.put(url, {"active": True}, format="json")
    # then
    assert switched.status_code == 200 and switched.json() == {"active": True, "session_id": None}
    member_write = create(client)
    assert member_write.status_code == 422 and error(member_write)["code"] == "paused"
    service_write = service.post(
        service_url(member),
        {
            "scope": {"kind": "profile"},
            "category": "preference",
            "body": COFFEE,
            "origin": "model-inferred",
        },
        format="json",
    )
    assert service_write.status_code == 422 and error(service_write)["code"] == "paused"
    turn = service.post(
        service_url(member, "sessions/s-1/turns/"),
        {"speaker": "member", "text": "hello there"},
        format="json",
    )
    assert turn.status_code == 422 and error(turn)["code"] == "paused"
    assert not MemoryEntry.objects.exists() and not ConversationTurn.objects.exists()
    [event] = memory_audit(member, "memory.off_the_record.changed")
    assert event.payload == {"active": True, "session_scoped": False}
    # and once off again, writes go through
    client.put(url, {"active": False}, format="json")
    assert create(client).status_code == 201


def test_off_the_record_for_one_session():
    member = consenting_member()
    client, service = step_up_client(member), surface()
    url = "/api/v1/me/off-the-record/"
    response = client.put(url, {"active": True, "session_id": "s-1"}, format="json")
    assert response.json() == {"active": True, "session_id": "s-1"}
    assert client.get(url, {"session_id": "s-1"}).json()["active"] is True
    assert client.get(url).json()["active"] is False

    def turn(session):
        return service.post(
            service_url(member, f"sessions/{session}/turns/"),
            {"speaker": "member", "text": "hi"},
            format="json",
        )

    assert turn("s-1").status_code == 422
    assert turn("s-2").status_code == 201
    profile_write = {
        "scope": {"kind": "profile"},
        "category": "goal",
        "body": "Run 5k",
        "origin": "model-inferred",
    }
    blocked = service.post(f"{service_url(member)}?session_id=s-1", profile_write, format="json")
    assert blocked.status_code == 422 and error(blocked)["code"] == "paused"
    kept = service.post(f"{service_url(member)}?session_id=s-2", profile_write, format="json")
    assert kept.status_code == 201 and kept["Iris-Stored-As"] == "session"
    bad = client.put(url, {"active": True, "session_id": "a:b"}, format="json")
    assert bad.status_code == 400 and "session_id" in error(bad)["fields"]


# --- Notices ---------------------------------------------------------------------------------


def test_a_conflict_question_is_listed_and_answered_once():
    member = consenting_member()
    client = step_up_client(member)
    stated = create(client, subject="coffee").json()
    kept = (
        surface()
        .post(
            f"{service_url(member)}?session_id=s-1",
            {
                "scope": {"kind": "profile"},
                "category": "preference",
                "subject": "coffee",
                "body": TEA,
                "origin": "model-inferred",
            },
            format="json",
        )
        .json()
    )
    assert kept["outcome"] == "kept-existing" and kept["entry"]["id"] == stated["id"]
    # when
    notices = client.get("/api/v1/me/notices/").json()["results"]
    # then
    [notice] = notices
    assert notice["id"] == kept["notice_id"]
    assert (notice["kind"], notice["state"]) == ("conflict-question", "open")
    assert notice["rule"] == "explicit-user-trumps-inferred"
    assert (notice["entry_id"], notice["entry_body"]) == (stated["id"], COFFEE)
    assert notice["proposed_body"] == TEA and notice["proposed_entry_id"]
    # when accepted
    answer_url = f"/api/v1/me/notices/{notice['id']}/answer/"
    answered = client.post(answer_url, {"accept": True}, format="json")
    assert answered.status_code == 200 and answered.json()["state"] == "accepted"
    assert client.get(detail(stated["id"])).json()["lifecycle"] == "superseded"
    proposal = client.get(detail(notice["proposed_entry_id"])).json()
    assert (proposal["lifecycle"], proposal["origin"]) == ("active", "user-confirmed")
    again = client.post(answer_url, {"accept": False}, format="json")
    assert again.status_code == 409 and error(again)["code"] == "notice-answered"
    assert client.post(answer_url, {}, format="json").status_code == 400
    assert_no_audit_mentions(COFFEE, TEA)


# --- Isolation -------------------------------------------------------------------------------

MEMBER_ENTRY_ENDPOINTS = [
    ("get", "", None),
    ("patch", "", {"body": "Not yours to edit"}),
    ("post", "preview/", {"body": "Not yours to edit"}),
    ("get", "revisions/", None),
    ("post", "forget/", None),
    ("post", "pause/", None),
    ("post", "resume/", None),
    ("post", "confirm/", None),
    ("post", "scope/", {"scope": {"kind": "notebook", "notebook_id": "n-1"}}),
]


@pytest.mark.parametrize(("method", "suffix", "body"), MEMBER_ENTRY_ENDPOINTS)
def test_another_members_entry_is_404_on_every_member_endpoint(method, suffix, body):
    # given
    owner, intruder = consenting_member(), consenting_member()
    entry = remember(owner, origin="model-inferred").entry
    # when
    response = getattr(step_up_client(intruder), method)(
        f"{detail(entry.pk)}{suffix}", body, format="json"
    )
    # then
    assert response.status_code == 404
    assert error(response)["code"] == "not_found"
    entry.refresh_from_db()
    assert (entry.revision_count, entry.lifecycle) == (1, Lifecycle.ACTIVE)
    assert memory_audit(intruder) == []
    assert bearer_client(owner).get(f"{detail(entry.pk)}{suffix}").status_code in (
        200,
        405,
    )


def test_another_members_notice_is_404_and_absent_from_my_list():
    owner, intruder = consenting_member(), consenting_member()
    remember(owner, subject="coffee")
    notice = remember(owner, subject="coffee", body=TEA, origin="model-inferred").notice
    client = step_up_client(intruder)
    response = client.post(
        f"/api/v1/me/notices/{notice.pk}/answer/", {"accept": True}, format="json"
    )
    assert response.status_code == 404
    assert client.get("/api/v1/me/notices/").json()["results"] == []
    assert MemoryNotice.objects.get(pk=notice.pk).state == "open"


def test_member_lists_and_bulk_actions_never_reach_another_member():
    owner, intruder = consenting_member(), consenting_member()
    remember(owner, multi_actor={"actor_name": "Anna"}, category="relationship")
    handle = MemoryEntry.objects.get().actor_handle
    client = step_up_client(intruder)
    assert client.get(ME).json()["results"] == []
    assert client.post(f"/api/v1/me/actors/{handle}/forget/").json()["tombstoned_count"] == 0
    category = client.post(f"{ME}forget-category/", {"category": "relationship"}, format="json")
    assert category.json()["tombstoned_count"] == 0
    assert client.post(f"{ME}clear/").json()["entry_count"] == 0
    assert MemoryEntry.objects.get().lifecycle == Lifecycle.ACTIVE


@pytest.mark.parametrize("who", ["anonymous", "operator", "service"])
def test_only_members_use_the_member_memory_api(who):
    client = {
        "anonymous": APIClient,
        "operator": lambda: bearer_client(OperatorFactory()),
        "service": lambda: surface(),
    }[who]()
    response = client.get(ME)
    assert response.status_code == (401 if who == "anonymous" else 403)


@pytest.mark.parametrize("who", ["anonymous", "member", "operator"])
def test_only_surfaces_use_the_remember_endpoint(who):
    member = consenting_member()
    client = {
        "anonymous": APIClient,
        "member": lambda: step_up_client(member),
        "operator": lambda: bearer_client(OperatorFactory()),
    }[who]()
    response = client.post(service_url(member), {}, format="json")
    assert response.status_code == (401 if who == "anonymous" else 403)


# --- Surfaces: remember ------------------------------------------------------------------------


def remember_body(**fields) -> dict:
    return {
        "scope": {"kind": "session", "session_id": "s-1"},
        "category": "preference",
        "subject": "coffee",
        "body": COFFEE,
        "origin": "model-inferred",
        **fields,
    }


def test_a_surface_remembers_for_a_member():
    member = consenting_member()
    # when
    response = surface("tara").post(service_url(member), remember_body(), format="json")
    # then
    assert response.status_code == 201
    entry = response.json()
    assert set(entry) == CONTRACT_FIELDS
    assert entry["scope"] == {"kind": "session", "user_id": str(member.pk), "session_id": "s-1"}
    assert (entry["origin"], entry["confidence"]) == ("model-inferred", 0.5)
    assert entry["audit_chain"][0]["actor"] == "consumer:tara"
    [event] = entry_events(member)
    assert event.action == "memory.entry.created"
    assert (event.actor_type, event.actor_role) == ("service", "tara")
    assert_no_audit_mentions(COFFEE)


def test_the_ladder_keeping_the_existing_fact_is_200_with_the_rule():
    member = consenting_member()
    stated = remember(member, subject="coffee", scope={"kind": "session", "session_id": "s-1"})
    response = surface().post(service_url(member), remember_body(body=TEA), format="json")
    assert response.status_code == 200
    kept = response.json()
    assert kept["outcome"] == "kept-existing"
    assert kept["conflict_rule"] == "explicit-user-trumps-inferred"
    assert kept["entry"]["id"] == str(stated.entry.pk) and kept["entry"]["body"] == COFFEE
    assert MemoryNotice.objects.filter(pk=kept["notice_id"], member=member).exists()
    [event] = memory_audit(member, "memory.conflict.resolved")
    assert event.payload["outcome"] == "keep_existing"
    assert_no_audit_mentions(COFFEE, TEA)


@pytest.mark.parametrize(
    ("consents", "fields", "code"),
    [
        ((), {"category": "medical"}, "sensitive-category-without-consent"),
        (
            ("category:medical",),
            {"category": "medical"},
            "sensitive-inference-requires-confirmation",
        ),
        (
            (),
            {
                "multi_actor": {"actor_name": "Anna", "sensitive_interaction": True},
                "category": "relationship",
            },
            "multi-actor-sensitive-without-consent",
        ),
    ],
)
def test_the_storage_gate_refuses_with_422_and_the_seeds_code(consents, fields, code):
    member = consenting_member(*consents)
    response = surface().post(service_url(member), remember_body(**fields), format="json")
    assert response.status_code == 422
    assert error(response)["code"] == code
    assert not MemoryEntry.objects.exists()
    # The only trace is the refusal: its code and who tried, never the text.
    [refused] = memory_audit(member)
    assert refused.action == "memory.write.refused"
    assert (refused.payload["reason"], refused.payload["consumer"]) == (code, "assistant")
    assert_no_audit_mentions(COFFEE)


@pytest.mark.parametrize(
    ("consumer", "scope"),
    [
        (
            "shell",
            {"kind": "pose", "session_id": "s", "scene_id": "c", "pose_id": "p", "avatar_id": "a"},
        ),
        (
            "tara",
            {"kind": "operator-copilot", "operator_id": "6f1f0a56-9f43-4a4e-9d0e-5d3c1f1b7a10"},
        ),
        ("shell", {"kind": "scene", "session_id": "s", "scene_id": "c", "room_id": "r"}),
    ],
)
def test_a_surface_outside_a_scopes_allow_list_gets_403(consumer, scope):
    member = consenting_member("sensitive_data")
    response = surface(consumer).post(
        service_url(member), remember_body(scope=scope), format="json"
    )
    assert response.status_code == 403
    assert error(response)["code"] == "consumer-not-allowed-for-scope"
    assert not MemoryEntry.objects.exists()


def test_tenant_memory_needs_the_member_in_that_tenant():
    tenant = TenantFactory()
    member, outsider = consenting_member(tenants=[tenant]), consenting_member()
    body = remember_body(scope={"kind": "tenant", "tenant_id": str(tenant.pk)}, origin="imported")
    metis = surface("metis")
    refused = metis.post(service_url(outsider), body, format="json")
    assert refused.status_code == 403 and error(refused)["code"] == "not-a-tenant-member"
    stored = metis.post(service_url(member), body, format="json")
    assert stored.status_code == 201 and stored.json()["tenant_id"] == str(tenant.pk)


def test_a_scope_without_base_consent_is_422_scope_suppressed():
    member = MemberFactory()
    response = surface().post(service_url(member), remember_body(), format="json")
    assert response.status_code == 422 and error(response)["code"] == "scope-suppressed"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"body": "x" * 4001}, "body"),
        ({"category": "astrology"}, "category"),
        ({"scope": {"kind": "session"}}, "scope"),
        ({"scope": {"kind": "notebook"}}, "scope"),
        ({"origin": "guessed"}, "origin"),
        ({"confidence": 1.5}, "confidence"),
        ({"surprise": True}, "surprise"),
    ],
)
def test_an_invalid_remember_is_400_and_writes_nothing(fields, field):
    member = consenting_member()
    response = surface().post(service_url(member), remember_body(**fields), format="json")
    assert response.status_code == 400
    assert any(key.startswith(field) for key in error(response)["fields"]), error(response)
    assert "x" * 100 not in response.content.decode()
    assert not MemoryEntry.objects.exists() and memory_audit(member) == []


def test_an_origin_is_required_from_a_surface():
    member = consenting_member()
    body = remember_body()
    del body["origin"]
    response = surface().post(service_url(member), body, format="json")
    assert response.status_code == 400 and "origin" in error(response)["fields"]


@pytest.mark.parametrize("target", ["unknown", "operator", "inactive"])
def test_remembering_for_a_non_member_is_404(target):
    member_id = {
        "unknown": lambda: "00000000-0000-4000-8000-000000000000",
        "operator": lambda: OperatorFactory().pk,
        "inactive": lambda: MemberFactory(is_active=False).pk,
    }[target]()
    response = surface().post(
        f"/api/v1/members/{member_id}/memories/", remember_body(), format="json"
    )
    assert response.status_code == 404 and error(response)["code"] == "not_found"
    not_a_uuid = surface().post("/api/v1/members/nobody/memories/", remember_body(), format="json")
    assert not_a_uuid.status_code == 404 and error(not_a_uuid)["code"] == "not_found"


# --- Surfaces: conversation turns --------------------------------------------------------------


def test_a_surface_appends_turns_with_pii_redacted():
    member = consenting_member()
    client = surface("assistant")
    url = service_url(member, "sessions/s-1/turns/")
    text = "Write to me at anna.smith@example.com please"
    # when
    first = client.post(url, {"speaker": "member", "text": text, "redact_pii": True}, format="json")
    second = client.post(url, {"speaker": "assistant", "text": "Noted, thanks"}, format="json")
    # then
    assert first.status_code == 201
    turn = first.json()
    assert set(turn) == {"id", "sequence", "session_id", "speaker", "redacted_kinds", "created_at"}
    assert (turn["sequence"], turn["session_id"], turn["redacted_kinds"]) == (1, "s-1", ["email"])
    assert second.json()["sequence"] == 2 and second.json()["redacted_kinds"] == []
    stored = ConversationTurn.objects.get(pk=turn["id"])
    assert "anna.smith@example.com" not in stored.text and stored.consumer == "assistant"
    events = memory_audit(member, "memory.turn.appended")
    assert [e.payload["turn_id"] for e in events] == [turn["id"], second.json()["id"]]
    assert_no_audit_mentions("anna.smith", "Noted, thanks")


@pytest.mark.parametrize(
    ("session", "body", "field"),
    [
        ("s-1", {"speaker": "narrator", "text": "hi"}, "speaker"),
        ("s-1", {"speaker": "member", "text": "   "}, "text"),
        ("s-1", {"speaker": "member", "text": "x" * 8001}, "text"),
        ("s-1", {"speaker": "member", "text": "a\x00b"}, "text"),
        ("s-1", {"speaker": "member", "text": "hi", "extra": 1}, "extra"),
        ("a:b", {"speaker": "member", "text": "hi"}, "session_id"),
        ("x" * 129, {"speaker": "member", "text": "hi"}, "session_id"),
    ],
)
def test_an_invalid_turn_is_400(session, body, field):
    member = consenting_member()
    url = service_url(member, f"sessions/{session}/turns/")
    response = surface().post(url, body, format="json")
    assert response.status_code == 400
    assert field in error(response)["fields"], error(response)
    assert not ConversationTurn.objects.exists()


def test_turns_for_a_non_member_are_404():
    url = "/api/v1/members/00000000-0000-4000-8000-000000000000/sessions/s-1/turns/"
    response = surface().post(url, {"speaker": "member", "text": "hi"}, format="json")
    assert response.status_code == 404


# --- Over real HTTP ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_remember_over_real_http(live_server):
    member = consenting_member()
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    response = http_request(
        live_server.url + service_url(member), method="POST", token=token, body=remember_body()
    )
    assert response.status == 201
    assert response.body["body"] == COFFEE
    assert response.body["scope"]["session_id"] == "s-1"
    refused = http_request(
        live_server.url + service_url(member),
        method="POST",
        token=token,
        body=remember_body(category="medical"),
    )
    assert refused.status == 422
    assert refused.body["error"]["code"] == "sensitive-category-without-consent"
    assert json.loads(json.dumps(refused.body))["error"]["fields"] == {}
