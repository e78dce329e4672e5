"""Opt-outs where they act, over real HTTP: a surface's write refused with the reason and
nothing stored, recall, short-term reads and the context bundle withholding what lives in
an opted-out scope (one read gate), the scope-policy endpoints saying so, the member page
turning categories off, and an opt-out serialising with a concurrent write."""

import threading
import time

import pytest
from django.db import connection, transaction
from django.test import Client

from consent.models import OptOutEvent
from hierarchy.models import ShortTermMemory
from iris_site.audit.events import Actor
from iris_site.errors import PolicyRefusal
from iris_site.services import token_issue
from memory.models import MemoryEntry
from memory.services import memory_remember
from tests.conftest import bearer_client, http_request
from tests.consent.factories import opt
from tests.iris_site.factories import MemberFactory, ServiceClientFactory, TenantFactory
from tests.memory.factories import consenting_member, remember, write_request

pytestmark = pytest.mark.django_db

SESSION_WRITE = {
    "scope": {"kind": "session", "session_id": "s-1"},
    "category": "preference",
    "subject": "coffee",
    "body": "I take my coffee black",
    "origin": "model-inferred",
}


def surface_token(consumer: str = "assistant") -> str:
    _, raw = token_issue(owner=ServiceClientFactory(consumer=consumer))
    return raw


def members_url(live_server, member, path: str) -> str:
    return f"{live_server.url}/api/v1/members/{member.pk}/{path}"


# --- writes --------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_surfaces_write_after_an_opt_out_is_refused_with_the_reason(live_server):
    # given a consenting member who turned conversation history off
    member = consenting_member()
    token = surface_token()
    opt(member, "conversation_history")
    # when a surface writes session memory
    response = http_request(
        members_url(live_server, member, "memories/"),
        method="POST",
        token=token,
        body=SESSION_WRITE,
    )
    # then it is refused, the reason names the opt-out, and nothing is stored
    assert response.status == 422
    error = response.body["error"]
    assert error["code"] == "scope-suppressed"
    assert "`conversation_history` opt-out" in error["message"]
    assert not MemoryEntry.objects.filter(member=member).exists()
    # and once the member turns it back on, the same write goes through
    opt(member, "conversation_history", opted_out=False)
    again = http_request(
        members_url(live_server, member, "memories/"),
        method="POST",
        token=token,
        body=SESSION_WRITE,
    )
    assert again.status == 201


def test_an_opt_out_of_another_category_leaves_the_write_alone():
    member = consenting_member()
    opt(member, "embodied")
    response = bearer_client(ServiceClientFactory(consumer="assistant")).post(
        f"/api/v1/members/{member.pk}/memories/", SESSION_WRITE, format="json"
    )
    assert response.status_code == 201


def test_the_member_opting_out_of_memory_stops_their_own_profile_writes_too():
    member = consenting_member()
    opt(member, "memory")
    with pytest.raises(PolicyRefusal, match="`memory` opt-out") as excinfo:
        remember(member)
    assert excinfo.value.code == "scope-suppressed"
    assert not MemoryEntry.objects.filter(member=member).exists()


@pytest.mark.django_db(transaction=True)
def test_an_opt_out_committed_first_refuses_a_write_waiting_on_the_member_lock():
    """The opt-out holds the member lock until it commits; the write, waiting on the same
    lock, reads the opt-out once it gets it, and is refused."""
    member = consenting_member()
    locked, commit = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def opting_out() -> None:
        try:
            with transaction.atomic():
                opt(member, "personalization")
                locked.set()
                commit.wait(timeout=20)
        finally:
            connection.close()

    def writing() -> None:
        try:
            memory_remember(
                member=member,
                write=write_request(member),
                actor=Actor.of(member),
            )
            outcome["result"] = "stored"
        except Exception as exc:  # surfaced in the main thread
            outcome["result"] = getattr(exc, "code", repr(exc))
        finally:
            connection.close()

    first = threading.Thread(target=opting_out)
    first.start()
    assert locked.wait(timeout=20)
    second = threading.Thread(target=writing)
    second.start()
    time.sleep(0.5)
    assert "result" not in outcome  # the write waits for the opt-out's lock
    commit.set()
    first.join(timeout=30)
    second.join(timeout=30)
    assert outcome["result"] == "scope-suppressed"
    assert not MemoryEntry.objects.filter(member=member).exists()


