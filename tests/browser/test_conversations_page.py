"""Your conversations in a real browser, keyboard only (issue 41): a member reaches the
page from their memory, sees each conversation by id, turn count and times (never what
was said), forgets one with one confirmation that says what goes and what stays, and
focus lands on the status that says what was erased; axe finds no WCAG 2.1 A/AA
violation on each page, and the server holds what the page said."""

import pytest
from playwright.sync_api import Page, expect

from hierarchy.models_stm import ShortTermMemory
from memory.enums import Lifecycle
from memory.models import ConversationTurn, MemoryEntry
from tests.browser.stepup import confirm_its_you
from tests.browser.test_member_controls import assert_accessible
from tests.browser.test_member_layout import announced
from tests.browser.test_memory_page import sign_in_with_keyboard, tab_to
from tests.memory.factories import consenting_member
from tests.memory.test_forget_conversation import GONE, KEPT, history
from tests.trust.test_forget_completeness import new_marker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.mark.parametrize("width", [1280, 320])
def test_keyboard_only_forget_one_conversation(page: Page, live_server, screenshot, width):
    # given a member with two conversations, one of them to forget
    page.set_viewport_size({"width": width, "height": 844})
    member = consenting_member()
    marker, other = new_marker(), new_marker()
    entries = history(member, marker, other)
    sign_in_with_keyboard(page, live_server.url, member.email)

    # when the member opens Your conversations by keyboard
    tab_to(page, page.get_by_role("link", name="Your conversations"), limit=40)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Your conversations", level=1)).to_be_visible()
    # then each conversation shows its id, turn count and times, never what was said
    expect(page.get_by_text(GONE, exact=True)).to_be_visible()
    expect(page.get_by_text(KEPT, exact=True)).to_be_visible()
    expect(page.get_by_text("2 turns, at")).to_be_visible()
    expect(page.get_by_text(marker)).to_have_count(0)
    screenshot(f"conversations-{width}")
    assert_accessible(page)

    # when they ask to forget one, and confirm, by keyboard
    forget = page.get_by_role("link", name=f"Forget this conversation: {GONE}")
    tab_to(page, forget, limit=40)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Forget this conversation?", level=1)).to_be_visible()
    expect(page.get_by_text("Its 2 turns")).to_be_visible()
    expect(page.get_by_text("The 3 memories that came only from it")).to_be_visible()
    expect(page.get_by_text("nothing but ids, times and keyed digests")).to_be_visible()
    assert_accessible(page)
    tab_to(page, page.get_by_role("button", name="Yes, forget this conversation"), limit=40)
    page.keyboard.press("Enter")
    confirm_its_you(page)

    # then focus lands on the status, which says what was erased (axe-clean, it fits)
    expect(page.get_by_role("heading", name="Your conversations", level=1)).to_be_visible()
    announced(
        page,
        "Forgot this conversation: 2 turns, 1 short-term note and 3 memories that came "
        "only from it erased.",
    )
    expect(page.get_by_role("status").filter(has_text="Forgot this conversation")).to_be_focused()
    expect(page.get_by_role("link", name=f"Forget this conversation: {GONE}")).to_have_count(0)
    expect(page.get_by_role("link", name=f"Forget this conversation: {KEPT}")).to_be_visible()
    screenshot(f"forgotten-{width}")

    # and the server holds what the page said
    assert not ConversationTurn.objects.filter(member=member, session_id=GONE).exists()
    assert not ShortTermMemory.objects.filter(member=member, scope_id=GONE).exists()
    assert ConversationTurn.objects.filter(member=member, session_id=KEPT).exists()
    for entry in entries["gone"]:
        assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == Lifecycle.TOMBSTONED
    for entry in entries["kept"]:
        assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == Lifecycle.ACTIVE
