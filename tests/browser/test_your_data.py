"""'Your data' in Chromium at phone width: the three pages (get a copy, see what Iris
holds and who looked, erase) fit 390 px and pass axe; an export's status updates by
itself (htmx polls a small fragment, no reload) until the download link appears; the
downloaded zip's summary.html, opened from a file:// URL, shows an active memory's text,
not a forgotten one's, and what operators did. Screenshots go to test-artifacts/."""

import hashlib
import zipfile

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from datarights.models import DataRightsRequest
from datarights.processing import datarights_process
from iris_site.audit.events import Actor
from memory.forgetting.services import memory_tombstone
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_csp import Watch, sign_in
from tests.inspection.factories import granted
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WCAG = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
ACTIVE = "I take my coffee with cardamom"
FORGOTTEN = "My locker code is 4471"
PAGES = {
    "export": ("/profile/memory/data/export/", "Get a copy of your data"),
    "access": ("/profile/memory/data/access/", "See what Iris holds and who looked"),
    "delete": ("/profile/memory/data/delete/", "Erase your data"),
}


def no_axe_violations(page: Page) -> None:
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, results.generate_report()


def no_horizontal_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


def test_your_data_pages_at_390px_live_export_status_download_and_offline_summary(
    page: Page, live_server, screenshot, tmp_path
):
    # given: a member with one active and one forgotten memory, inspected by an operator
    member = consenting_member()
    remember(member, subject="coffee", body=ACTIVE)
    gone = remember(member, subject="locker", body=FORGOTTEN).entry
    memory_tombstone(entry=gone, actor=Actor.of(member))
    granted(OperatorFactory(role="legal"), member)
    page.set_viewport_size({"width": 390, "height": 844})
    watch = Watch(page)
    base = live_server.url
    sign_in(page, base, member.email)

    # the overview and the three short pages fit the phone and pass axe
    watch.visit(f"{base}/profile/memory/data/")
    no_horizontal_scroll(page)
    no_axe_violations(page)
    for name, (path, heading) in PAGES.items():
        watch.visit(f"{base}{path}")
        expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        no_horizontal_scroll(page)
        no_axe_violations(page)
        screenshot(f"{name}-390")

    # when the member asks for a copy with the page's defaults, by keyboard
    watch.visit(f"{base}{PAGES['export'][0]}")
    submit_button = page.get_by_role("button", name="Request my data")
    submit_button.focus()
    page.keyboard.press("Enter")
    page.wait_for_load_state("networkidle")
    expect(page.locator(".messages-region")).to_contain_text("being prepared")
    request = DataRightsRequest.objects.get(member=member, kind="export")
    status = page.locator(f"#status-{request.pk}")
    expect(status).to_contain_text("confirmed, waiting to start")
    expect(status).to_contain_text("this updates by itself")
    no_axe_violations(page)
    screenshot("export-pending")
    page.evaluate("window.__notReloaded = true")

    # and the worker prepares it
    datarights_process(request_id=request.pk)

    # then the status updates by itself (htmx), without a reload, and the link appears
    link = page.get_by_role("link", name="Download your export")
    expect(link).to_be_visible(timeout=15_000)
    expect(status).to_contain_text("done")
    assert page.evaluate("window.__notReloaded === true")
    watch.check("after the status update")
    no_horizontal_scroll(page)
    no_axe_violations(page)
    screenshot("export-ready")

    # and the download is the zip the page's fingerprint names
    with page.expect_download() as info:
        link.click()
    download = info.value
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert saved.suffix == ".zip"
    request.refresh_from_db()
    assert hashlib.sha256(saved.read_bytes()).hexdigest() == request.result_fingerprint
    expect(page.locator("code.fingerprint").first).to_have_text(request.result_fingerprint)

    # and its summary.html, opened from disk, is readable offline
    ARTIFACTS.mkdir(exist_ok=True)
    with zipfile.ZipFile(saved) as archive:
        assert archive.namelist() == ["data.json", "summary.html", "README.txt"]
        summary = ARTIFACTS / "your-data-summary.html"
        summary.write_bytes(archive.read("summary.html"))
    requests_made: list[str] = []
    offline = page.context.new_page()
    offline.set_viewport_size({"width": 390, "height": 844})
    offline.on("request", lambda r: requests_made.append(r.url))
    offline.goto(summary.as_uri())
    expect(offline.get_by_role("heading", level=1)).to_have_text("Your data from Iris")
    memories = offline.locator("#memories")
    expect(memories).to_contain_text(ACTIVE)
    expect(memories).not_to_contain_text(FORGOTTEN)
    expect(offline.locator("body")).not_to_contain_text(FORGOTTEN)
    who = offline.locator("#who-looked")
    # in words (who, what kind of look, why), never an event code (issue 47, item 3)
    expect(who).to_contain_text("an Iris operator (legal)")
    expect(who).to_contain_text("was allowed to look")
    expect(who).not_to_contain_text("inspection.request")
    expect(who).to_contain_text("for a routine review")
    expect(offline.locator("#retention")).to_contain_text("Kept")
    assert all(url.startswith("file://") for url in requests_made), requests_made
    no_horizontal_scroll(offline)
    offline.screenshot(path=str(ARTIFACTS / "your-data-summary.png"), full_page=True)
    no_axe_violations(offline)
