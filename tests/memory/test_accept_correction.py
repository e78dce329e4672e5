"""Issue 41, item 4, "Nothing lost by accepting": a member accepted the assistant's
correction ("Takes coffee with oat milk" for her profile's "I take my coffee black"). The
accepted fact was stored as *session* memory (where the promotion rule had kept the
assistant's proposal), the profile kept only the replaced version, and the retention sweep
35 days later erased the accepted fact: Iris had no coffee preference at all.

Accepting a correction writes into the corrected fact's scope: the proposal becomes the
member's confirmed word there, the old wording is superseded, recall returns the new one,
a later sweep keeps it, and the page and the API say where it went. Over real HTTP
(PostgreSQL and SQLite alike), on the member page, and as a pure rule."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from iris_site.audit.events import Actor
from iris_site.errors import PolicyRefusal
from iris_site.services import token_issue
from memory.enums import Lifecycle, Origin, ScopeKind
from memory.labels import scope_label
from memory.models import MemoryEntry, MemoryNotice
from memory.policy.conflicts import MEMBER_SOURCES, accept_correction, source_kind_for
from memory.policy.retention import retention_envelope_for_kind
from memory.services import memory_notice_answer
from memory.sweeps.retention import retention_sweep
from tests.conftest import http_request
from tests.consent.factories import opt
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import (
    assert_no_audit_mentions,
    consenting_member,
    memory_audit,
    remember,
)

BLACK = "I take my coffee black"
OAT = "Takes coffee with oat milk"
DAY = timedelta(days=1)


def token_of(principal) -> str:
    _, raw = token_issue(owner=principal)
    return raw


class Member:
    """A member and the assistant surface acting for them, over real HTTP."""

    def __init__(self, live_server) -> None:
        self.user = consenting_member()
        self.base = live_server.url
        self.me = token_of(self.user)
        self.assistant = token_of(ServiceClientFactory(consumer="assistant"))

    def state(self, body: str) -> dict:
        response = http_request(
            f"{self.base}/api/v1/me/memories/",
            method="POST",
            token=self.me,
            body={
                "scope": {"kind": "profile"},
                "category": "preference",
                "subject": "coffee",
                "body": body,
            },
        )
        assert response.status == 201, response.body
        return response.body

    def assistant_proposes(self, body: str) -> dict:
        """The assistant's inference aimed at the profile, from conversation s-1: the
        promotion rule keeps it in the conversation, and the ladder holds it as a draft."""
        response = http_request(
            f"{self.base}/api/v1/members/{self.user.pk}/memories/?session_id=s-1",
            method="POST",
            token=self.assistant,
            body={
                "scope": {"kind": "profile"},
                "category": "preference",
                "subject": "coffee",
                "body": body,
                "origin": "model-inferred",
            },
        )
        assert response.status == 200, response.body
        assert response.body["outcome"] == "kept-existing", response.body
        return response.body

    def notices(self) -> list[dict]:
        response = http_request(f"{self.base}/api/v1/me/notices/", token=self.me)
        assert response.status == 200, response.body
        return response.body["results"]

    def answer(self, notice_id, accept: bool):
        return http_request(
            f"{self.base}/api/v1/me/notices/{notice_id}/answer/",
            method="POST",
            token=self.me,
            body={"accept": accept},
        )

    def entry(self, entry_id) -> dict:
        response = http_request(f"{self.base}/api/v1/me/memories/{entry_id}/", token=self.me)
        assert response.status == 200, response.body
        return response.body

    def recalled(self) -> dict[str, str]:
        """What the assistant's recall of the profile returns: entry id → body."""
        response = http_request(
            f"{self.base}/api/v1/members/{self.user.pk}/recall/",
            method="POST",
            token=self.assistant,
            body={"surface": "assistant", "scope": {"kind": "profile"}, "query": "coffee"},
        )
        assert response.status == 200, response.body
        return {e["id"]: e["body"] for e in response.body["entries"]}


@pytest.mark.django_db(transaction=True)
def test_an_accepted_correction_lands_in_the_profile_and_outlives_the_sweep(live_server):
    # given: the member's own profile fact, and the assistant's correction to it
    member = Member(live_server)
    black = member.state(BLACK)
    proposed = member.assistant_proposes(OAT)
    [notice] = member.notices()
    assert notice["id"] == proposed["notice_id"]
    # the question says where accepting would keep the new wording
    assert notice["stored_in"] == {"kind": "profile", "label": str(scope_label("profile"))}
    # when the member accepts it
    answered = member.answer(notice["id"], accept=True)
    # then the accepted fact is her confirmed word in her profile, the old one replaced
    assert answered.status == 200, answered.body
    assert answered.body["state"] == "accepted"
    assert answered.body["stored_in"] == {"kind": "profile", "label": "About you"}
    oat = member.entry(notice["proposed_entry_id"])
    assert oat["scope"] == {"kind": "profile", "user_id": str(member.user.pk)}
    assert (oat["body"], oat["origin"], oat["lifecycle"]) == (OAT, "user-confirmed", "active")
    assert member.entry(black["id"])["lifecycle"] == "superseded"
    assert member.recalled() == {oat["id"]: OAT}
    # when the retention sweep runs 35 days later
    retention_sweep(now=timezone.now() + 35 * DAY)
    # then the accepted fact is still there, still the one recall returns
    assert member.entry(oat["id"])["lifecycle"] == "active"
    assert member.recalled() == {oat["id"]: OAT}
    assert not MemoryEntry.objects.filter(
        member=member.user, origin=Origin.SUMMARIZED_FROM_SESSION
    ).exists()
    # and the audit names ids and scope kinds, never the words
    [event] = memory_audit(member.user, "memory.conflict.answered")
    assert event.payload == {
        "notice_id": notice["id"],
        "entry_id": black["id"],
        "proposed_entry_id": oat["id"],
        "answer": "accepted",
        "scope_kind": "profile",
        "moved_from_scope_kind": "session",
    }
    assert_no_audit_mentions(BLACK, OAT)


