"""The console's data-rights queue in a real browser: legal opens the queue (the deadline
states styled by the site's stylesheet, not blocked inline styles), extends a request
with a reason, and the member, signing in, sees the notice on "Your data". axe finds no
violation on any console page, and the browser reports no CSP violation."""

from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone
from playwright.sync_api import Page, expect

from datarights.models import DataRightsRequest
from tests.browser.test_csp import Watch, sign_in
from tests.datarights.factories import submit
from tests.iris_site.factories import MemberFactory, OperatorFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

REASON = "The export spans three archived mail systems."
WCAG = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}


def no_axe_violations(page: Page) -> None:
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, results.generate_report()


def colour_of(page: Page, selector: str) -> str:
    return page.locator(selector).first.evaluate("el => getComputedStyle(el).color")


def test_legal_extends_a_request_and_the_member_sees_the_notice(
    page: Page, live_server, screenshot
):
    # given: three requests (overdue, due soon, on time) and a legal operator
    now = timezone.now()
    submit(MemberFactory(email="late@example.test"), "access", now=now - timedelta(days=40))
    submit(MemberFactory(email="soon@example.test"), "export", now=now - timedelta(days=26))
    member = MemberFactory(email="ana@example.test")
    request = submit(member, "access")
    legal = OperatorFactory(role="legal", email="legal@example.test")
    watch = Watch(page)
    base = live_server.url

    # the console home lists what is overdue and due soon
    sign_in(page, base, legal.email)
    watch.visit(f"{base}/console/")
    due = page.get_by_role("region", name="Data-rights requests due")
    expect(due.locator(".deadline-overdue")).to_contain_text("overdue")
    expect(due.get_by_role("link", name="Access request of late@example.test")).to_be_visible()
    expect(due.get_by_role("link", name="Export request of soon@example.test")).to_be_visible()
    expect(due).not_to_contain_text("ana@example.test")

    # when legal opens the queue from the console's navigation
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Data rights").click()
    page.wait_for_load_state("networkidle")
    watch.check("queue")

    # then every request shows its member and its deadline state, styled by iris.css
    expect(page.get_by_role("heading", name="Data-rights requests")).to_be_visible()
    table = page.get_by_role("table", name="Requests")
    for email, css, label in (
        ("late@example.test", "deadline-overdue", "overdue"),
        ("soon@example.test", "deadline-soon", "due soon"),
        ("ana@example.test", "deadline-ok", "on time"),
    ):
        row = table.get_by_role("row", name=email)
        expect(row.locator(f".{css}")).to_be_visible()
        expect(row.locator(f".{css}")).to_contain_text(label)
    assert colour_of(page, ".deadline-overdue") == "rgb(138, 28, 28)"
    assert colour_of(page, ".deadline-soon") == "rgb(107, 66, 0)"
    assert colour_of(page, ".deadline-ok") == "rgb(30, 77, 30)"
    screenshot("queue")
    no_axe_violations(page)

    # the filter narrows the queue to the overdue one
    page.get_by_label("Deadline").select_option("overdue")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_load_state("networkidle")
    expect(page.get_by_role("row", name="late@example.test")).to_be_visible()
    expect(page.get_by_role("row", name="ana@example.test")).to_have_count(0)
    watch.check("filtered queue")
    no_axe_violations(page)

    # when legal opens ana's request and extends it with a reason
    watch.visit(f"{base}/console/data-rights/")
    page.get_by_role("link", name="ana@example.test").click()
    page.wait_for_load_state("networkidle")
    expect(page.get_by_role("heading", name="Access request of ana@example.test")).to_be_visible()
    watch.check("detail")
    no_axe_violations(page)
    page.get_by_label("Why more time is needed (the member is shown this)").fill(REASON)
    page.get_by_role("button", name="Extend the deadline").click()
    page.wait_for_load_state("networkidle")

    # then the console confirms it and offers no second extension
    expect(page.locator(".message-success")).to_contain_text("Deadline extended")
    expect(page.get_by_text("Already extended once")).to_be_visible()
    watch.check("after extending")
    screenshot("extended")
    no_axe_violations(page)
    request.refresh_from_db()
    assert request.extension_reason == REASON
    assert DataRightsRequest.objects.get(pk=request.pk).due_at == request.extended_deadline_at

    # when the member signs in and opens "Your data"
    page.context.clear_cookies()
    sign_in(page, base, member.email)
    watch.visit(f"{base}/profile/memory/data/")

    # then the notice names the new deadline and the reason
    notices = page.get_by_role("region", name="Notices about your requests")
    expect(notices).to_contain_text("Access request: we need more time.")
    expect(notices).to_contain_text(REASON)
    new_deadline = timezone.localtime(request.extended_deadline_at).strftime("%-d %B %Y")
    expect(notices).to_contain_text(f"New deadline: {new_deadline}")
    screenshot("member-notice")
    no_axe_violations(page)
    watch.check("member page")
