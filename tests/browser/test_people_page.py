"""People and topics in a real browser, keyboard only: a member opens one person, sees
what Iris holds and since when, forgets everything about them with one confirmation;
axe finds no WCAG 2.1 A/AA violation on each page, and the server holds what the page
said (the person retired, their memories erased, the others kept)."""

from datetime import UTC, datetime

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from memory.models import MemoryEntity, MemoryEntry
from tests.browser.stepup import confirm_its_you
from tests.browser.test_member_controls import assert_accessible
from tests.browser.test_memory_page import sign_in_with_keyboard, tab_to
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

NAME = "Samwise Example"


def test_keyboard_only_forget_everything_about_one_person(page: Page, live_server, screenshot):
    # given a member with two memories about Sam and one about themself
    member = consenting_member()
    about_sam = [
        remember(
            member,
            category="relationship",
            subject=subject,
            body=body,
            multi_actor={"actor_name": NAME, "relationship_note": "my sister"},
        ).entry
        for subject, body in (
            ("job", "Sam works at the bakery"),
            ("birthday", "Sam's birthday is in May"),
        )
    ]
    kept = remember(member, body="I take my coffee black", subject="coffee").entry
    sign_in_with_keyboard(page, live_server.url, member.email)

    # when the member opens People and topics, then Sam, by keyboard
    tab_to(page, page.get_by_role("link", name="People and topics"), limit=40)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="People and topics", level=1)).to_be_visible()
    assert_accessible(page)
    tab_to(page, page.get_by_role("link", name=NAME), limit=40)
    page.keyboard.press("Enter")
    # then the person's page shows what Iris holds and since when the relationship holds
    expect(page.get_by_role("heading", name=NAME, level=1)).to_be_visible()
    expect(page.get_by_role("link", name="Sam works at the bakery")).to_be_visible()
    expect(page.get_by_role("link", name="Sam's birthday is in May")).to_be_visible()
    expect(page.get_by_text(f"Your sister, {NAME}").first).to_be_visible()
    screenshot("person")
    assert_accessible(page)

    # when they ask to forget everything about Sam, and confirm
    tab_to(page, page.get_by_role("link", name="Forget everything about this person"), limit=60)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=f"Forget everything about {NAME}?")).to_be_visible()
    expect(page.get_by_text("2 memories and")).to_be_visible()
    assert_accessible(page)
    tab_to(page, page.get_by_role("button", name="Yes, forget everything"), limit=40)
    page.keyboard.press("Enter")
    confirm_its_you(page)

    # then focus lands on the status, which says what was forgotten, not who
    status = page.get_by_role("status")
    expect(status).to_contain_text("Forgot everything about this person: 2 memories erased")
    expect(status).to_be_focused()
    expect(page.get_by_text(NAME)).to_have_count(0)
    screenshot("forgotten")
    assert_accessible(page)
    # and the server holds it: Sam retired without a name, both memories erased, coffee kept
    person = MemoryEntity.objects.get(member=member, kind="person")
    assert person.state == "retired" and person.label == ""
    for entry in about_sam:
        entry.refresh_from_db()
        assert entry.lifecycle == "tombstoned" and "Sam" not in entry.body
    assert MemoryEntry.objects.get(pk=kept.pk).lifecycle == "active"


def test_the_person_page_says_when_it_was_true_and_when_iris_learned_it(
    page: Page, live_server, screenshot
):
    # given Sam, told of in January, and in June "we broke up in March"
    year = timezone.now().year - 1
    january, june = datetime(year, 1, 10, tzinfo=UTC), datetime(year, 6, 3, tzinfo=UTC)
    member = consenting_member()
    for now, note, body in (
        (january, "my girlfriend", "Sam and I go climbing"),
        (june, "my girlfriend, we broke up in March", "Sam and I still go climbing"),
    ):
        remember(
            member,
            category="relationship",
            subject="climbing",
            body=body,
            multi_actor={"actor_name": NAME, "relationship_note": note},
            now=now,
        )
    sign_in_with_keyboard(page, live_server.url, member.email)

    # when the member opens Sam's page by keyboard
    tab_to(page, page.get_by_role("link", name="People and topics"), limit=40)
    page.keyboard.press("Enter")
    tab_to(page, page.get_by_role("link", name=NAME), limit=40)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=NAME, level=1)).to_be_visible()

    # then the period reads as the member said it, the month of its end and all, and says
    # when Iris learned of that end, which was later
    line = page.get_by_role("listitem").filter(has_text=f"Your girlfriend, {NAME}")
    expect(line).to_contain_text(f"from 10 January {year} until March {year}")
    expect(line).to_contain_text(f"Iris learned it ended 3 June {year}")
    # a period true from when Iris heard it says one time only
    about = page.get_by_role("listitem").filter(has_text="about climbing")
    expect(about).to_contain_text(f"from 10 January {year}, still true")
    expect(about).not_to_contain_text("Iris learned")
    screenshot("two-clocks")
    assert_accessible(page)
