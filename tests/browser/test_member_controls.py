"""The member's controls in a real browser, keyboard only: turn on "Stop using my
memories", pause Tara, pick two memories and forget them with one confirmation; axe finds
no WCAG 2.1 A/AA violation after each action, and the server holds what the page said."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from iris_site.services import token_issue
from memory.controls import member_memory_settings_get
from memory.models import MemoryEntry
from tests.browser.stepup import confirm_its_you
from tests.browser.test_memory_page import sign_in_with_keyboard, tab_to
from tests.conftest import http_request
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WCAG = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}


def assert_accessible(page: Page) -> None:
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, results.generate_report()


def test_keyboard_only_stop_using_pause_tara_and_forget_two_at_once(
    page: Page, live_server, screenshot
):
    # given a member with three memories, signed in by keyboard
    member = consenting_member()
    first = remember(member, body="Likes the kestrel-lantern café", subject="cafe").entry
    second = remember(member, body="Works on the night shift", subject="shift", category="work")
    second = second.entry
    kept = remember(member, body="Keeps a tabby cat", subject="cat").entry
    sign_in_with_keyboard(page, live_server.url, member.email)
    # the switches are on their own page, linked from My memory's header (issue 47)
    tab_to(page, page.get_by_role("main").get_by_role("link", name="What Iris may do"), limit=40)
    page.keyboard.press("Enter")
    expect(page.get_by_role("region", name="How Iris uses your memory")).to_be_visible()
    assert_accessible(page)

    # when the member turns on "Stop using my memories"
    tab_to(page, page.get_by_role("button", name="Stop using my memories"), limit=250)
    page.keyboard.press("Enter")
    # then the page says so, and the server withholds every memory from recall
    expect(page.get_by_role("status")).to_contain_text("Iris has stopped using your memories")
    expect(page.get_by_role("button", name="Start using my memories again")).to_be_visible()
    assert member_memory_settings_get(member_id=member.pk).stop_using
    _, assistant = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    recall = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/recall/",
        method="POST",
        token=assistant,
        body={"surface": "assistant", "scope": {"kind": "profile"}, "query": "cat"},
    )
    assert recall.status == 200 and recall.body["entries"] == []
    assert recall.body["audit_envelope"]["suppression_counts"] == {"member-stopped-use": 3}
    screenshot("stopped-using")
    assert_accessible(page)

    # when the member pauses Tara
    tara = page.get_by_role("checkbox", name="Pause Tara")
    tab_to(page, tara, limit=250)
    page.keyboard.press("Space")
    expect(tara).to_be_checked()
    tab_to(page, page.get_by_role("button", name="Save paused assistants"), limit=40)
    page.keyboard.press("Enter")
    # then the page says so, and Tara's writes are refused by the server
    expect(page.get_by_role("status")).to_contain_text("Paused: Tara.")
    expect(page.get_by_role("checkbox", name="Pause Tara")).to_be_checked()
    assert member_memory_settings_get(member_id=member.pk).paused_consumers == {"tara"}
    _, tara_token = token_issue(owner=ServiceClientFactory(consumer="tara"))
    refused = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/sessions/s-1/turns/",
        method="POST",
        token=tara_token,
        body={"speaker": "member", "text": "Hello"},
    )
    assert refused.status == 422 and refused.body["error"]["code"] == "surface-paused"
    screenshot("paused-tara")
    assert_accessible(page)

    # when the member picks two memories and forgets them, with one confirmation
    page.goto(f"{live_server.url}/profile/memory/")
    for body in ("Likes the kestrel-lantern café", "Works on the night shift"):
        box = page.get_by_role("checkbox", name=f"Select to forget: {body}")
        tab_to(page, box, limit=80)
        page.keyboard.press("Space")
        expect(box).to_be_checked()
    tab_to(page, page.get_by_role("button", name="Forget selected"), limit=80)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Forget 2 memories?")).to_be_visible()
    expect(page.get_by_text("Likes the kestrel-lantern café")).to_be_visible()
    expect(page.get_by_text("Works on the night shift")).to_be_visible()
    expect(page.get_by_text("Keeps a tabby cat")).to_have_count(0)
    screenshot("forget-selected-confirm")
    assert_accessible(page)
    tab_to(page, page.get_by_role("button", name="Yes, forget 2 memories"), limit=40)
    page.keyboard.press("Enter")
    confirm_its_you(page)
    # then the confirmation says what was forgotten, by category, not the text
    status = page.get_by_role("status")
    expect(status).to_contain_text("Forgot 2 memories:")
    expect(status).to_contain_text("1 about work")
    expect(status).not_to_contain_text("kestrel")
    expect(page.get_by_role("link", name="Keeps a tabby cat")).to_be_visible()
    expect(page.get_by_text("Likes the kestrel-lantern café")).to_have_count(0)
    for entry in (first, second):
        entry.refresh_from_db()
        assert entry.lifecycle == "tombstoned"
    assert MemoryEntry.objects.get(pk=kept.pk).lifecycle == "active"
    screenshot("forgot-selected")
    assert_accessible(page)