# --- reads: one gate -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_recall_withholds_an_opted_out_scope_and_counts_it(live_server):
    # given session and profile memories, as the member stated them
    member = consenting_member()
    remember(member, scope={"kind": "session", "session_id": "s-1"}, body="Coffee in session")
    remember(member, body="I take my coffee black", subject="coffee")
    token = surface_token()

    def recall():
        return http_request(
            members_url(live_server, member, "recall/"),
            method="POST",
            token=token,
            body={
                "surface": "assistant",
                "scope": {"kind": "session", "session_id": "s-1"},
                "query": "coffee",
            },
        )

    before = recall()
    assert sorted(e["body"] for e in before.body["entries"]) == [
        "Coffee in session",
        "I take my coffee black",
    ]
    # when the member turns conversation history off
    opt(member, "conversation_history")
    after = recall()
    # then the session memory is withheld as suppressed; the profile stays
    assert [e["body"] for e in after.body["entries"]] == ["I take my coffee black"]
    assert after.body["audit_envelope"]["suppression_counts"] == {"scope-suppressed": 1}
    # and turning personalisation off too withholds the profile
    opt(member, "personalization")
    assert recall().body["entries"] == []


@pytest.mark.django_db(transaction=True)
def test_short_term_rows_and_the_bundle_honour_opt_outs(live_server):
    member = consenting_member()
    token = surface_token()
    written = http_request(
        members_url(live_server, member, "short-term/"),
        method="POST",
        token=token,
        body={
            "scope_kind": "user_session",
            "scope_id": "s-2",
            "category": "preference",
            "content": "Wants the window open",
        },
    )
    assert written.status == 201

    def rows():
        return http_request(
            members_url(live_server, member, "short-term/") + "?scope_id=s-2", token=token
        ).body

    def bundle():
        return http_request(
            members_url(live_server, member, "context-bundle/"),
            method="POST",
            token=token,
            body={"scope_id": "s-2", "query": "window"},
        ).body

    assert [r["content"] for r in rows()["results"]] == ["Wants the window open"]
    assert [r["content"] for r in bundle()["stm"]] == ["Wants the window open"]
    # when
    opt(member, "conversation_history")
    # then
    listing = rows()
    assert listing["results"] == [] and listing["withheld"] == {"scope-suppressed": 1}
    composed = bundle()
    assert composed["stm"] == [] and composed["stm_withheld"] == {"scope-suppressed": 1}
    # and a new row there is refused, with the reason, and not kept
    refused = http_request(
        members_url(live_server, member, "short-term/"),
        method="POST",
        token=token,
        body={
            "scope_kind": "user_session",
            "scope_id": "s-2",
            "category": "preference",
            "content": "Wants the blinds down",
        },
    )
    assert refused.status == 422 and refused.body["error"]["code"] == "scope-suppressed"
    assert ShortTermMemory.objects.filter(member=member).count() == 1


