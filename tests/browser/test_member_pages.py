"""Issue 47 in a real browser (Debian Chromium at 1280, 390 and 320 px, keyboard only, axe
after every action): "My memory" shows what Iris remembers and "What Iris may do" holds
the switches, each page within a height budget and with its first memory or first
control on the first screen; every action lands focus on its confirmation, announced and
on screen; a switch that hides or forgets says how much, with examples, before it
happens, and the server then does what the page said; a pending erase is the state of
the page, with its cancel at the top and the switches put aside."""

import os
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from consent.models import OptOutEvent
from iris_site.services import token_issue
from memory.controls import member_memory_settings_get
from memory.models import MemoryEntry
from tests.browser.stepup import confirm_its_you
from tests.browser.test_memory_page import sign_in_with_keyboard, tab_to
from tests.conftest import http_request
from tests.iris_site.factories import PASSWORD, ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WCAG = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
HEIGHT = 844  # a phone's first screen (and a laptop's, near enough)
# Document height budgets (px) per page and width, from what this fixture's pages measured
# (1280 / 390 / 320: My memory 893 / 1,149 / 1,325; What Iris may do 2,915 / 4,149 /
# 4,799; a withdrawal's question 844 / 1,004 / 1,100; turning a kind off 844 / 844 / 956; a pending
# erase at most 844 / 868 / 1,005) with about 12% of room. A page shorter than the
# window measures the window (844). With the switches on it, My memory was 5,747 px at
# 1280 and 9,370 at 320.
BUDGET = {
    "index": {1280: 1000, 390: 1300, 320: 1500},
    "controls": {1280: 3300, 390: 4650, 320: 5400},
    "withdraw": {1280: 1000, 390: 1150, 320: 1250},
    "opt-out": {1280: 1000, 390: 1000, 320: 1100},
    "erase-pending": {1280: 1000, 390: 1000, 320: 1150},
}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screens"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def member():
    member = consenting_member("category:medical")
    remember(member, subject="coffee", body="I take my coffee black")
    remember(member, category="goal", subject="language", body="I am learning Portuguese")
    remember(
        member,
        scope={"kind": "session", "session_id": "s-1"},
        subject="train",
        body="I am on the train to Porto",
    )
    return member


def accessible(page: Page) -> None:
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, results.generate_report()


def on_first_screen(page: Page, locator) -> None:
    box = locator.bounding_box()
    assert box is not None, locator
    top = page.evaluate("window.scrollY")
    assert box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"], (box, top)


def within_budget(page: Page, name: str, width: int) -> None:
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= BUDGET[name][width], (name, width, height)


def announced(page: Page, text: str) -> None:
    """The confirmation says `text`, is a status (announced), has focus, is on screen, and
    the page passes axe while it shows."""
    region = page.locator("#status-messages")
    expect(region).to_contain_text(text)
    expect(region).to_have_attribute("role", "status")
    expect(region).to_be_focused()
    on_first_screen(page, region)
    accessible(page)


def open_controls(page: Page) -> None:
    tab_to(page, page.get_by_role("main").get_by_role("link", name="What Iris may do"), limit=40)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="What Iris may do", level=1)).to_be_visible()


def recall_ids(live_server, member) -> list:
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    answer = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/recall/",
        method="POST",
        token=token,
        body={"surface": "assistant", "scope": {"kind": "profile"}, "query": "coffee"},
    )
    assert answer.status == 200, answer.body
    return [e["id"] for e in answer.body["entries"]]