@pytest.mark.django_db(transaction=True)
def test_a_dismissed_correction_keeps_the_members_word_and_stores_nothing(live_server):
    member = Member(live_server)
    black = member.state(BLACK)
    proposed = member.assistant_proposes(OAT)
    # when
    answered = member.answer(proposed["notice_id"], accept=False)
    # then
    assert answered.status == 200, answered.body
    assert (answered.body["state"], answered.body["stored_in"]) == ("dismissed", None)
    assert member.recalled() == {black["id"]: BLACK}
    retention_sweep(now=timezone.now() + 35 * DAY)
    assert member.recalled() == {black["id"]: BLACK}
    [event] = memory_audit(member.user, "memory.conflict.answered")
    assert (event.payload["answer"], event.payload["scope_kind"]) == ("dismissed", None)
    assert_no_audit_mentions(BLACK, OAT)


# --- The service: any corrected scope ---------------------------------------------------------


@pytest.mark.django_db
def test_a_correction_of_a_conversation_fact_stays_in_that_conversation():
    """S is the corrected fact's scope, whatever it is: a fact the member stated in
    conversation s-1, corrected by an inference from s-2, is corrected in s-1."""
    member = consenting_member()
    s1 = {"kind": "session", "session_id": "s-1"}
    stated = remember(member, subject="coffee", scope=s1).entry
    notice = remember(
        member,
        subject="coffee",
        body=OAT,
        origin="model-inferred",
        scope={"kind": "session", "session_id": "s-2"},
    ).notice
    # when
    memory_notice_answer(notice=notice, accept=True, actor=Actor.of(member))
    # then
    oat = MemoryEntry.objects.get(pk=notice.proposed_entry_id)
    assert (oat.scope_kind, oat.session_id, oat.scope_key) == (
        stated.scope_kind,
        "s-1",
        stated.scope_key,
    )
    assert (oat.lifecycle, oat.origin) == (Lifecycle.ACTIVE, Origin.USER_CONFIRMED)
    assert oat.revision.content["scope"] == {
        "kind": "session",
        "user_id": str(member.pk),
        "session_id": "s-1",
    }
    assert "scope" in oat.revision.changed_fields


@pytest.mark.django_db
def test_a_scope_the_member_can_no_longer_write_refuses_the_answer_and_changes_nothing():
    """Accepting writes into the corrected fact's scope, so it is checked as a write
    there: refused, the notice stays open and the draft stays a draft."""
    member = consenting_member()
    remember(member, subject="coffee")
    notice = remember(member, subject="coffee", body=OAT, origin="model-inferred").notice
    opt(member, "personalization")
    with pytest.raises(PolicyRefusal) as refused:
        memory_notice_answer(notice=notice, accept=True, actor=Actor.of(member))
    assert refused.value.code == "scope-suppressed"
    notice.refresh_from_db()
    assert notice.state == MemoryNotice.State.OPEN
    assert MemoryEntry.objects.get(pk=notice.proposed_entry_id).lifecycle == Lifecycle.DRAFT


# --- The member page --------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_page_says_where_the_accepted_memory_went():
    member = consenting_member()
    remember(member, subject="coffee")
    notice = remember(
        member, subject="coffee", body=OAT, origin="model-inferred", session_id="s-1"
    ).notice
    client = Client()
    client.force_login(member)
    asked = client.get(reverse("memory:notices")).content.decode()
    assert "replaces the old one under “About you”" in asked
    # when
    response = client.post(
        reverse("memory:notice-answer", args=[notice.pk]), {"answer": "update"}, follow=True
    )
    # then
    page = response.content.decode()
    assert response.status_code == 200
    assert "as your own word, kept under “About you”." in page  # the message
    assert "The new version is kept under “About you”." in page  # the answered question
    oat = MemoryEntry.objects.get(pk=notice.proposed_entry_id)
    assert (oat.scope_kind, oat.lifecycle) == (ScopeKind.PROFILE, Lifecycle.ACTIVE)


# --- The pure rule ----------------------------------------------------------------------------

KINDS = st.sampled_from(sorted(ScopeKind.values))


@given(corrected=KINDS, proposed=KINDS)
def test_accepting_writes_the_members_confirmed_word_into_the_corrected_scope(corrected, proposed):
    decision = accept_correction(corrected_scope_kind=corrected, proposed_scope_kind=proposed)
    assert decision.scope_kind == corrected
    assert decision.origin == Origin.USER_CONFIRMED
    assert source_kind_for(decision.origin) in MEMBER_SOURCES
    assert decision.moved_from == (proposed if proposed != corrected else None)
    # nothing lost: the accepted fact lives exactly as long as the one it corrects
    kept, replaced = (
        retention_envelope_for_kind(decision.scope_kind),
        retention_envelope_for_kind(corrected),
    )
    assert (kept.raw_days, kept.expiry_action) == (replaced.raw_days, replaced.expiry_action)


def test_an_unknown_scope_kind_is_refused():
    with pytest.raises(ValueError, match="unknown scope kind"):
        accept_correction(corrected_scope_kind="attic", proposed_scope_kind="profile")
