"""The questions page with an assistant's correction waiting (issue 41, item 4): it says
where accepting keeps the new version, the member accepts by keyboard, and the message
and the answered question say it went under "About you"; axe-clean throughout."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from memory.enums import Lifecycle, ScopeKind
from memory.models import MemoryEntry
from tests.browser.test_member_layout import AXE_RULES, announced, sign_in
from tests.browser.test_memory_page import tab_to
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

OAT = "Takes coffee with oat milk"


@pytest.fixture
def member():
    member = consenting_member()
    remember(member, subject="coffee", body="I take my coffee black")
    # The assistant's inference, from conversation s-1, against the member's own word.
    remember(member, subject="coffee", body=OAT, origin="model-inferred", session_id="s-1")
    return member


@pytest.mark.parametrize("width", [1280, 320])
def test_accepting_a_correction_says_where_it_went(page: Page, live_server, member, width):
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, member.email)
    page.goto(f"{live_server.url}/profile/memory/notices/")
    expect(page.get_by_text("replaces the old one under “About you”")).to_be_visible()
    results = Axe().run(page, options=AXE_RULES)
    assert results.violations_count == 0, results.generate_report()
    # when the member accepts, by keyboard
    tab_to(page, page.get_by_role("button", name="Update my memory"), limit=80)
    page.keyboard.press("Enter")
    # then the message and the answered question say where it went
    announced(page, "as your own word, kept under “About you”.")
    expect(page.get_by_text("The new version is kept under “About you”.")).to_be_visible()
    # The body is sealed: found among the member's entries as read, not by a lookup.
    [oat] = [e for e in MemoryEntry.objects.filter(member=member) if e.body == OAT]
    assert (oat.scope_kind, oat.lifecycle) == (ScopeKind.PROFILE, Lifecycle.ACTIVE)
