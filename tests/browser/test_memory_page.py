"""The member memory page in a real browser: keyboard-only flows and accessibility."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from iris_site.audit.events import Actor
from memory.contracts import MemoryWriteRequest
from memory.models import MemoryEntry
from memory.services import memory_remember
from tests.browser.stepup import confirm_its_you
from tests.consent.factories import record
from tests.iris_site.factories import PASSWORD, MemberFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture
def member():
    member = MemberFactory(email="ada@example.test")
    for consent_type in ("data_processing", "data_storage", "category:medical"):
        record(member, consent_type)
    for body, category, subject in [
        ("I take my coffee black", "preference", "coffee"),
        ("I am learning Portuguese", "goal", "language"),
        ("I use an inhaler for asthma", "medical", "asthma"),
    ]:
        write = MemoryWriteRequest.model_validate(
            {
                "scope": {"kind": "profile"},
                "category": category,
                "subject": subject,
                "body": body,
                "origin": "user-stated",
            },
            context={"user_id": member.pk},
        )
        memory_remember(member=member, write=write, actor=Actor.of(member))
    return member


def sign_in_with_keyboard(page: Page, base_url: str, email: str) -> None:
    page.goto(f"{base_url}/accounts/login/?next=/profile/memory/")
    page.keyboard.press("Tab")  # the skip link
    page.locator("#id_username").focus()
    page.keyboard.type(email)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="What Iris remembers about you")).to_be_visible()


def tab_to(page: Page, locator, limit: int = 60) -> None:
    """Press Tab until `locator` has focus: proves it is reachable by keyboard."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if locator.evaluate("el => el === document.activeElement"):
            return
    raise AssertionError(f"could not reach {locator} with the keyboard")


def test_keyboard_only_edit_shows_two_revisions(page: Page, live_server, member, screenshot):
    sign_in_with_keyboard(page, live_server.url, member.email)
    screenshot("index")
    tab_to(page, page.get_by_role("link", name="I take my coffee black"))
    page.keyboard.press("Enter")
    tab_to(page, page.get_by_role("link", name="Edit"))
    page.keyboard.press("Enter")
    body = page.get_by_label("What Iris remembers")
    tab_to(page, body)
    page.keyboard.press("Control+A")
    page.keyboard.type("I take my coffee black, no sugar")
    tab_to(page, page.get_by_role("button", name="Preview"))
    page.keyboard.press("Enter")
    expect(page.get_by_text("What saving will do")).to_be_visible()
    tab_to(page, page.get_by_role("button", name="Save"))
    page.keyboard.press("Enter")
    expect(page.get_by_text("The previous version stays in its history")).to_be_visible()
    tab_to(page, page.get_by_role("link", name="2 versions"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=re.compile("^Version"))).to_have_count(2)
    screenshot("history")


def test_pause_resume_and_forget(page: Page, live_server, member, screenshot):
    sign_in_with_keyboard(page, live_server.url, member.email)
    page.get_by_role("link", name="I am learning Portuguese").click()
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_text("Paused since")).to_be_visible()
    page.get_by_role("button", name="Resume").click()
    expect(page.get_by_text("The assistant may bring it up again")).to_be_visible()
    page.get_by_role("link", name="Forget").click()
    page.get_by_role("button", name="Yes, forget it").click()
    confirm_its_you(page)
    expect(page.get_by_text("Forgot 1 memory about goals")).to_be_visible()
    expect(page.get_by_role("link", name="I am learning Portuguese")).to_have_count(0)
    screenshot("after-forget")


def test_withdrawing_a_sensitive_consent_forgets_its_entries(
    page: Page, live_server, member, screenshot
):
    sign_in_with_keyboard(page, live_server.url, member.email)
    expect(page.get_by_role("link", name="I use an inhaler for asthma")).to_be_visible()
    page.get_by_role("link", name="Consents").click()
    page.get_by_role("link", name="Withdraw Medical matters").click()
    expect(page.locator("#consequence")).to_contain_text("Forgotten: 1 memory")
    expect(page.locator("#consequence")).to_contain_text("I use an inhaler for asthma")
    screenshot("withdraw-consequences")
    page.get_by_role("button", name=re.compile("Withdraw and forget")).click()
    confirm_its_you(page)
    expect(page.get_by_role("status")).to_contain_text(
        "Consent withdrawn: “Medical matters”. Forgot 1 memory"
    )
    page.get_by_role("link", name="My memory").first.click()
    expect(page.get_by_role("link", name="I use an inhaler for asthma")).to_have_count(0)
    assert MemoryEntry.objects.get(category="medical").lifecycle == "tombstoned"


def test_off_the_record_banner_survives_a_reload(page: Page, live_server, member, screenshot):
    sign_in_with_keyboard(page, live_server.url, member.email)
    page.get_by_role("link", name="What Iris may do").first.click()
    page.get_by_role("button", name="Go off the record").click()
    banner = page.locator(".banner-otr")
    expect(banner).to_contain_text("Off the record")
    page.reload()
    expect(banner).to_contain_text("Off the record")
    page.get_by_role("link", name="Consents").click()
    expect(banner).to_be_visible()
    screenshot("off-the-record")
    banner.get_by_role("button", name="Turn off").click()
    expect(page.locator(".banner-otr")).to_have_count(0)


def test_every_member_page_has_no_axe_violations(page: Page, live_server, member):
    sign_in_with_keyboard(page, live_server.url, member.email)
    entry = MemoryEntry.objects.filter(member=member).order_by("created_at").first()
    paths = [
        "/profile/memory/",
        "/profile/memory/?q=nothing-matches",
        f"/profile/memory/{entry.pk}/",
        f"/profile/memory/{entry.pk}/history/",
        f"/profile/memory/{entry.pk}/edit/",
        f"/profile/memory/{entry.pk}/forget/",
        f"/profile/memory/{entry.pk}/scope/",
        "/profile/memory/forget-category/",
        "/profile/memory/forget-category/?category=medical",
        "/profile/memory/clear/",
        "/profile/memory/consents/",
        "/profile/memory/consents/category:medical/withdraw/",
        "/profile/memory/consents/data_storage/withdraw/",
        "/profile/memory/controls/",
        "/profile/memory/opt-outs/?category=personalization&state=off",
        "/profile/memory/notices/",
        "/accounts/login/",
    ]
    axe = Axe()
    failures = {}
    for path in paths:
        page.goto(live_server.url + path)
        results = axe.run(page, options={"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]})
        if results.violations_count:
            failures[path] = results.generate_report()
    assert failures == {}