@pytest.mark.parametrize("width", [1280, 390, 320])
def test_memories_and_switches_apart_each_action_lands_on_its_confirmation(
    page: Page, live_server, member, width
):
    page.set_viewport_size({"width": width, "height": HEIGHT})
    sign_in_with_keyboard(page, live_server.url, member.email)
    # My memory: what Iris remembers, the first memory on the first screen, no switches
    on_first_screen(page, page.locator(".entry-link").first)
    within_budget(page, "index", width)
    for switch in ("Stop using my memories", "Go off the record", "Save paused assistants"):
        expect(page.get_by_role("button", name=switch)).to_have_count(0)
    expect(page.get_by_role("link", name="Erase everything Iris remembers")).to_have_count(0)
    accessible(page)

    # What Iris may do: the switches, the first on the first screen, each saying what it does
    open_controls(page)
    within_budget(page, "controls", width)
    stop = page.get_by_role("button", name="Stop using my memories")
    on_first_screen(page, stop)
    expect(page.locator("#stop-using-help")).to_contain_text("3 memories in use now")
    expect(page.locator("#opt-out-personalization-help")).to_contain_text(
        "Turning it off hides 2 memories from every assistant."
    )
    accessible(page)

    # stop using: focus on the confirmation, on screen, announced
    tab_to(page, stop, limit=40)
    page.keyboard.press("Enter")
    announced(page, "Iris has stopped using your memories")
    assert member_memory_settings_get(member_id=member.pk).stop_using

    # automatic forgetting
    tab_to(page, page.get_by_label("Conversations"), limit=60)
    page.keyboard.press("End")  # the longest: after 18 months
    tab_to(page, page.get_by_role("button", name="Save automatic forgetting"), limit=20)
    page.keyboard.press("Enter")
    confirm_its_you(page)  # what is older already goes at once
    announced(page, "Iris will forget automatically: conversations after 18 months")
    assert member_memory_settings_get(member_id=member.pk).auto_forget_months == {"session": 18}

    # pause an assistant
    tara = page.get_by_role("checkbox", name="Pause Tara")
    tab_to(page, tara, limit=60)
    page.keyboard.press("Space")
    tab_to(page, page.get_by_role("button", name="Save paused assistants"), limit=20)
    page.keyboard.press("Enter")
    announced(page, "Paused: Tara.")
    assert member_memory_settings_get(member_id=member.pk).paused_consumers == {"tara"}

    # off the record, and back
    tab_to(page, page.get_by_role("button", name="Go off the record"), limit=60)
    page.keyboard.press("Enter")
    announced(page, "Off the record: nothing new is remembered")
    expect(page.get_by_role("heading", name="What Iris may do", level=1)).to_be_visible()
    tab_to(page, page.get_by_role("button", name="Go back on the record"), limit=80)
    page.keyboard.press("Enter")
    announced(page, "Back on the record.")

    # turning a kind of memory back on: the confirmation again
    page.goto(f"{live_server.url}/profile/memory/opt-outs/?category=embodied&state=off")
    tab_to(page, page.get_by_role("button", name="Turn off “Scenes and movement”"), limit=40)
    page.keyboard.press("Enter")
    announced(page, "Turned off “Scenes and movement”")
    tab_to(page, page.get_by_role("button", name="Turn “Scenes and movement” back on"), limit=120)
    page.keyboard.press("Enter")
    announced(page, "“Scenes and movement” is back on.")


@pytest.mark.parametrize("width", [1280, 390, 320])
def test_withdrawing_a_general_consent_says_what_stops_first_and_the_server_does_it(
    page: Page, live_server, member, width
):
    page.set_viewport_size({"width": width, "height": HEIGHT})
    sign_in_with_keyboard(page, live_server.url, member.email)
    assert len(recall_ids(live_server, member)) == 2  # the two memories about them
    page.goto(f"{live_server.url}/profile/memory/consents/")
    tab_to(page, page.get_by_role("link", name="Withdraw Using what you share to answer you"))
    page.keyboard.press("Enter")
    # before: what stops, the kinds that turn off, the counts and the member's own examples
    consequence = page.locator("#consequence")
    expect(consequence).to_contain_text("Iris stops using what you share to answer you")
    expect(consequence).to_contain_text("Things about you")
    expect(consequence).to_contain_text("Forgotten: none.")
    expect(consequence).to_contain_text("Hidden from every assistant: 3 memories")
    expect(consequence).to_contain_text("I am on the train to Porto")
    assert MemoryEntry.objects.filter(member=member, lifecycle="active").count() == 3
    on_first_screen(page, page.locator("#consequence p").first)
    within_budget(page, "withdraw", width)
    accessible(page)
    # one confirmation
    tab_to(page, page.get_by_role("button", name="Withdraw “Using what you share"), limit=40)
    page.keyboard.press("Enter")
    announced(page, "Consent withdrawn: “Using what you share to answer you”.")
    announced(page, "3 memories are hidden from every assistant")
    # the server did what the page said: nothing recalled, nothing erased
    assert recall_ids(live_server, member) == []
    assert MemoryEntry.objects.filter(member=member, lifecycle="active").count() == 3


