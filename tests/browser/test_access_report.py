"""Issue 47, item 3: the access report, asked for by keyboard at 1280, 390 and 320 px,
updates by itself when it is ready (no reload; the status region announces it), opens
expanded, and names every operator event in words (who, what kind of look, when, why),
never an event code. Axe after every action."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from datarights.models import DataRightsRequest
from datarights.processing import datarights_process
from tests.browser.test_csp import sign_in
from tests.browser.test_memory_page import tab_to
from tests.inspection.factories import granted
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WCAG = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
# What an event code looks like: `app.entity.verb`, or a legacy `iris.admin_…` name.
CODE = re.compile(r"\b[a-z_]+\.[a-z_]+\.[a-z_.]+\b")


def axe_clean(page: Page) -> None:
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, results.generate_report()


@pytest.mark.parametrize("width", [1280, 390, 320])
def test_the_access_report_arrives_by_itself_expanded_and_in_words(page: Page, live_server, width):
    # given a member whose memory an operator looked at, in a granted routine review
    member = consenting_member()
    remember(member, subject="coffee", body="I take my coffee with cardamom")
    granted(OperatorFactory(role="support"), member)
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, member.email)
    page.goto(f"{live_server.url}/profile/memory/data/access/")
    axe_clean(page)

    # when the member asks for a report with what operators did, by keyboard only
    tab_to(page, page.get_by_label("Include what operators did with my memory"), limit=80)
    page.keyboard.press("Space")
    expect(page.get_by_label("Include what operators did with my memory")).to_be_checked()
    axe_clean(page)
    tab_to(page, page.get_by_role("button", name="Request a report"), limit=10)
    page.keyboard.press("Enter")
    expect(page.locator(".request-status")).to_have_count(1)
    request = DataRightsRequest.objects.get(member=member, kind="access")
    status = page.locator(f"#status-{request.pk}")
    expect(status).to_contain_text("this updates by itself")
    expect(status.get_by_role("link", name="check again")).to_be_visible()
    axe_clean(page)
    page.evaluate("window.__notReloaded = true")

    # and the worker makes the report
    datarights_process(request_id=request.pk)

    # then it appears by itself, announced in the status region, without a reload
    report = page.locator(f"#report-{request.pk}")
    expect(report.get_by_role("table", name=re.compile("Who looked"))).to_be_visible(timeout=15_000)
    expect(page.get_by_role("status").filter(has_text="your report is shown below")).to_have_count(
        1
    )
    assert page.evaluate("window.__notReloaded === true")
    axe_clean(page)

    # and it is open, and says who, what kind of look, when and why, in words
    expect(page.locator("details.request").first).to_have_attribute("open", "")
    looks = report.locator("table.operator-actions")
    expect(looks).to_contain_text("an Iris operator (support)")
    expect(looks).to_contain_text("was allowed to look")
    expect(looks).to_contain_text("for a routine review")
    assert not CODE.search(looks.inner_text()), looks.inner_text()
    assert "inspection." not in report.inner_text()

    # and on a fresh visit the newest report opens expanded too
    page.reload()
    expect(page.locator("details.request").first).to_have_attribute("open", "")
    expect(page.locator(f"#report-{request.pk}")).to_contain_text("an Iris operator (support)")
    width_now = page.evaluate("document.documentElement.scrollWidth")
    assert width_now <= width, width_now
    axe_clean(page)
