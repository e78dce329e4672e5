"""Issue 16, edits: only a memory's current version can be edited. Editing a superseded
or draft entry used to supersede the member's *current* active fact, so that neither was
recalled. Over real HTTP (PostgreSQL and SQLite alike), and on the member page."""

import pytest
from django.test import Client

from iris_site.audit.events import Actor
from iris_site.services import token_issue
from memory.enums import Lifecycle
from memory.models import MemoryEntry
from memory.pauses import memory_pause
from tests.conftest import http_request
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db(transaction=True)

NOT_HEAD = "not-head"


def token_of(principal) -> str:
    _, raw = token_issue(owner=principal)
    return raw


class Member:
    """A member and an assistant surface acting for them over HTTP."""

    def __init__(self, live_server) -> None:
        self.user = consenting_member()
        self.base = live_server.url
        self.me = token_of(self.user)
        self.assistant = token_of(ServiceClientFactory(consumer="assistant"))

    def state(self, body: str, subject: str = "coffee") -> dict:
        response = http_request(
            f"{self.base}/api/v1/me/memories/",
            method="POST",
            token=self.me,
            body={
                "scope": {"kind": "profile"},
                "category": "preference",
                "subject": subject,
                "body": body,
            },
        )
        assert response.status == 201, response.body
        return response.body

    def edit(self, entry_id, **body):
        url = f"{self.base}/api/v1/me/memories/{entry_id}/"
        return http_request(url, method="PATCH", token=self.me, body=body)

    def preview(self, entry_id, **body):
        url = f"{self.base}/api/v1/me/memories/{entry_id}/preview/"
        return http_request(url, method="POST", token=self.me, body=body)

    def recalled(self) -> dict[str, str]:
        response = http_request(
            f"{self.base}/api/v1/members/{self.user.pk}/recall/",
            method="POST",
            token=self.assistant,
            body={"surface": "assistant", "scope": {"kind": "profile"}, "query": ""},
        )
        assert response.status == 200, response.body
        return {e["id"]: e["body"] for e in response.body["entries"]}


def head(entry_id) -> tuple:
    return MemoryEntry.objects.values_list("lifecycle", "revision_id", "body").get(pk=entry_id)


def assert_not_head(response, current: dict) -> None:
    assert response.status == 409, response.body
    error = response.body["error"]
    assert error["code"] == NOT_HEAD
    assert error["fields"] == {
        "current_entry_id": [current["id"]],
        "current_revision_id": [current["revision_id"]],
    }


def test_editing_a_superseded_memory_is_refused_with_the_current_revision(live_server):
    # given: the member restated a fact; the first statement is superseded
    member = Member(live_server)
    old = member.state("I take my coffee black")
    current = member.state("I take my coffee with oat milk")
    assert head(old["id"])[0] == Lifecycle.SUPERSEDED
    old_head, current_head = head(old["id"]), head(current["id"])
    # when the member edits (or previews an edit of) the superseded one
    edited = member.edit(old["id"], body="I take my coffee as espresso")
    previewed = member.preview(old["id"], body="I take my coffee as espresso")
    # then both are refused, naming the current version
    assert_not_head(edited, current)
    assert_not_head(previewed, current)
    assert "replaced" in edited.body["error"]["message"]
    # and neither entry changed: the member's active fact is still recalled
    assert (head(old["id"]), head(current["id"])) == (old_head, current_head)
    assert member.recalled() == {current["id"]: "I take my coffee with oat milk"}


def test_editing_a_draft_proposal_is_refused_with_the_members_current_fact(live_server):
    # given: a surface's inference against the member's own statement is held as a draft
    member = Member(live_server)
    fact = member.state("I walk every morning", subject="walks")
    proposed = http_request(
        f"{member.base}/api/v1/members/{member.user.pk}/memories/?session_id=s-1",
        method="POST",
        token=member.assistant,
        body={
            "scope": {"kind": "profile"},
            "category": "preference",
            "subject": "walks",
            "body": "walks in the evening",
            "origin": "model-inferred",
        },
    )
    assert proposed.status == 200 and proposed.body["outcome"] == "kept-existing", proposed.body
    draft = MemoryEntry.objects.get(member=member.user, lifecycle=Lifecycle.DRAFT)
    fact_head = head(fact["id"])
    # when the member edits the draft instead of answering its question
    edited = member.edit(draft.pk, body="I walk in the evening now")
    # then
    assert_not_head(edited, fact)
    assert "answer" in edited.body["error"]["message"]
    assert head(fact["id"]) == fact_head
    assert head(draft.pk)[0] == Lifecycle.DRAFT
    assert member.recalled() == {fact["id"]: "I walk every morning"}


def test_an_edit_of_a_stale_revision_is_refused_and_the_head_is_edited(live_server):
    # given
    member = Member(live_server)
    entry = member.state("I take my coffee black")
    first_revision = entry["revision_id"]
    # when the head is edited, naming the revision read
    second = member.edit(entry["id"], body="oat milk", revision_id=first_revision)
    # then
    assert second.status == 200, second.body
    assert second.body["previous_revision_id"] == first_revision
    # when an editor still holding the first revision saves
    stale = member.edit(entry["id"], body="espresso", revision_id=first_revision)
    # then it is refused, naming the head; the head stays
    assert_not_head(stale, second.body)
    assert "newer" in stale.body["error"]["message"]
    assert head(entry["id"])[2] == "oat milk"
    # and the current revision (or none named) edits
    third = member.edit(entry["id"], body="espresso", revision_id=second.body["revision_id"])
    assert third.status == 200 and third.body["previous_revision_id"] == second.body["revision_id"]
    assert member.edit(entry["id"], body="a flat white").status == 200
    # a revision id alone is no edit
    bare = member.edit(entry["id"], revision_id=third.body["revision_id"])
    assert bare.status == 400


def test_a_paused_memory_is_still_its_current_version_and_can_be_edited(live_server):
    member = Member(live_server)
    entry = member.state("I take my coffee black")
    memory_pause(entry=MemoryEntry.objects.get(pk=entry["id"]), actor=Actor.of(member.user))
    edited = member.edit(entry["id"], body="I take my coffee with oat milk")
    assert edited.status == 200, edited.body
    assert head(entry["id"])[:1] == (Lifecycle.PAUSED,)
    assert member.recalled() == {}


def test_the_edit_page_refuses_a_superseded_memory_and_offers_no_edit_button(live_server):
    # given
    member = Member(live_server)
    old = member.state("I take my coffee black")
    current = member.state("I take my coffee with oat milk")
    browser = Client()
    browser.force_login(member.user)
    before = head(old["id"]), head(current["id"])
    # when
    detail = browser.get(f"/profile/memory/{old['id']}/")
    saved = browser.post(
        f"/profile/memory/{old['id']}/edit/",
        {"body": "I take my coffee as espresso", "category": "preference", "subject": "coffee"},
    )
    # then
    assert detail.status_code == 200
    assert f"/profile/memory/{old['id']}/edit/" not in detail.content.decode()
    assert saved.status_code == 200
    assert "only its current version can be edited" in saved.content.decode()
    assert (head(old["id"]), head(current["id"])) == before
    # while the current version's page offers the edit, with its revision
    form = browser.get(f"/profile/memory/{current['id']}/edit/").content.decode()
    assert current["revision_id"] in form
