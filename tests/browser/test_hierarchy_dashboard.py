"""The operator memory-hierarchy dashboard in a real browser: counts, the hourly chart,
the "—" fallback of a failing part, and no accessibility violations."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from hierarchy.stm import stm_write
from iris_site.audit.events import Actor
from tests.consent.factories import record
from tests.iris_site.factories import PASSWORD, MemberFactory, OperatorFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
URL = "/dashboard/admin/memory-hierarchy"


@pytest.fixture
def operator():
    member = MemberFactory()
    for consent_type in ("data_processing", "data_storage"):
        record(member, consent_type)
    for scope_kind in ("user_session", "agent_run"):
        stm_write(
            member=member,
            scope_kind=scope_kind,
            scope_id="s-1",
            category="preference",
            content="prefers morning walks",
            actor=Actor.system("test"),
        )
    return OperatorFactory(email="ops@example.test", role="admin")


def sign_in(page: Page, base_url: str, email: str) -> None:
    page.goto(f"{base_url}/accounts/login/?next={URL}")
    page.locator("#id_username").fill(email)
    page.locator("#id_password").fill(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Memory hierarchy")).to_be_visible()


def test_the_dashboard_shows_every_tier_and_the_chart(
    page: Page, live_server, operator, screenshot
):
    sign_in(page, live_server.url, operator.email)
    expect(page.get_by_test_id("stm-total")).to_have_text("2")
    expect(page.get_by_test_id("ltm-total")).to_have_text("0")
    expect(page.get_by_role("img", name="Episodic events per hour")).to_be_visible()
    expect(page.get_by_text("prefers morning walks")).to_have_count(0)
    screenshot("dashboard")
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()


def test_a_failing_part_renders_a_dash(page: Page, live_server, operator, monkeypatch, screenshot):
    def broken(**kwargs):
        raise RuntimeError("replica down")

    monkeypatch.setattr("hierarchy.operator.ltm_counts_by_lifecycle", broken)
    monkeypatch.setattr("hierarchy.operator.episodic_hourly_24h", broken)
    sign_in(page, live_server.url, operator.email)
    expect(page.get_by_test_id("ltm-total")).to_have_text("—")
    expect(page.get_by_text("Long-term counts are unavailable right now.")).to_be_visible()
    expect(page.get_by_text("The hourly chart is unavailable right now.")).to_be_visible()
    expect(page.get_by_test_id("stm-total")).to_have_text("2")
    screenshot("dashboard-fallback")
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()
