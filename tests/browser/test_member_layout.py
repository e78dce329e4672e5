"""Every member page on a phone and a desktop (Debian Chromium): no horizontal scroll at
1280, 390 and 320 px, the main nav as a keyboard-operable disclosure on small screens,
plain-text titles, and after an action focus on the status message that says what
changed, with zero axe WCAG 2.1 A/AA violations while it shows."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from memory.models import MemoryEntry
from tests.browser.stepup import confirm_its_you
from tests.browser.test_memory_page import tab_to
from tests.datarights.factories import process, submit
from tests.iris_site.factories import PASSWORD
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WIDTHS = [1280, 390, 320]
AXE_RULES = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
LONG_TOKEN = "LIB-" + "0123456789ABCDEF" * 6


@pytest.fixture
def member():
    member = consenting_member("category:mental_health")
    remember(member, subject="coffee", body="I take my coffee black")
    remember(member, category="goal", subject="language", body="I am learning Portuguese")
    remember(member, category="mental_health", subject="flights", body="I get anxious on flights")
    remember(member, category="mental_health", subject="sleep", body="I sleep badly in spring")
    remember(member, category="fact", subject="card", body=f"My library card is {LONG_TOKEN}")
    process(submit(member, "export"))  # a finished export: its SHA-256 proof is a long token
    submit(member, "access")
    return member


def sign_in(page: Page, base_url: str, email: str) -> None:
    page.goto(f"{base_url}/accounts/login/?next=/profile/memory/")
    page.locator("#id_username").fill(email)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("#id_password").press("Enter")
    expect(page.get_by_role("heading", name="What Iris remembers about you")).to_be_visible()


def member_paths(member) -> list[str]:
    # The subject is sealed: found among the member's entries as read, not by a lookup.
    [entry] = [e for e in MemoryEntry.objects.filter(member=member) if e.subject == "card"]
    return [
        "/profile/memory/",
        "/profile/memory/?q=nothing-matches",
        f"/profile/memory/{entry.pk}/",
        f"/profile/memory/{entry.pk}/history/",
        f"/profile/memory/{entry.pk}/edit/",
        f"/profile/memory/{entry.pk}/scope/",
        f"/profile/memory/{entry.pk}/forget/",
        "/profile/memory/forget-category/",
        "/profile/memory/forget-category/?category=mental_health",
        "/profile/memory/clear/",
        "/profile/memory/consents/",
        "/profile/memory/consents/category:mental_health/withdraw/",
        "/profile/memory/consents/data_storage/withdraw/",
        "/profile/memory/controls/",
        "/profile/memory/opt-outs/?category=personalization&state=off",
        "/profile/memory/notices/",
        "/profile/memory/data/",
        "/profile/memory/data/export/",
        "/profile/memory/data/access/",
        "/profile/memory/data/delete/",
    ]


def overflow(page: Page) -> dict:
    """How far the document is wider than the viewport, and what sticks out."""
    return page.evaluate(
        """() => {
          const width = window.innerWidth;
          const wide = [...document.querySelectorAll('body *')]
            .filter(el => el.getBoundingClientRect().right > width + 0.5)
            .filter(el => !el.closest('.skip-link'))
            .slice(0, 5)
            .map(el => el.tagName + '.' + el.className + ' ' + (el.textContent || '').slice(0, 40));
          return {scroll: document.documentElement.scrollWidth, width, wide};
        }"""
    )


def assert_fits(page: Page, where: str) -> None:
    box = overflow(page)
    assert box["scroll"] <= box["width"], (where, box)


def assert_plain_title(page: Page, where: str) -> None:
    title = page.evaluate("document.title")
    assert title and "<" not in title and ">" not in title, (where, title)
    assert title.endswith("· Iris"), (where, title)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_member_page_scrolls_sideways_and_titles_are_plain(
    page: Page, live_server, member, width, screenshot
):
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, member.email)
    for path in member_paths(member):
        response = page.goto(live_server.url + path)
        assert response.status == 200, path
        assert_fits(page, path)
        assert_plain_title(page, path)
        if width == 320:
            # the nav, opened, fits too
            page.locator(".nav-menu > summary").click()
            assert_fits(page, f"{path} (menu open)")
    # what Iris remembers comes before "continue where you left off"
    page.goto(f"{live_server.url}/profile/memory/")
    first_group = page.locator("#scope-1").bounding_box()["y"]
    cards = page.locator("#continuation-cards-heading").bounding_box()["y"]
    assert first_group < cards
    screenshot(f"index-{width}")
    # signed out: the sign-in page, empty and with its field errors
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/accounts/login/")
    assert_fits(page, "sign-in")
    assert_plain_title(page, "sign-in")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#id_username-error")).to_have_text("Enter your email.")
    assert_fits(page, "sign-in with errors")


@pytest.mark.parametrize("width", [390, 320])
def test_the_nav_is_a_disclosure_menu_operable_by_keyboard(page: Page, live_server, member, width):
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, member.email)
    wide = page.locator(".nav-wide")
    expect(wide).to_be_hidden()
    menu = page.get_by_text("Menu", exact=True)
    consents = page.locator(".nav-menu").get_by_role("link", name="Consents")
    expect(consents).to_be_hidden()
    page.locator("body").focus()
    tab_to(page, page.locator(".nav-menu > summary"))
    page.keyboard.press("Enter")
    expect(consents).to_be_visible()
    expect(page.locator(".nav-menu")).to_have_attribute("open", "")
    expect(page.locator(".nav-menu").get_by_role("button", name="Sign out")).to_be_visible()
    tab_to(page, consents, limit=10)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="What you allow Iris to do")).to_be_visible()
    # and it closes again with the keyboard
    tab_to(page, page.locator(".nav-menu > summary"))
    page.keyboard.press("Enter")
    expect(page.locator(".nav-menu").get_by_role("link", name="Your data")).to_be_visible()
    page.keyboard.press("Space")
    expect(page.locator(".nav-menu").get_by_role("link", name="Your data")).to_be_hidden()
    assert menu.count() == 1


def test_wide_screens_show_the_nav_links_and_the_brand(page: Page, live_server, member):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, live_server.url, member.email)
    expect(page.locator(".nav-menu")).to_be_hidden()
    expect(page.locator(".nav-wide").get_by_role("link", name="Your data")).to_be_visible()
    expect(page.get_by_role("link", name="Iris home")).to_be_visible()
    icon = page.locator('link[rel="icon"]').get_attribute("href")
    favicon = page.request.get(live_server.url + icon)
    assert favicon.status == 200 and "svg" in favicon.headers["content-type"]
    # members are not sent to the API docs
    expect(page.get_by_role("link", name="API docs")).to_have_count(0)


def contrast_with_white(rgb: str) -> float:
    """WCAG contrast ratio of a CSS `rgb(r, g, b)` colour against white."""

    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(v) for v in re.findall(r"\d+", rgb)[:3])
    luminance = 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    return 1.05 / (luminance + 0.05)


def announced(page: Page, text: str) -> None:
    """The status message says `text`, has focus, and the page passes axe with it shown."""
    region = page.locator("#status-messages")
    expect(region).to_contain_text(text)
    expect(region).to_have_attribute("role", "status")
    expect(region).to_be_focused()
    style = region.evaluate(
        "el => { const s = getComputedStyle(el);"
        " return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }"
    )
    assert style[0] == "solid" and float(style[1].removesuffix("px")) >= 3, style
    assert contrast_with_white(style[2]) >= 3, style
    results = Axe().run(page, options=AXE_RULES)
    assert results.violations_count == 0, results.generate_report()
    assert_fits(page, text)


@pytest.mark.parametrize("width", [1280, 320])
def test_after_each_action_focus_is_on_the_message_that_says_what_changed(
    page: Page, live_server, member, width, screenshot
):
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, member.email)

    # pause, by keyboard
    page.get_by_role("link", name="I am learning Portuguese").click()
    tab_to(page, page.get_by_role("button", name="Pause"), limit=80)
    page.keyboard.press("Enter")
    announced(page, "Paused this memory")
    screenshot(f"paused-{width}")

    # resume
    tab_to(page, page.get_by_role("button", name="Resume"), limit=80)
    page.keyboard.press("Enter")
    announced(page, "Resumed this memory")

    # forget one
    tab_to(page, page.get_by_role("link", name="Forget", exact=True), limit=80)
    page.keyboard.press("Enter")
    tab_to(page, page.get_by_role("button", name="Yes, forget it"), limit=80)
    page.keyboard.press("Enter")
    confirm_its_you(page)  # then, for a few minutes, no forgetting asks again
    announced(page, "Forgot 1 memory about goals")
    expect(page.get_by_role("link", name="I am learning Portuguese")).to_have_count(0)
    screenshot(f"forgot-{width}")

    # edit one, by keyboard
    page.get_by_role("link", name=re.compile("I take my coffee black")).click()
    tab_to(page, page.get_by_role("link", name="Edit", exact=True), limit=80)
    page.keyboard.press("Enter")
    body = page.get_by_role("textbox").first
    tab_to(page, body, limit=40)
    page.keyboard.press("Control+A")
    page.keyboard.type("I take my coffee with oat milk")
    tab_to(page, page.get_by_role("button", name="Save"), limit=40)
    page.keyboard.press("Enter")
    announced(page, "Saved your change to this memory")

    # forget a category: the count and the topic's plain name (keyboard)
    page.goto(f"{live_server.url}/profile/memory/forget-category/?category=mental_health")
    tab_to(page, page.get_by_role("button", name="Forget 2 memories"), limit=80)
    page.keyboard.press("Enter")
    announced(page, "Forgot 2 memories about mental health")

    # withdraw a consent (keyboard)
    page.goto(f"{live_server.url}/profile/memory/consents/")
    withdraw = page.get_by_role("link", name="Withdraw Keeping memories between conversations")
    tab_to(page, withdraw, limit=120)
    page.keyboard.press("Enter")
    expect(page.locator("#consequence")).to_contain_text("Hidden from every assistant: 2")
    tab_to(page, page.get_by_role("button", name=re.compile("^Withdraw")), limit=40)
    page.keyboard.press("Enter")
    announced(page, "Consent withdrawn: “Keeping memories between conversations”")
    announced(page, "2 memories are hidden from every assistant")

    # erase everything, then cancel (keyboard)
    page.goto(f"{live_server.url}/profile/memory/clear/")
    tab_to(page, page.get_by_label("Your password"), limit=80)
    page.keyboard.type(PASSWORD)
    tab_to(page, page.get_by_role("button", name="Erase everything"), limit=40)
    page.keyboard.press("Enter")
    announced(page, "Erase requested")
    tab_to(page, page.get_by_role("button", name="Cancel and keep my memory"), limit=80)
    page.keyboard.press("Enter")
    announced(page, "Cancelled the erase")
    expect(page.get_by_role("link", name=re.compile("oat milk"))).to_be_visible()


def test_an_empty_sign_in_marks_each_field_and_passes_axe(page: Page, live_server):
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Could not sign you in")
    username = page.get_by_label("Email")
    expect(username).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Password")).to_have_attribute("aria-invalid", "true")
    assert "Enter your email." in username.evaluate(
        "el => document.getElementById(el.getAttribute('aria-describedby')).textContent"
    )
    results = Axe().run(page, options=AXE_RULES)
    assert results.violations_count == 0, results.generate_report()