# --- scope policies over HTTP --------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_member_and_a_surface_see_which_scopes_are_off_and_why(live_server):
    member = consenting_member()
    opt(member, "embodied")
    _, member_token = token_issue(owner=member)
    mine = http_request(f"{live_server.url}/api/v1/me/scope-policies/", token=member_token)
    assert mine.status == 200
    policies = {p["scope"]: p for p in mine.body["results"]}
    assert len(policies) == 11
    assert policies["scene"] == {
        "scope": "scene",
        "kind": "scene",
        "label": "Scene",
        "enabled": False,
        "mode": "suppressed",
        "policy_notes": ["Scene memory is suppressed by the member's `embodied` opt-out."],
        "missing_consents": [],
        "opted_out": ["embodied"],
        "consumer_allowed": True,
    }
    assert policies["pose"]["missing_consents"] == ["sensitive_data"]
    assert policies["pose"]["opted_out"] == ["embodied"]
    assert (policies["session"]["enabled"], policies["session"]["mode"]) == (True, "ephemeral")
    # a surface sees the same member as its own consumer may use them
    surface = http_request(
        members_url(live_server, member, "scope-policies/"), token=surface_token("tara")
    )
    assert surface.status == 200 and surface.body["consumer"] == "tara"
    theirs = {p["scope"]: p for p in surface.body["results"]}
    assert theirs["scene"]["opted_out"] == ["embodied"] and not theirs["scene"]["enabled"]
    assert theirs["notebook"]["consumer_allowed"] is False
    assert theirs["notebook"]["policy_notes"] == [
        "Consumer `tara` is not allowed to use this scope."
    ]
    assert theirs["assistant_profile"]["enabled"] is True


def test_the_surface_endpoint_is_404_for_a_member_outside_the_tenant_or_unknown():
    tenant, other = TenantFactory(), TenantFactory()
    member = consenting_member(tenants=[tenant])
    client = bearer_client(ServiceClientFactory(consumer="metis"))
    url = f"/api/v1/members/{member.pk}/scope-policies/"
    assert client.get(url, {"tenant_id": str(tenant.pk)}).status_code == 200
    outside = client.get(url, {"tenant_id": str(other.pk)})
    assert outside.status_code == 404 and outside.json()["error"]["code"] == "not_found"
    stranger = MemberFactory()
    assert client.get(f"/api/v1/members/{stranger.pk}/scope-policies/").status_code == 200
    unknown = "/api/v1/members/00000000-0000-4000-8000-000000000000/scope-policies/"
    assert client.get(unknown).status_code == 404
    bad = client.get(url, {"tenant": str(tenant.pk)})
    assert bad.status_code == 400 and "tenant" in bad.json()["error"]["fields"]
    assert client.get(url, {"tenant_id": "nope"}).status_code == 400


def test_a_member_token_may_not_use_the_surface_endpoint():
    member = consenting_member()
    client = bearer_client(member)
    assert client.get(f"/api/v1/members/{member.pk}/scope-policies/").status_code == 403
    assert bearer_client(ServiceClientFactory()).get("/api/v1/me/scope-policies/").status_code == (
        403
    )


# --- the member page (no browser) ----------------------------------------------------------


def signed_in(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def test_the_page_turns_a_category_off_and_says_why_each_scope_is_off():
    member = consenting_member()
    client = signed_in(member)
    page = client.get("/profile/memory/controls/").content.decode()
    assert "What Iris may remember" in page and "Turn off “Personalisation”" in page
    # when (turning off is confirmed on the page that says what it hides, issue 47)
    response = client.post(
        "/profile/memory/opt-outs/",
        {"category": "personalization", "state": "off", "confirm": "1"},
        follow=True,
    )
    # then
    html = response.content.decode()
    assert response.redirect_chain[-1][0].endswith("/profile/memory/controls/")
    assert "Turned off “Personalisation”" in html
    assert "Off because you turned off “Personalisation”" in html
    assert "Turn “Personalisation” back on" in html
    # and back on
    back = client.post(
        "/profile/memory/opt-outs/", {"category": "personalization", "state": "on"}, follow=True
    ).content.decode()
    assert "“Personalisation” is back on." in back
    assert "because you turned off" not in back


def test_the_page_refuses_a_bad_category_and_a_missing_csrf_token():
    member = consenting_member()
    bad = signed_in(member).post(
        "/profile/memory/opt-outs/", {"category": "telepathy", "state": "off"}, follow=True
    )
    assert "Choose a kind of memory" in bad.content.decode()
    strict = signed_in(member, enforce_csrf_checks=True)
    assert (
        strict.post(
            "/profile/memory/opt-outs/", {"category": "memory", "state": "off", "confirm": "1"}
        ).status_code
        == 403
    )
    assert not OptOutEvent.objects.filter(member=member).exists()
