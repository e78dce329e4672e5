"""Retention reviews and re-confirmation in a real browser: an admin decides review-due
memory on the console (keep one; delete another after the confirmation page), on
metadata only; a member answers "Is this still true?" on their memory page (confirm),
and the freshness job's request is closed. axe finds no violation on any of these pages,
and the browser reports no CSP violation."""

import re
import uuid
from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone
from playwright.sync_api import Page, expect

from hierarchy.freshness_job import freshness_confidence_run
from hierarchy.models import ReconfirmRequest
from memory.enums import Lifecycle
from memory.models import MemoryEntry, RetentionReview
from memory.sweeps.retention import retention_sweep
from tests.browser.test_csp import Watch, sign_in
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WCAG = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
SECRET = "osprey-violet"


def no_axe_violations(page: Page) -> None:
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, results.generate_report()


def copilot_note(member, body):
    return remember(
        member,
        category="other",
        subject="ticket",
        body=body,
        origin="operator-copilot",
        scope={"kind": "operator-copilot", "operator_id": str(uuid.uuid4())},
    ).entry


def test_an_admin_decides_review_due_memory_on_the_console(page: Page, live_server, screenshot):
    # given: two operator-copilot notes past their 14 days, flagged by the sweep
    kept_member = consenting_member()
    kept_member.email = "keep@example.test"
    kept_member.save()
    gone_member = consenting_member()
    gone_member.email = "gone@example.test"
    gone_member.save()
    kept = copilot_note(kept_member, f"Asked about {SECRET} exports.")
    gone = copilot_note(gone_member, f"Mentioned the {SECRET} ticket again.")
    retention_sweep(now=timezone.now() + timedelta(days=15))
    admin = OperatorFactory(role="admin", email="admin@example.test")
    watch = Watch(page)
    base = live_server.url

    # when the admin opens the reviews
    sign_in(page, base, admin.email)
    watch.visit(f"{base}/console/reviews/")

    # then both are listed on metadata only, never their text
    expect(page.get_by_role("heading", name="Retention reviews")).to_be_visible()
    table = page.get_by_role("table", name="Due for review")
    expect(table.get_by_role("row", name="keep@example.test")).to_be_visible()
    expect(table.get_by_role("row", name="gone@example.test")).to_contain_text("Operator Copilot")
    assert SECRET not in page.content()
    screenshot("reviews")
    no_axe_violations(page)

    # when the admin keeps the first
    table.get_by_role("row", name="keep@example.test").get_by_role(
        "button", name=re.compile(r"^Keep the")
    ).click()
    page.wait_for_load_state("networkidle")
    expect(page.locator(".message-success")).to_contain_text("Kept")
    expect(page.get_by_role("row", name="keep@example.test")).to_have_count(0)
    watch.check("after keeping")

    # and deletes the second, through the confirmation page
    page.get_by_role("row", name="gone@example.test").get_by_role("link", name="Delete").click()
    page.wait_for_load_state("networkidle")
    expect(page.get_by_role("heading", name="Delete this memory?")).to_be_visible()
    assert SECRET not in page.content()
    watch.check("confirmation")
    no_axe_violations(page)
    page.get_by_label("I understand the memory is erased for good").check()
    page.get_by_role("button", name="Delete the memory").click()
    page.wait_for_load_state("networkidle")

    # then the console confirms it and the memory is erased
    expect(page.locator(".message-success")).to_contain_text("Deleted")
    expect(page.get_by_text("Nothing is due for review.")).to_be_visible()
    watch.check("after deleting")
    no_axe_violations(page)
    screenshot("decided")
    assert RetentionReview.objects.get(entry=kept).state == "kept"
    assert RetentionReview.objects.get(entry=gone).state == "deleted"
    gone.refresh_from_db()
    assert gone.lifecycle == Lifecycle.TOMBSTONED and SECRET not in gone.body
    assert SECRET in MemoryEntry.objects.get(pk=kept.pk).body

    # and the re-confirmation counts page is reachable and clean
    page.get_by_role("link", name="Re-confirmation requests").click()
    page.wait_for_load_state("networkidle")
    expect(page.get_by_role("table", name="Requests by state")).to_be_visible()
    watch.check("reconfirm counts")
    no_axe_violations(page)


def test_a_member_answers_is_this_still_true_on_the_memory_page(
    page: Page, live_server, screenshot
):
    # given: an old, low-confidence inference the freshness job queued
    member = consenting_member()
    entry = remember(
        member, subject="calls", body="Prefers calls in the evening", origin="model-inferred"
    ).entry
    MemoryEntry.objects.filter(pk=entry.pk).update(updated_at=timezone.now() - timedelta(days=90))
    freshness_confidence_run()
    request = ReconfirmRequest.objects.get(entry_id=entry.pk)
    watch = Watch(page)
    base = live_server.url

    # when the member signs in, the memory page says there is a question
    sign_in(page, base, member.email)
    watch.visit(f"{base}/profile/memory/")
    page.get_by_role("link", name="question").first.click()
    page.wait_for_load_state("networkidle")

    # then the notice asks "Is this still true?" with confirm / edit / forget
    question = page.get_by_role("listitem").filter(has_text="Is this still true?")
    expect(question).to_contain_text("Prefers calls in the evening")
    expect(question.get_by_role("link", name="Edit it")).to_be_visible()
    expect(question.get_by_role("button", name="No, forget it")).to_be_visible()
    watch.check("notices")
    screenshot("question")
    no_axe_violations(page)

    # when the member confirms
    question.get_by_role("button", name="Yes, it is still true").click()
    page.wait_for_load_state("networkidle")

    # then the page says so, and the memory is the member's confirmed word, fresh again
    expect(page.locator(".message-success")).to_contain_text("Confirmed")
    expect(page.get_by_text("Answered: confirmed.")).to_be_visible()
    watch.check("answered")
    no_axe_violations(page)
    entry.refresh_from_db()
    assert (entry.origin, entry.confidence) == ("user-confirmed", 0.9)
    assert timezone.now() - entry.updated_at < timedelta(minutes=5)
    request.refresh_from_db()
    assert request.state == "resolved"
