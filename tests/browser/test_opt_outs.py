"""Opt-outs in a real browser: the member turns a kind of memory off on the memory page
with the keyboard, a surface's write is refused over real HTTP with the reason, and the
page says which scopes are off and why."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from consent.models import OptOutEvent
from iris_site.services import token_issue
from memory.models import MemoryEntry
from tests.browser.test_memory_page import sign_in_with_keyboard, tab_to
from tests.conftest import http_request
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SESSION_WRITE = {
    "scope": {"kind": "session", "session_id": "s-1"},
    "category": "preference",
    "subject": "coffee",
    "body": "I take my coffee black",
    "origin": "model-inferred",
}


def open_scope_table(page: Page) -> None:
    """The table of kinds of memory is a disclosure (issue 47): opened by keyboard."""
    summary = page.get_by_text("Which kinds of memory are on now, and why")
    tab_to(page, summary, limit=120)
    page.keyboard.press("Enter")
    expect(page.get_by_role("table")).to_be_visible()


def test_opting_out_on_the_page_refuses_a_surfaces_write_and_the_page_says_why(
    page: Page, live_server, screenshot
):
    # given a consenting member, signed in, and a surface with its own token
    member = consenting_member()
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    sign_in_with_keyboard(page, live_server.url, member.email)
    page.goto(f"{live_server.url}/profile/memory/controls/")
    section = page.get_by_role("region", name="What Iris may remember")
    expect(section).to_be_visible()
    open_scope_table(page)
    session_row = section.get_by_role("row", name="The conversation you are in")
    expect(session_row).to_contain_text("On: kept only for the moment")

    # when the member turns conversation history off, by keyboard: the page asks first
    link = page.get_by_role("link", name="Turn off “Conversation history”")
    tab_to(page, link, limit=120)
    page.keyboard.press("Enter")
    expect(page.locator("#consequence")).to_contain_text("Hidden from every assistant: none")
    tab_to(page, page.get_by_role("button", name="Turn off “Conversation history”"), limit=40)
    page.keyboard.press("Enter")

    # then the page confirms it
    expect(page.locator(".message-success")).to_contain_text(
        "Turned off “Conversation history”: nothing new is kept there"
    )
    assert OptOutEvent.objects.get(member=member).kind == "opt-out"

    # and the surface's write over real HTTP is refused with the reason, storing nothing
    refused = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/memories/",
        method="POST",
        token=token,
        body=SESSION_WRITE,
    )
    assert refused.status == 422
    assert refused.body["error"]["code"] == "scope-suppressed"
    assert "`conversation_history` opt-out" in refused.body["error"]["message"]
    assert not MemoryEntry.objects.filter(member=member).exists()

    # and the page shows the scope off, and why, in the member's words
    page.reload()
    section = page.get_by_role("region", name="What Iris may remember")
    open_scope_table(page)
    session_row = section.get_by_role("row", name="The conversation you are in")
    expect(session_row).to_contain_text("Off")
    expect(session_row).to_contain_text("because you turned off “Conversation history”")
    expect(section.get_by_role("row", name="Past conversations")).to_contain_text(
        "because you turned off “Conversation history”"
    )
    expect(section.get_by_role("row", name="Things about you")).to_contain_text(
        "On: kept over time"
    )
    expect(page.get_by_role("button", name="Turn “Conversation history” back on")).to_be_visible()
    screenshot("opted-out")
    results = Axe().run(page, options={"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]})
    assert results.violations_count == 0, results.generate_report()

    # and turning it back on lets the surface write again
    page.get_by_role("button", name="Turn “Conversation history” back on").click()
    expect(page.locator(".message-success")).to_contain_text("“Conversation history” is back on.")
    stored = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/memories/",
        method="POST",
        token=token,
        body=SESSION_WRITE,
    )
    assert stored.status == 201
