"""Issue 42, item 2, in `/admin/`: "The admin also filters memory entries by category."

No admin list filters or sorts memory (entries, short-term rows, consents) by category,
a hand-made `?category=` is refused, a special category shows as `special-category`, and
opening a member's audit event shows its payload neutralised and is recorded in the
member's chain.
"""

import re

import pytest
from django.contrib.admin import site

from consent.models import ConsentEvent
from hierarchy.models import ShortTermMemory
from iris_site.audit.actions import AuditAction
from iris_site.audit.sealing import MARKER
from iris_site.enums import OperatorRole
from iris_site.models import AuditEvent
from memory.models import MemoryEntry
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db

CATEGORY_WORDS = re.compile(r"mental[_ ]health", re.IGNORECASE)


@pytest.fixture
def admin_client(client):
    client.force_login(OperatorFactory(role=OperatorRole.ADMIN, is_superuser=True))
    client.raise_request_exception = False  # a refused lookup answers 400, as served
    return client


@pytest.fixture
def member():
    member = consenting_member("category:mental_health")
    remember(member, category="mental_health", subject="therapy", body="I see a therapist")
    return member


@pytest.mark.parametrize("model", [MemoryEntry, ShortTermMemory, ConsentEvent])
def test_no_admin_list_filters_or_sorts_memory_by_category(model):
    model_admin = site._registry[model]
    fields = [f if isinstance(f, str) else f[0] for f in model_admin.list_filter]
    assert not [f for f in fields if "category" in f or "consent_type" in f]
    # what a list shows of the category is a computed column: not sortable
    shown = [name for name in model_admin.list_display if "category" in name or "type" in name]
    assert all(not hasattr(model._meta, n) and n.endswith("_shown") for n in shown)


def test_the_memory_admin_neither_filters_nor_shows_a_special_category(admin_client, member):
    # when an admin filters the entries by a sensitive category by hand
    filtered = admin_client.get("/admin/memory/memoryentry/", {"category__exact": "mental_health"})
    # then the lookup is refused
    assert filtered.status_code == 400
    assert not CATEGORY_WORDS.search(filtered.content.decode())
    # and the list and the entry page say only `special-category`
    listing = admin_client.get("/admin/memory/memoryentry/").content.decode()
    assert MARKER in listing and not CATEGORY_WORDS.search(listing)
    entry = MemoryEntry.objects.get(member=member, category="mental_health")
    page = admin_client.get(f"/admin/memory/memoryentry/{entry.pk}/change/").content.decode()
    assert MARKER in page and not CATEGORY_WORDS.search(page)
    # and the consent ledger's list neither filters nor names it
    consents = admin_client.get(
        "/admin/consent/consentevent/", {"consent_type": "category:mental_health"}
    )
    assert consents.status_code == 400
    ledger = admin_client.get("/admin/consent/consentevent/").content.decode()
    assert not CATEGORY_WORDS.search(ledger)


def test_an_audit_event_page_neutralises_and_is_recorded(admin_client, member):
    event = AuditEvent.objects.get(target_member_id=member.pk, action="memory.entry.created")
    page = admin_client.get(f"/admin/iris_site/auditevent/{event.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert MARKER in text and not CATEGORY_WORDS.search(text)
    listed = AuditEvent.objects.get(
        target_member_id=member.pk, action=AuditAction.IRIS_SITE_AUDIT_EVENTS_LISTED
    )
    assert listed.payload["surface"] == "admin" and listed.payload["marker_count"] == 1
