"""The member's pages apart (issue 47): "My memory" shows what Iris remembers, "What Iris
may do" holds the switches; every consent withdrawal and every kind-of-memory switch says
what it will hide and forget before it happens, and the server then does exactly that."""

import html as html_text
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from consent.enums import CONSENT_TYPES, OptOutCategory
from consent.models import OptOutEvent
from consent.selectors import consent_gate_state
from memory.enums import Lifecycle
from memory.http.consequences import consent_stops, usable_kinds
from memory.models import MemoryEntry
from tests.iris_site.factories import PASSWORD
from tests.memory.factories import consenting_member, remember
from tests.stepup import step_up

# The consent cascade runs when the withdrawal commits: these tests commit.
pytestmark = pytest.mark.django_db(transaction=True)

COUNTS = re.compile(
    r"Forgotten:</strong> (?:(\d+) memor|none)[\s\S]*?"
    r"Hidden from every assistant:</strong> (?:(\d+) memor|none)"
)


def signed_in(member) -> Client:
    client = Client()
    client.force_login(member)
    return step_up(client)


def member_with_memories():
    """Every consent given, and memories of three kinds: about them, a sensitive topic
    and the conversation they are in."""
    member = consenting_member(*(t for t in CONSENT_TYPES if t not in ("data_processing",)))
    remember(member, subject="coffee", body="I take my coffee black")
    remember(member, category="medical", subject="asthma", body="I use an inhaler for asthma")
    remember(
        member,
        scope={"kind": "session", "session_id": "s-1"},
        subject="train",
        body="I am on the train to Porto",
    )
    return member


def previewed(html: str) -> tuple[int, int]:
    match = COUNTS.search(html)
    assert match, html
    return int(match.group(1) or 0), int(match.group(2) or 0)


def kinds_now(member) -> frozenset[str]:
    active, opt_outs = consent_gate_state(member_id=member.pk)
    return usable_kinds(active.types, opt_outs)


def hidden_now(member, before: frozenset[str]) -> int:
    """What the read gate now keeps from every assistant that it let them use before."""
    lost = before - kinds_now(member)
    return MemoryEntry.objects.filter(
        member=member, lifecycle=Lifecycle.ACTIVE, scope_kind__in=sorted(lost)
    ).count()


def live(member) -> int:
    return MemoryEntry.objects.filter(member=member).exclude(lifecycle="tombstoned").count()


def test_my_memory_shows_memories_and_the_switches_are_on_their_own_page():
    member = member_with_memories()
    client = signed_in(member)
    index = client.get("/profile/memory/").content.decode()
    assert "I take my coffee black" in index
    assert 'href="/profile/memory/controls/"' in index
    for switch in ("Stop using my memories", "Turn off “Personalisation”", "Go off the record"):
        assert switch not in index
    assert "Erase everything Iris remembers" not in index
    controls = client.get("/profile/memory/controls/").content.decode()
    assert "<h1>What Iris may do</h1>" in controls
    for switch in ("Stop using my memories", "Turn off “Personalisation”", "Go off the record"):
        assert switch in controls
    # the consequence is stated next to each switch: 2 memories about them are hidden
    assert "Turning it off hides 2 memories from every assistant." in controls
    assert "(3 memories in use now)" in controls


def test_a_settings_change_comes_back_to_the_switches_page_with_what_changed():
    client = signed_in(member_with_memories())
    response = client.post(
        "/profile/memory/settings/", {"part": "stop-using", "stop_using": "on"}, follow=True
    )
    assert response.redirect_chain[-1][0] == "/profile/memory/controls/"
    assert "Iris has stopped using your memories" in response.content.decode()


