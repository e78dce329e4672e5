"""Forgotten memories lose their text for good a day after they were forgotten."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hierarchy.events import Actor
from hierarchy.models import AuditEvent
from memory.models import MemoryEntry, MemoryRevision
from memory.services import memory_tombstone, memory_tombstone_purge_due
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db


def test_forgotten_entries_are_erased_after_the_window_and_only_then():
    # given
    member = consenting_member()
    forgotten = remember(member, body="I once lived on Elm Street").entry
    kept = remember(member, body="I take my coffee black").entry
    memory_tombstone(entry=forgotten, actor=Actor.of(member))
    now = timezone.now()
    # when / then: not before the window ends
    assert memory_tombstone_purge_due(now=now) == 0
    assert MemoryEntry.objects.filter(pk=forgotten.pk).exists()
    # when / then: after it, entry and every revision are gone, the rest untouched
    assert memory_tombstone_purge_due(now=now + timedelta(days=2)) == 1
    assert not MemoryEntry.objects.filter(pk=forgotten.pk).exists()
    assert not MemoryRevision.objects.filter(entry_id=forgotten.pk).exists()
    assert MemoryEntry.objects.filter(pk=kept.pk).exists()
    audit = AuditEvent.objects.get(action="memory.entries.purged")
    assert audit.payload["reason"] == "tombstone-purge"
    assert audit.payload["entry_ids"] == [str(forgotten.pk)]
    assert "Elm" not in str(AuditEvent.objects.values_list("payload", flat=True))
    # and running it again changes nothing
    assert memory_tombstone_purge_due(now=now + timedelta(days=2)) == 0
