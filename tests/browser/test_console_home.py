"""The operator home and the dashboard in a real browser: signing in lands support and
legal on "Waiting for you", which lists what waits for each with links that open its
page; the dashboard at each time range shows its charts with axes and table fallbacks.
axe finds no violation and the browser reports no CSP violation on any of them."""

from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone
from playwright.sync_api import Page, expect

from inspection.enums import InspectionState
from tests.browser.test_csp import Watch
from tests.datarights.factories import submit
from tests.hierarchy.stm_factories import member_with, write
from tests.inspection.factories import member_with_memory, open_request, route
from tests.iris_site.factories import PASSWORD, MemberFactory, OperatorFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WCAG = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
SECRET = "prefers morning walks by the canal"


def no_axe_violations(page: Page) -> None:
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, results.generate_report()


def sign_in_lands_home(page: Page, watch: Watch, base: str, email: str) -> None:
    """Sign in from the plain login page (no `next`): the operator lands on the home."""
    page.goto(f"{base}/accounts/login/")
    page.locator("#id_username").fill(email)
    page.locator("#id_password").fill(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Waiting for you", level=1)).to_be_visible()
    assert page.url == f"{base}/console/"
    page.wait_for_load_state("networkidle")
    watch.check("home")


def test_support_lands_on_what_waits_and_opens_it(page: Page, live_server, screenshot):
    # given support's own routine request about a member
    support = OperatorFactory(role="support", email="support@example.test")
    member, _ = member_with_memory()
    mine = open_request(support, member)
    watch = Watch(page)
    base = live_server.url
    # when support signs in
    sign_in_lands_home(page, watch, base, support.email)
    # then the request is listed by the member's email, in its section
    section = page.get_by_role("region", name="Inspections")
    expect(section.get_by_role("heading", name="Awaiting your decision")).to_be_visible()
    expect(page.get_by_role("region", name="Data-rights requests due")).to_have_count(0)
    expect(page.get_by_text("coffee")).to_have_count(0)
    expect(page.get_by_role("link", name="Waiting for you")).to_have_attribute(
        "aria-current", "page"
    )
    screenshot("support-home")
    no_axe_violations(page)
    # and the link opens the request's page
    section.get_by_role("link", name=member.email).click()
    page.wait_for_load_state("networkidle")
    assert page.url == f"{base}/console/inspections/{mine.pk}/"
    watch.check("inspection detail")
    # and the nav reaches the dashboard
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Dashboard").click()
    expect(page.get_by_role("heading", name="Memory hierarchy dashboard")).to_be_visible()
    watch.check("dashboard")


def test_legal_sees_a_dsar_to_approve_and_requests_by_deadline(page: Page, live_server, screenshot):
    # given a DSAR request awaiting a second legal approver, and data-rights requests
    requester = OperatorFactory(role="legal")
    legal = OperatorFactory(role="legal", email="legal@example.test")
    member, _ = member_with_memory("category:medical")
    dsar = route(
        open_request(requester, member, include_sensitive=True),
        requester,
        InspectionState.DSAR_FULFILLMENT,
    )
    now = timezone.now()
    late = submit(MemberFactory(email="late@example.test"), "access", now=now - timedelta(days=40))
    submit(MemberFactory(email="soon@example.test"), "export", now=now - timedelta(days=26))
    watch = Watch(page)
    base = live_server.url
    # when legal signs in
    sign_in_lands_home(page, watch, base, legal.email)
    # then both parts list their items
    inspections = page.get_by_role("region", name="Inspections")
    expect(inspections).to_contain_text("you are the second approver")
    datarights = page.get_by_role("region", name="Data-rights requests due")
    expect(datarights.get_by_role("link", name="late@example.test")).to_be_visible()
    expect(datarights.get_by_role("link", name="soon@example.test")).to_be_visible()
    expect(datarights.locator(".deadline-overdue")).to_have_count(1)
    screenshot("legal-home")
    no_axe_violations(page)
    # and each link opens its page
    datarights.get_by_role("link", name="late@example.test").click()
    page.wait_for_load_state("networkidle")
    assert page.url == f"{base}/console/data-rights/{late.pk}/"
    watch.check("data-rights detail")
    page.go_back()
    page.get_by_role("region", name="Inspections").get_by_role("link", name=member.email).click()
    page.wait_for_load_state("networkidle")
    assert page.url == f"{base}/console/inspections/{dsar.pk}/"
    watch.check("inspection detail")


def test_the_dashboard_at_three_time_ranges(page: Page, live_server, screenshot):
    # given some activity
    member = member_with()
    write(member, content=SECRET)
    admin = OperatorFactory(role="admin", email="admin@example.test")
    watch = Watch(page)
    base = live_server.url
    sign_in_lands_home(page, watch, base, admin.email)
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Dashboard").click()
    page.wait_for_load_state("networkidle")
    watch.check("dashboard")
    for label, key, rows in (
        ("Last 24 hours", "24h", 24),
        ("Last 7 days", "7d", 7),
        ("Last 30 days", "30d", 30),
    ):
        # when the operator picks a range with the form
        page.get_by_label("Time range").select_option(label=label)
        page.get_by_role("button", name="Show").click()
        page.wait_for_load_state("networkidle")
        # then every chart has its range's buckets, axes and a table fallback
        assert page.url.endswith(f"/console/dashboard/?range={key}")
        expect(page.get_by_label("Time range")).to_have_value(key)
        writes = page.locator('[data-part="trend-writes"]')
        expect(writes.get_by_role("img", name="Writes by tier per")).to_be_visible()
        expect(writes.get_by_test_id("trend-writes-total")).to_have_text("1")
        table = writes.get_by_test_id("chart-writes-table")
        expect(table.locator("tbody tr")).to_have_count(rows)
        expect(page.get_by_text(SECRET)).to_have_count(0)
        expect(page.get_by_test_id("tasks-ready")).to_be_visible()
        watch.check(f"dashboard {key}")
        screenshot(f"dashboard-{key}")
        no_axe_violations(page)