@pytest.mark.parametrize("width", [1280, 390, 320])
def test_turning_off_personalisation_says_what_it_hides_first_and_the_server_hides_it(
    page: Page, live_server, member, width
):
    page.set_viewport_size({"width": width, "height": HEIGHT})
    sign_in_with_keyboard(page, live_server.url, member.email)
    open_controls(page)
    tab_to(page, page.get_by_role("link", name="Turn off “Personalisation”"), limit=120)
    page.keyboard.press("Enter")
    consequence = page.locator("#consequence")
    expect(consequence).to_contain_text("Hidden from every assistant: 2 memories")
    expect(consequence).to_contain_text("I take my coffee black")
    expect(consequence).not_to_contain_text("I am on the train to Porto")
    assert not OptOutEvent.objects.filter(member=member).exists()
    on_first_screen(page, page.locator("#consequence p").first)
    within_budget(page, "opt-out", width)
    accessible(page)
    tab_to(page, page.get_by_role("button", name="Turn off “Personalisation”"), limit=40)
    page.keyboard.press("Enter")
    announced(page, "Turned off “Personalisation”")
    announced(page, "2 memories are hidden from every assistant")
    assert recall_ids(live_server, member) == []
    assert MemoryEntry.objects.filter(member=member).exclude(lifecycle="active").count() == 0


@pytest.mark.parametrize("width", [1280, 390, 320])
def test_a_pending_erase_is_the_state_of_the_page(page: Page, live_server, member, width):
    page.set_viewport_size({"width": width, "height": HEIGHT})
    sign_in_with_keyboard(page, live_server.url, member.email)
    open_controls(page)
    tab_to(page, page.get_by_role("link", name="Erase everything Iris remembers"), limit=200)
    page.keyboard.press("Enter")
    tab_to(page, page.get_by_label("Your password"), limit=60)
    page.keyboard.type(PASSWORD)
    tab_to(page, page.get_by_role("button", name="Erase everything"), limit=20)
    page.keyboard.press("Enter")
    announced(page, "Erase requested")
    for path in ("/profile/memory/", "/profile/memory/controls/"):
        page.goto(live_server.url + path)
        banner = page.get_by_role("region", name="Everything is about to be erased")
        on_first_screen(page, banner.get_by_role("button", name="Cancel and keep my memory"))
        within_budget(page, "erase-pending", width)
        for contradiction in ("Stop using my memories", "Go off the record", "Filter"):
            expect(page.get_by_role("button", name=contradiction)).to_have_count(0)
        expect(page.get_by_role("link", name="Erase everything Iris remembers")).to_have_count(0)
        expect(page.get_by_role("link", name="Turn off “Personalisation”")).to_have_count(0)
        accessible(page)
    # cancel from the top of the page, by keyboard
    page.locator("body").focus()
    tab_to(page, page.get_by_role("button", name="Cancel and keep my memory"), limit=40)
    page.keyboard.press("Enter")
    announced(page, "Cancelled the erase")
    page.goto(f"{live_server.url}/profile/memory/controls/")
    expect(page.get_by_role("button", name="Stop using my memories")).to_be_visible()
    expect(page.get_by_role("region", name="Everything is about to be erased")).to_have_count(0)


@pytest.mark.parametrize("width", [1280, 390])
def test_screens_of_the_reorganised_pages(page: Page, live_server, member, width):
    """Full-page screenshots for docs/screens/ (written there with IRIS_WRITE_SCREENS=1,
    else into test-artifacts/)."""
    out = DOCS if os.environ.get("IRIS_WRITE_SCREENS") == "1" else ARTIFACTS
    out.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": HEIGHT})
    sign_in_with_keyboard(page, live_server.url, member.email)
    shots = {
        "my-memory": "/profile/memory/",
        "what-iris-may-do": "/profile/memory/controls/",
        "withdraw-consent": "/profile/memory/consents/data_processing/withdraw/",
        "turn-off-personalisation": "/profile/memory/opt-outs/?category=personalization&state=off",
    }
    for name, path in shots.items():
        page.goto(live_server.url + path)
        accessible(page)
        page.screenshot(path=str(out / f"{name}-{width}.png"), full_page=True)
    page.goto(f"{live_server.url}/profile/memory/clear/")
    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_role("button", name="Erase everything").click()
    page.goto(f"{live_server.url}/profile/memory/")
    accessible(page)
    page.screenshot(path=str(out / f"erase-pending-{width}.png"), full_page=True)
