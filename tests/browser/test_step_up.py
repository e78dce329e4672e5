"""Issue 42, item 5, in a real browser: the "Confirm it's you" step before forgetting,
by keyboard only, on a desktop and a phone width. The member asks to forget a memory,
lands on the step with the password field focused and named, gets a wrong password
announced as an alert tied to the field, and with the right one the memory they chose
is forgotten (nothing to pick again). Axe finds nothing on the step."""

import pytest
from playwright.sync_api import Page, expect

from memory.models import MemoryEntry
from tests.browser.test_member_controls import assert_accessible
from tests.browser.test_memory_page import sign_in_with_keyboard, tab_to
from tests.iris_site.factories import PASSWORD
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.mark.parametrize("width", [1280, 320])
def test_keyboard_only_confirm_its_you_before_forgetting(
    page: Page, live_server, screenshot, width
):
    # given a member with two memories, signed in by keyboard
    page.set_viewport_size({"width": width, "height": 844})
    member = consenting_member()
    gone = remember(member, body="I am learning Portuguese", subject="language").entry
    kept = remember(member, body="I take my coffee black", subject="coffee").entry
    sign_in_with_keyboard(page, live_server.url, member.email)

    # when they ask to forget one, by keyboard
    tab_to(page, page.get_by_role("link", name="I am learning Portuguese"), limit=80)
    page.keyboard.press("Enter")
    tab_to(page, page.get_by_role("link", name="Forget", exact=True), limit=80)
    page.keyboard.press("Enter")
    tab_to(page, page.get_by_role("button", name="Yes, forget it"), limit=80)
    page.keyboard.press("Enter")

    # then Iris asks them to confirm it is them, the password field focused and named
    expect(page.get_by_role("heading", name="Confirm it's you", level=1)).to_be_visible()
    field = page.get_by_label("Your password")
    expect(field).to_be_focused()
    expect(field).to_have_attribute("autocomplete", "current-password")
    expect(page.get_by_text("You asked to forget this memory")).to_be_visible()
    screenshot(f"confirm-{width}")
    assert_accessible(page)
    assert MemoryEntry.objects.get(pk=gone.pk).lifecycle == "active"

    # when they type a wrong password and press Enter
    page.keyboard.type("not my password")
    page.keyboard.press("Enter")
    # then the mistake is an alert linked to the field, which has focus again
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("That password is not right.")
    field = page.get_by_label("Your password")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_be_focused()
    assert_accessible(page)
    assert MemoryEntry.objects.get(pk=gone.pk).lifecycle == "active"

    # when they type the right one
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    # then the memory they chose is forgotten, said in the focused status; the other stays
    status = page.locator("#status-messages")
    expect(status).to_contain_text("Forgot 1 memory")
    expect(status).to_be_focused()
    expect(page.get_by_role("link", name="I am learning Portuguese")).to_have_count(0)
    screenshot(f"forgotten-{width}")
    assert MemoryEntry.objects.get(pk=gone.pk).lifecycle == "tombstoned"
    assert MemoryEntry.objects.get(pk=kept.pk).lifecycle == "active"
