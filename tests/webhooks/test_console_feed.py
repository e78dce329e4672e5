"""The console shows the changes told to surfaces — when, to whom, what kind, how many,
whether applied — so an operator (or a newcomer on `make run`) sees a forget arrive; never
the member, the memory or the consent (a consent's name can say a member has sensitive
memory)."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.changes import change_events_write
from memory.enums import ChangeType
from tests.memory.factories import consenting_member
from tests.webhooks.factories import platform_admin

pytestmark = pytest.mark.django_db


def test_the_console_lists_recent_changes_without_member_memory_or_consent():
    member = consenting_member()
    entry_id = "7d3c0e1e-0000-4000-8000-000000000001"
    change_events_write(
        member_id=member.pk,
        type=ChangeType.CONSENT_WITHDRAWN,
        received={"tara": {entry_id}},
        now=timezone.now(),
        revisions={},
        consent_type="category:mental_health",
    )
    console = Client()
    console.force_login(platform_admin())
    html = console.get(reverse("console:webhooks")).content.decode()
    assert "Recent changes told to surfaces" in html
    assert "consent.withdrawn" in html and "<td>tara</td>" in html and "Not yet" in html
    for secret in (str(member.pk), member.email, entry_id, "mental_health"):
        assert secret not in html
