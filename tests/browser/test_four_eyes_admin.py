"""Issue 42, "One platform admin satisfies four eyes alone", in Chromium, where a person
would do it: in /admin/ the admin creates two legal accounts (their roles wait for a
second admin), a role written by a hand-made admin form is refused, and switching its
own role to legal waits too, Approve disabled for it on /console/operators/. A second
admin approves the roles; one account opens a sensitive data-rights inspection and the
other is shown "Approve as second approver" disabled, with why. Every console page: axe
zero violations, zero CSP violations."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from inspection.enums import InspectionState
from inspection.models import InspectionRequest
from iris_site.enums import OperatorRole, UserKind
from iris_site.models import AuditEvent, OperatorAccountChange, OperatorProfile, User
from tests.browser.test_console_inspections import open_request
from tests.browser.test_csp import Watch
from tests.browser.test_csp import sign_in as _sign_in
from tests.inspection.factories import member_with_memory, open_dsar
from tests.iris_site.factories import OperatorFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

AXE_RULES = {"runOnly": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
NEW_PASSWORD = "a-long-enough-passphrase-1"
PREFIX = "iris_site.operator_account."


def sign_in(page: Page, base: str, email: str, password: str | None = None) -> None:
    if password is None:
        _sign_in(page, base, email)
    else:
        page.goto(f"{base}/accounts/login/")
        page.locator("#id_username").fill(email)
        page.locator("#id_password").fill(password)
        page.keyboard.press("Enter")
        page.wait_for_load_state("networkidle")
    expect(page).to_have_url(re.compile(r"/console/$"))


def accessible(page: Page, watch: Watch, where: str) -> None:
    page.wait_for_load_state("networkidle")
    results = Axe().run(page, options=AXE_RULES)
    assert results.violations_count == 0, (where, results.generate_report())
    watch.check(where)


def admin_adds_legal(page: Page, base: str, email: str) -> None:
    page.goto(f"{base}/admin/iris_site/user/add/")
    page.locator("#id_email").fill(email)
    page.locator("#id_kind").select_option(UserKind.OPERATOR)
    page.locator("#id_password1").fill(NEW_PASSWORD)
    page.locator("#id_password2").fill(NEW_PASSWORD)
    page.locator("#id_role").select_option(OperatorRole.LEGAL)
    page.locator("input[name=_save]").click()
    page.wait_for_load_state("networkidle")
    expect(page.locator(".errornote")).to_have_count(0)


def test_one_platform_admin_no_longer_satisfies_four_eyes_alone(
    page: Page, browser, live_server, screenshot
):
    # given a member with sensitive memory and an open data-rights request, the platform
    # admin (a superuser, as the demo's), and a second platform admin
    member, _ = member_with_memory("category:medical")
    open_dsar(member)
    admin = OperatorFactory(role=OperatorRole.ADMIN)
    User.objects.filter(pk=admin.pk).update(is_superuser=True)
    second = OperatorFactory(role=OperatorRole.ADMIN)
    base = live_server.url
    watch = Watch(page)
    sign_in(page, base, admin.email)

    # when the admin creates two legal accounts in /admin/
    admin_adds_legal(page, base, "legal-a@example.test")
    admin_adds_legal(page, base, "legal-b@example.test")
    a = User.objects.get(email="legal-a@example.test")
    b = User.objects.get(email="legal-b@example.test")
    # then both are support until a second admin approves their role, and it is audited
    assert OperatorProfile.objects.get(user=a).role == OperatorRole.SUPPORT
    assert OperatorAccountChange.objects.filter(state="pending", role_to="legal").count() == 2
    assert AuditEvent.objects.filter(action=PREFIX + "created", actor_id=admin.pk).count() == 2

    # when the admin writes A's role with a hand-made form field (as a raw POST would)
    page.goto(f"{base}/admin/iris_site/user/{a.pk}/change/")
    page.evaluate(
        """() => {
            const form = document.querySelector('#user_form');
            const input = document.createElement('input');
            input.type = 'hidden'; input.name = 'operator_profile-0-role'; input.value = 'legal';
            form.appendChild(input);
        }"""
    )
    page.locator("input[name=_save]").click()
    # then it is refused, and audited
    expect(page.locator(".errornote, .errorlist").first).to_be_visible()
    expect(page.get_by_text("change only through the audited service")).to_be_visible()
    assert OperatorProfile.objects.get(user=a).role == OperatorRole.SUPPORT
    assert AuditEvent.objects.filter(action=PREFIX + "change_rejected").exists()

    # when the admin switches its own role to legal in /admin/
    page.goto(f"{base}/admin/iris_site/user/{admin.pk}/change/")
    page.locator("#id_role").select_option(OperatorRole.LEGAL)
    page.locator("input[name=_save]").click()
    # then the change waits for a second admin, and the admin may not approve it
    expect(page.get_by_text("waits for a second platform admin")).to_be_visible()
    assert OperatorProfile.objects.get(user=admin).role == OperatorRole.ADMIN
    page.goto(f"{base}/console/operators/")
    accessible(page, watch, "operators (as the asking admin)")
    own = page.locator(f"tr[data-change] >> text={admin.email}").locator("xpath=ancestor::tr")
    expect(own.get_by_role("button", name="Approve")).to_be_disabled()
    expect(own).to_contain_text("never whoever asked")
    screenshot("operators-asking-admin")

    # when a second admin approves the two legal roles (and the admin's switch)
    other = browser.new_context()
    second_page = other.new_page()
    second_watch = Watch(second_page)
    sign_in(second_page, base, second.email)
    second_page.goto(f"{base}/console/operators/")
    accessible(second_page, second_watch, "operators (as the second admin)")
    for _ in range(3):
        second_page.get_by_role("button", name="Approve").first.click()
        expect(second_page.locator(".message-success")).to_contain_text("Change approved")
    expect(second_page.get_by_text("No change is waiting.")).to_be_visible()
    other.close()
    assert OperatorProfile.objects.get(user=a).role == OperatorRole.LEGAL
    assert OperatorProfile.objects.get(user=admin).role == OperatorRole.LEGAL

    # when A opens a sensitive request and routes it to the member's data-rights request
    context_a = browser.new_context()
    page_a = context_a.new_page()
    watch_a = Watch(page_a)
    sign_in(page_a, base, a.email, NEW_PASSWORD)
    open_request(page_a, watch_a, base, member.email, "Profile", sensitive=True)
    inspection = InspectionRequest.objects.get()
    page_a.get_by_label("The member's data-rights request").select_option(index=1)
    page_a.get_by_role("button", name="Route as a data-rights (DSAR) fulfilment").click()
    expect(page_a.locator(".inspection-status")).to_contain_text(re.compile("DSAR fulfilment"))
    context_a.close()

    # then B, and the admin now legal, are each shown the approval disabled, with why
    for email, password in ((b.email, NEW_PASSWORD), (admin.email, None)):
        context = browser.new_context()
        approver_page = context.new_page()
        approver_watch = Watch(approver_page)
        sign_in(approver_page, base, email, password)
        approver_page.goto(f"{base}/console/inspections/{inspection.pk}/")
        accessible(approver_page, approver_watch, f"detail as {email}")
        approve = approver_page.get_by_role("button", name="Approve as second approver")
        expect(approve).to_be_disabled()
        expect(approver_page.locator("#why-granted")).to_contain_text("count as one person")
        screenshot(f"linked-approver-{email.split('@')[0]}")
        context.close()
    inspection.refresh_from_db()
    assert inspection.state == InspectionState.DSAR_FULFILLMENT