@pytest.mark.parametrize("consent_type", CONSENT_TYPES)
def test_each_consent_says_what_withdrawing_it_does_and_the_server_does_that(consent_type):
    member = member_with_memories()
    client = signed_in(member)
    before_kinds = kinds_now(member)
    before_live = live(member)
    # the table's Withdraw opens the page first; a bare POST comes back to it
    table = client.get("/profile/memory/consents/").content.decode()
    url = f"/profile/memory/consents/{consent_type}/withdraw/"
    assert f'href="{url}"' in table
    assert client.post(url).url == url
    page = client.get(url).content.decode()
    forgotten, hidden = previewed(page)
    assert "this is what happens at once" in page
    assert consent_stops(consent_type)  # every consent says what stops
    assert consent_stops(consent_type) in html_text.unescape(page)
    # nothing happened yet
    assert live(member) == before_live
    assert hidden_now(member, before_kinds) == 0
    # when the member confirms
    done = client.post(url, {"confirm": "1"}, follow=True).content.decode()
    # then the server did what the page said
    assert before_live - live(member) == forgotten
    assert hidden_now(member, before_kinds) == hidden
    assert "Consent withdrawn:" in done
    if forgotten:
        assert f"Forgot {forgotten} memor" in done
    if hidden:
        assert f"{hidden} memor" in done and "hidden from every assistant" in done
    if not (forgotten or hidden):
        assert "No memory was hidden or forgotten." in done
    expected = {"data_storage": (0, 3), "data_processing": (0, 3), "category:medical": (1, 0)}
    if consent_type in expected:  # the cases where something must go
        assert (forgotten, hidden) == expected[consent_type]


@pytest.mark.parametrize("category", OptOutCategory.values)
def test_each_kind_of_memory_says_what_turning_it_off_hides_and_the_server_hides_that(category):
    member = member_with_memories()
    client = signed_in(member)
    before_kinds = kinds_now(member)
    # the switch is a link to the question, and a bare POST asks too
    controls = client.get("/profile/memory/controls/").content.decode()
    url = f"/profile/memory/opt-outs/?category={category}&amp;state=off"
    assert url in controls
    asked = client.post("/profile/memory/opt-outs/", {"category": category, "state": "off"})
    assert asked.url == url.replace("&amp;", "&")
    assert not OptOutEvent.objects.filter(member=member).exists()
    page = client.get(url.replace("&amp;", "&")).content.decode()
    forgotten, hidden = previewed(page)
    assert forgotten == 0 and "Nothing is erased" in page
    done = client.post(
        "/profile/memory/opt-outs/",
        {"category": category, "state": "off", "confirm": "1"},
        follow=True,
    ).content.decode()
    assert OptOutEvent.objects.get(member=member).kind == "opt-out"
    assert hidden_now(member, before_kinds) == hidden
    assert f"{hidden} memor" in done and "hidden from every assistant" in done
    assert live(member) == 3  # nothing erased
    expected = {"personalization": 2, "memory": 3, "conversation_history": 1}
    if category in expected:
        assert hidden == expected[category]


def test_while_a_clear_waits_the_pages_say_so_first_and_hide_the_switches():
    member = member_with_memories()
    client = signed_in(member)
    client.post("/profile/memory/clear/", {"password": PASSWORD})
    for path in ("/profile/memory/", "/profile/memory/controls/"):
        html = client.get(path).content.decode()
        assert "Everything is about to be erased" in html
        assert "Cancel and keep my memory" in html
        for contradiction in (
            "Stop using my memories",
            "Turn off “",
            "Go off the record",
            "Erase everything Iris remembers",
            'role="search"',
        ):
            assert contradiction not in html, (path, contradiction)
        # the banner comes before anything else on the page
        assert html.index("Everything is about to be erased") < html.index("page-links")


def test_each_automatic_forgetting_choice_says_what_it_forgets_at_once_and_does_that():
    member = member_with_memories()
    old = MemoryEntry.objects.get(member=member, scope_kind="profile", category="preference")
    MemoryEntry.objects.filter(pk=old.pk).update(
        updated_at=timezone.now() - timedelta(days=200)  # over 3 months, under 12
    )
    client = signed_in(member)
    controls = client.get("/profile/memory/controls/").content.decode()
    assert '<option value="3">After 3 months (forgets 1 now)</option>' in controls
    assert '<option value="12">After 12 months</option>' in controls
    done = client.post(
        "/profile/memory/settings/",
        {"part": "auto-forget", "auto_forget_profile": "3"},
        follow=True,
    ).content.decode()
    assert "Forgot 1 memory already older than that: erased now." in done
    old.refresh_from_db()
    assert old.lifecycle == "tombstoned"
    assert live(member) == 2
