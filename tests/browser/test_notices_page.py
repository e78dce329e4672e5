"""The questions page with an assistant's correction waiting (issue 41, item 4): it says
where accepting keeps the new version, the member accepts by keyboard, and the message
and the answered question say it went under "About you"; axe-clean throughout."""

import re

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


# --- Issue 47, item 4: Iris tells the member when it decided for them ----------------------

NOVELS = "Likes reading detective novels on the train"


def axe_clean(page: Page) -> None:
    results = Axe().run(page, options=AXE_RULES)
    assert results.violations_count == 0, results.generate_report()


@pytest.fixture
def promoted_member():
    from memory.models import MemoryNotice
    from tests.iris_site.factories import ServiceClientFactory
    from tests.memory.test_one_fact_one_memory import surface_write

    member = consenting_member()
    assistant = ServiceClientFactory(consumer="assistant")
    for session in ("s-1", "s-2", "s-3"):  # the third occurrence goes into "About you"
        surface_write(member, assistant, NOVELS, session=session)
    assert MemoryNotice.objects.get(member=member).kind == "promotion"
    return member


@pytest.mark.parametrize("width", [1280, 390, 320])
def test_a_promotion_is_told_and_kept_by_keyboard(page: Page, live_server, promoted_member, width):
    from iris_site.models import AuditEvent

    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, promoted_member.email)
    page.goto(f"{live_server.url}/profile/memory/notices/")
    # the notice says what Iris did on its own, and what the member can do about it
    expect(
        page.get_by_role("heading", name="Iris added this to “About you” on its own")
    ).to_be_visible()
    expect(page.get_by_text(NOVELS)).to_be_visible()
    expect(page.get_by_role("link", name="Edit it")).to_be_visible()
    expect(page.get_by_role("button", name="Forget it")).to_be_visible()
    axe_clean(page)
    # when the member keeps it, by keyboard
    tab_to(page, page.get_by_role("button", name="Keep it"), limit=80)
    page.keyboard.press("Enter")
    announced(page, "Kept: it stays in “About you”, as your word.")
    expect(page.get_by_text("Answered: kept.")).to_be_visible()
    expect(page.get_by_role("button", name="Keep it")).to_have_count(0)
    axe_clean(page)
    # then the answer is on the record, ids and the choice only
    [event] = AuditEvent.objects.filter(action="memory.promotion.answered")
    assert event.payload["answer"] == "kept" and "novels" not in str(event.payload).lower()


@pytest.mark.parametrize("width", [1280, 320])
def test_a_promotion_is_forgotten_by_keyboard(page: Page, live_server, promoted_member, width):
    from tests.browser.stepup import confirm_its_you

    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, promoted_member.email)
    page.goto(f"{live_server.url}/profile/memory/notices/")
    tab_to(page, page.get_by_role("button", name="Forget it"), limit=80)
    page.keyboard.press("Enter")
    confirm_its_you(page)
    announced(page, "Forgot 1 memory: the one Iris added to “About you”.")
    expect(page.get_by_text(NOVELS)).to_have_count(0)
    axe_clean(page)
    live = [e for e in MemoryEntry.objects.filter(member=promoted_member) if e.body == NOVELS]
    assert all(e.lifecycle != Lifecycle.ACTIVE for e in live)


def test_a_promotion_is_edited_from_its_notice(page: Page, live_server, promoted_member):
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, live_server.url, promoted_member.email)
    page.goto(f"{live_server.url}/profile/memory/notices/")
    tab_to(page, page.get_by_role("link", name="Edit it"), limit=80)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/edit/?$"))
    axe_clean(page)
