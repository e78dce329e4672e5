"""Your conversations, the member's page (issue 41): it lists what the API lists (ids,
turn counts, times: never a turn's text), its confirmation says what goes and what stays,
and forgetting there erases what the API's forget erases; another member's conversation
is a 404, a GET never forgets, and the POST needs its CSRF token."""

from datetime import UTC, datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from hierarchy.models_stm import ShortTermMemory
from memory.enums import Lifecycle
from memory.models import ConversationTurn, MemoryEntry
from tests.memory.factories import consenting_member, member_turn
from tests.memory.test_forget_conversation import GONE, KEPT, history
from tests.memory.test_views import signed_in as _signed_in
from tests.stepup import step_up
from tests.trust.test_forget_completeness import new_marker, schema_hits

pytestmark = pytest.mark.django_db

LIST = "/profile/memory/conversations/"


def signed_in(member, **options):
    """Signed in, with the password confirmed just now (these pages forget)."""
    return step_up(_signed_in(member, **options))


def forget_url(session_id: str) -> str:
    return reverse("memory:conversation-forget", args=[session_id])


def lifecycle(entry) -> str:
    return MemoryEntry.objects.get(pk=entry.pk).lifecycle


def test_the_list_shows_ids_counts_and_times_never_what_was_said():
    member = consenting_member()
    marker, other = new_marker(), new_marker()
    history(member, marker, other)
    client = signed_in(member)
    page = client.get(LIST).content.decode()
    assert "<h1>Your conversations</h1>" in page
    assert GONE in page and KEPT in page
    assert "2 turns, at <time" in page and "1 turn, at <time" in page
    assert page.count("Forget this conversation") >= 2
    assert forget_url(GONE) in page and forget_url(KEPT) in page
    # newest first: KEPT's only turn was logged after GONE's last
    assert page.index(KEPT) < page.index(GONE)
    assert marker not in page and other not in page
    for text in ConversationTurn.objects.filter(member=member).values_list("text", flat=True):
        assert text not in page
    # and the page and the API list the same conversations
    api = client.get("/api/v1/me/conversations/").json()["results"]
    assert [row["session_id"] for row in api] == [KEPT, GONE]


def test_a_conversation_over_more_than_a_minute_says_from_and_to(monkeypatch):
    member = consenting_member()
    for at in (datetime(2026, 3, 1, 9, 5, tzinfo=UTC), datetime(2026, 3, 1, 10, 40, tzinfo=UTC)):
        monkeypatch.setattr(timezone, "now", lambda at=at: at)
        member_turn(member, f"said at {at}", session_id="s-1")
    monkeypatch.undo()
    page = signed_in(member).get(LIST).content.decode()
    assert (
        '2 turns, from <time datetime="2026-03-01T09:05:00+00:00">1 March 2026, 09:05</time> '
        'to <time datetime="2026-03-01T10:40:00+00:00">1 March 2026, 10:40</time> UTC'
    ) in page


def test_the_memory_page_links_to_the_conversations():
    page = signed_in(consenting_member()).get("/profile/memory/").content.decode()
    assert f'<a href="{LIST}">Your conversations</a>' in page


def test_no_conversations_says_so():
    page = signed_in(consenting_member()).get(LIST).content.decode()
    assert "No conversations logged." in page


def test_the_list_paginates_newest_first():
    member = consenting_member()
    for n in range(25):
        member_turn(member, f"turn {n}", session_id=f"s-{n:02d}")
    client = signed_in(member)
    first = client.get(LIST).content.decode()
    assert "Page 1 of 2" in first and "s-24" in first and "s-00" not in first
    second = client.get(LIST, {"page": 2}).content.decode()
    assert "s-00" in second and "s-24" not in second


def test_the_confirmation_says_what_goes_and_what_stays_and_a_get_never_forgets():
    member = consenting_member()
    marker, other = new_marker(), new_marker()
    history(member, marker, other)
    response = signed_in(member).get(forget_url(GONE))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Forget this conversation?" in page
    assert "Its 2 turns" in page
    assert "Its 1 short-term note." in page
    assert "The 3 memories that came only from it" in page
    assert "under “About you”" in page
    assert "nothing but ids, times and keyed digests" in page
    assert marker not in page
    assert ConversationTurn.objects.filter(member=member, session_id=GONE).count() == 2


def test_forgetting_erases_the_conversation_and_says_what_went():
    member = consenting_member()
    marker, other = new_marker(), new_marker()
    entries = history(member, marker, other)
    client = signed_in(member)
    response = client.post(forget_url(GONE), follow=True)
    assert response.redirect_chain == [(LIST, 302)]
    page = response.content.decode()
    assert (
        "Forgot this conversation: 2 turns, 1 short-term note and 3 memories that came only "
        "from it erased." in page
    )
    assert 'role="status"' in page
    assert forget_url(GONE) not in page and forget_url(KEPT) in page
    # the server holds what the page said
    assert schema_hits(marker) == []
    assert not ConversationTurn.objects.filter(member=member, session_id=GONE).exists()
    assert not ShortTermMemory.objects.filter(member=member, scope_id=GONE).exists()
    for entry in entries["gone"]:
        assert lifecycle(entry) == Lifecycle.TOMBSTONED
    for entry in entries["kept"]:
        assert lifecycle(entry) == Lifecycle.ACTIVE
    # nothing is left of it: a second forget, and its confirmation, are 404
    assert client.get(forget_url(GONE)).status_code == 404
    assert client.post(forget_url(GONE)).status_code == 404


def test_another_members_conversation_is_a_404_and_stays():
    owner, intruder = consenting_member(), consenting_member()
    member_turn(owner, "my secret plans", session_id="s-owner")
    client = signed_in(intruder)
    assert client.get(forget_url("s-owner")).status_code == 404
    assert client.post(forget_url("s-owner")).status_code == 404
    assert "s-owner" not in client.get(LIST).content.decode()
    assert ConversationTurn.objects.filter(member=owner, session_id="s-owner").count() == 1


@pytest.mark.parametrize("session_id", ["no-such-session", "x" * 300])
def test_an_unknown_or_malformed_session_is_a_404(session_id):
    member = consenting_member()
    member_turn(member, "hello", session_id="s-1")
    client = signed_in(member)
    assert client.get(forget_url(session_id)).status_code == 404
    assert client.post(forget_url(session_id)).status_code == 404


def test_forgetting_needs_the_csrf_token():
    member = consenting_member()
    member_turn(member, "hello", session_id="s-1")
    client = signed_in(member, enforce_csrf_checks=True)
    assert client.post(forget_url("s-1")).status_code == 403
    assert ConversationTurn.objects.filter(member=member, session_id="s-1").count() == 1


def test_the_pages_are_for_signed_in_members_only():
    from django.test import Client

    from tests.iris_site.factories import OperatorFactory

    assert Client().get(LIST).status_code == 302
    assert Client().post(forget_url("s-1")).status_code == 302
    assert signed_in(OperatorFactory()).get(LIST).status_code == 403
