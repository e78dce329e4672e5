"""Issue 42, item 2, where a person would use it: "The admin also filters `/admin/` memory
entries by category." A platform admin in a real browser finds no category filter or
sortable category column on memory entries, short-term rows or the consent ledger, sees a
special category only as `special-category`, and a hand-made `?category=` address is
refused rather than filtered."""

import re

import pytest
from playwright.sync_api import Page, expect

from memory.models import MemoryEntry
from tests.iris_site.factories import PASSWORD, OperatorFactory
from tests.memory.factories import consenting_member, remember

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

CATEGORY_WORDS = re.compile(r"mental[_ ]health", re.IGNORECASE)


def test_the_admin_neither_filters_nor_names_a_special_category(page: Page, live_server):
    # given a member's mental-health memory and a platform admin
    member = consenting_member("category:mental_health")
    remember(member, category="mental_health", subject="therapy", body="I see a therapist")
    remember(member, subject="coffee")
    admin = OperatorFactory(role="admin", is_superuser=True, email="admin@example.test")
    base = live_server.url
    # when the admin signs in and opens memory entries
    page.goto(f"{base}/admin/login/")
    page.locator("#id_username").fill(admin.email)
    page.locator("#id_password").fill(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/admin/")
    page.goto(f"{base}/admin/memory/memoryentry/")
    # then there is no filter by category, and the column names no special category
    expect(page.locator("#changelist-filter")).to_be_visible()
    assert "By category" not in page.locator("#changelist-filter").inner_text()
    assert page.locator("th.column-category_shown a").count() == 0  # not sortable
    body = page.locator("#result_list").inner_text()
    assert "special-category" in body and "Preference" in body
    assert not CATEGORY_WORDS.search(page.content())
    # when the admin opens the entry
    entry = MemoryEntry.objects.get(member=member, category="mental_health")
    page.goto(f"{base}/admin/memory/memoryentry/{entry.pk}/change/")
    assert "special-category" in page.content() and not CATEGORY_WORDS.search(page.content())
    # when the admin types a filter by category into the address bar
    response = page.goto(f"{base}/admin/memory/memoryentry/?category__exact=mental_health")
    # then it is refused, not filtered
    assert response.status == 400
    # and neither short-term rows nor the consent ledger filter by it
    for path in ("/admin/hierarchy/shorttermmemory/", "/admin/consent/consentevent/"):
        page.goto(f"{base}{path}")
        filters = page.locator("#changelist-filter")
        text = filters.inner_text() if filters.count() else ""
        assert "category" not in text.lower() and "consent type" not in text.lower()
        assert not CATEGORY_WORDS.search(page.content())
