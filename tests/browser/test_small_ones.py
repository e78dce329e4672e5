"""Issue 47, item 8, in Chromium at 1280, 390 and 320 px, keyboard only, axe after every
action: "Pause until" has help text and its aria-describedby names an element that exists
and says it; the data pages' checkboxes are at least 24 by 24 px; the dashboard chart's
labels stay readable (≥ 11 px drawn) on a phone instead of shrinking with the chart."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.browser.test_csp import sign_in
from tests.browser.test_hierarchy_dashboard import URL as DASHBOARD
from tests.browser.test_hierarchy_dashboard import operator  # noqa: F401 (fixture)
from tests.browser.test_hierarchy_dashboard import sign_in as operator_sign_in
from tests.browser.test_memory_page import tab_to
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WCAG = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
WIDTHS = [1280, 390, 320]


def axe_clean(page: Page) -> None:
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, results.generate_report()


@pytest.mark.parametrize("width", WIDTHS)
def test_pause_until_is_described_by_help_that_exists(page: Page, live_server, width):
    member = consenting_member()
    entry = remember(member, subject="coffee", body="I take my coffee black").entry
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, member.email)
    page.goto(f"{live_server.url}/profile/memory/{entry.pk}/")
    field = page.get_by_label("Pause until (optional)")
    tab_to(page, field, limit=80)
    described = field.get_attribute("aria-describedby")
    assert described, "the field names no description"
    for ref in described.split():
        help_ = page.locator(f"#{ref}")
        expect(help_).to_have_count(1)
        expect(help_).to_be_visible()
    expect(page.locator(f"#{described.split()[0]}")).to_contain_text("nothing is erased")
    expect(field).to_have_accessible_description(
        "While paused, no assistant recalls this memory; nothing is erased. Leave the date "
        "empty to pause until you resume it."
    )
    axe_clean(page)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", ["/profile/memory/data/access/", "/profile/memory/data/delete/"])
def test_data_page_checkboxes_are_at_least_24_px(page: Page, live_server, width, path):
    member = consenting_member()
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, live_server.url, member.email)
    page.goto(f"{live_server.url}{path}")
    boxes = page.locator("main input[type=checkbox]")
    assert boxes.count() >= 1
    for i in range(boxes.count()):
        box = boxes.nth(i).bounding_box()
        assert box and box["width"] >= 24 and box["height"] >= 24, (path, i, box)
    # and by keyboard the first one still toggles
    first = boxes.first
    tab_to(page, first, limit=80)
    was = first.is_checked()
    page.keyboard.press("Space")
    assert first.is_checked() != was
    axe_clean(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_labels_are_readable_on_a_phone(
    page: Page,
    live_server,
    operator,  # noqa: F811
    width,
):
    page.set_viewport_size({"width": width, "height": 844})
    operator_sign_in(page, live_server.url, operator.email)
    assert page.url.endswith(DASHBOARD) or DASHBOARD in page.url
    chart = page.locator(".chart-svg").first
    expect(chart).to_be_visible()
    # the drawn size of its 12-unit labels: the SVG's scale times 12
    drawn = chart.evaluate(
        "svg => svg.getBoundingClientRect().width / svg.viewBox.baseVal.width * 12"
    )
    assert drawn >= 11, drawn
    # the scrolling region is reachable by keyboard (its labels can be scrolled into view)
    scroller = page.locator(".chart-scroll").first
    tab_to(page, scroller, limit=80)
    axe_clean(page)
    body_width = page.evaluate("document.documentElement.scrollWidth")
    assert body_width <= width, body_width
