"""The console's inspection workflow in Chromium, per role: support finds a member by email,
picks a scope and says why (no UUID, no JSON), routes and completes a routine review,
reading only through the interstitial; a sensitive request needs a second approver (a
different operator) and the interstitial says the member will be told. Every page: axe
zero violations, zero CSP violations."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from inspection.enums import InspectionState
from inspection.models import InspectionRequest
from inspection.services import ACTION_READ
from iris_site.enums import OperatorRole
from iris_site.models import AuditEvent
from tests.browser.test_csp import Watch
from tests.browser.test_csp import sign_in as _sign_in
from tests.inspection.factories import JUSTIFICATION, member_with_memory, open_dsar
from tests.iris_site.factories import OperatorFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

_S = InspectionState
AXE_RULES = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}


def sign_in(page: Page, base: str, email: str) -> None:
    """Sign in as an operator and wait until the console has loaded."""
    _sign_in(page, base, email)
    expect(page).to_have_url(re.compile(r"/console/$"))


def accessible(page: Page, watch: Watch, where: str) -> None:
    """axe finds nothing, and the page raised no CSP violation."""
    page.wait_for_load_state("networkidle")
    results = Axe().run(page, options=AXE_RULES)
    assert results.violations_count == 0, (where, results.generate_report())
    watch.check(where)


def open_request(page: Page, watch: Watch, base: str, email: str, scope: str, *, sensitive=False):
    """Find the member by email, pick the scope by its label, say why, open."""
    page.goto(f"{base}/console/inspections/")
    accessible(page, watch, "list")
    page.get_by_role("link", name="Open an inspection request").click()
    page.get_by_label("Member's email address").fill(email)
    page.get_by_role("button", name="Find").click()
    expect(page.get_by_text(f"Found: {email}")).to_be_visible()
    accessible(page, watch, "new")
    page.get_by_label(scope, exact=True).check()
    if sensitive:
        page.get_by_label("Include sensitive memory", exact=False).check()
    page.get_by_label("Why you need to look").fill(JUSTIFICATION)
    page.get_by_role("button", name="Open the request").click()
    expect(page.locator(".message-success")).to_contain_text("Request opened")
    accessible(page, watch, "detail (requested)")


def test_support_completes_a_routine_review_without_typing_a_uuid_or_json(
    page: Page, browser, live_server, screenshot
):
    # given a member with profile memory, support, and an admin
    member, _ = member_with_memory()
    support = OperatorFactory(role=OperatorRole.SUPPORT)
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    base = live_server.url
    watch = Watch(page)
    sign_in(page, base, support.email)

    # when support opens a request for the member found by email, on the profile
    open_request(page, watch, base, member.email, "Profile")
    inspection = InspectionRequest.objects.get()
    assert inspection.scope == {"kind": "profile", "user_id": str(member.pk)}

    # and routes it as a routine review
    page.get_by_role("button", name="Route as a routine review").click()
    expect(page.locator(".inspection-status")).to_contain_text(re.compile("Routine review", re.I))
    accessible(page, watch, "detail (routine review)")

    # then an admin sees the grant refused to them, with the reason as text
    other = browser.new_context()
    admin_page = other.new_page()
    admin_watch = Watch(admin_page)
    sign_in(admin_page, base, admin.email)
    admin_page.goto(f"{base}/console/inspections/{inspection.pk}/")
    expect(admin_page.get_by_role("button", name="Grant")).to_be_disabled()
    expect(
        admin_page.get_by_text("Only the operator who opened the request grants it.")
    ).to_be_visible()
    expect(admin_page.get_by_role("button", name="Deny")).to_be_enabled()
    accessible(admin_page, admin_watch, "detail as admin")
    other.close()

    # when support grants it (a routine review that cannot reach sensitive memory)
    page.get_by_role("button", name="Grant").click()
    expect(page.locator(".inspection-status")).to_contain_text(re.compile("Granted", re.I))
    accessible(page, watch, "detail (granted)")

    # and reads through the interstitial
    page.get_by_role("link", name="Read the snapshot").click()
    expect(page.get_by_role("heading", name="Before you read")).to_be_visible()
    expect(page.get_by_text("This read is recorded.", exact=True)).to_be_visible()
    accessible(page, watch, "interstitial")
    assert not AuditEvent.objects.filter(action=ACTION_READ).exists()
    page.get_by_label("I understand: this read is recorded").check()
    page.get_by_role("button", name="Read the snapshot").click()

    # then the snapshot shows what was read and what was redacted
    expect(page.get_by_text("I take my coffee black")).to_be_visible()
    expect(page.locator(".inspection-redactions")).to_contain_text("erased since the grant")
    expect(page.locator(".inspection-redactions")).to_contain_text(
        "Sensitive memory was not part of this request"
    )
    assert AuditEvent.objects.filter(action=ACTION_READ).count() == 1
    screenshot("snapshot")
    accessible(page, watch, "snapshot")

    # and support completes it
    page.get_by_role("link", name="Back to the request").click()
    page.get_by_role("button", name="Close the inspection").click()
    expect(page.locator(".inspection-status")).to_contain_text(re.compile("Closed", re.I))
    expect(page.get_by_text("Nothing more can happen to this request.")).to_be_visible()
    accessible(page, watch, "detail (closed)")
    inspection.refresh_from_db()
    assert inspection.state == _S.CLOSED


def test_a_sensitive_read_needs_a_second_approver_and_the_interstitial(
    page: Page, browser, live_server, screenshot
):
    # given a member with sensitive memory, consent to it, and an open access request
    member, _ = member_with_memory("category:medical")
    open_dsar(member)
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    second = OperatorFactory(role=OperatorRole.LEGAL)
    base = live_server.url
    watch = Watch(page)
    sign_in(page, base, legal.email)

    # when legal opens a sensitive request and routes it to fulfil the member's request,
    # choosing that request from a list
    open_request(page, watch, base, member.email, "Profile", sensitive=True)
    inspection = InspectionRequest.objects.get()
    assert inspection.include_sensitive
    page.get_by_label("The member's data-rights request").select_option(index=1)
    page.get_by_role("button", name="Route as a data-rights (DSAR) fulfilment").click()
    expect(page.locator(".inspection-status")).to_contain_text(re.compile("DSAR fulfilment"))

    # then the requester may not grant it, and the page says why
    expect(page.get_by_role("button", name="Grant")).to_be_disabled()
    expect(
        page.get_by_text("A second operator with the Legal role grants this request, never you.")
    ).to_be_visible()
    screenshot("awaiting-second-approver")
    accessible(page, watch, "detail (awaiting second approver)")

    # when a second legal operator approves
    other = browser.new_context()
    second_page = other.new_page()
    second_watch = Watch(second_page)
    sign_in(second_page, base, second.email)
    second_page.goto(f"{base}/console/inspections/{inspection.pk}/")
    accessible(second_page, second_watch, "detail as second approver")
    expect(second_page.get_by_role("link", name="Read the snapshot")).to_have_count(0)
    second_page.get_by_role("button", name="Approve as second approver").click()
    expect(second_page.locator(".inspection-status")).to_contain_text(re.compile("Granted", re.I))
    accessible(second_page, second_watch, "granted as second approver")
    other.close()
    inspection.refresh_from_db()
    assert inspection.state == _S.GRANTED and inspection.granted_by == second

    # and the requester reads: the interstitial says the member will be told, and
    # nothing is read until it is confirmed
    page.reload()
    page.get_by_role("link", name="Read the snapshot").click()
    expect(page.get_by_text("This read is recorded and the member will be told.")).to_be_visible()
    accessible(page, watch, "sensitive interstitial")
    page.get_by_role("button", name="Read, and let the member know").click()
    expect(page.get_by_role("heading", name="Before you read")).to_be_visible()
    assert not AuditEvent.objects.filter(action=ACTION_READ).exists()
    page.get_by_label("I understand: this read is recorded").check()
    page.get_by_role("button", name="Read, and let the member know").click()

    # then the sensitive memory is shown, marked, with the redactions stated
    expect(page.get_by_text("I am allergic to penicillin")).to_be_visible()
    expect(page.locator(".inspection-redactions")).to_contain_text("mentions of other people")
    assert AuditEvent.objects.filter(action=ACTION_READ).count() == 1
    screenshot("sensitive-snapshot")
    accessible(page, watch, "sensitive snapshot")
