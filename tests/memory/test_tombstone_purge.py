"""A forget erases the text at once; the purge job only catches tombstones that still
hold text (forgotten before a forget erased it immediately)."""

import pytest

from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from memory.forgetting.services import memory_tombstone, memory_tombstone_purge_due
from memory.models import MemoryEntry, MemoryRevision
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db


def test_a_forget_erases_the_text_at_once_and_leaves_nothing_for_the_job():
    # given
    member = consenting_member()
    forgotten = remember(member, body="I once lived on Elm Street").entry
    kept = remember(member, body="I take my coffee black").entry
    # when
    memory_tombstone(entry=forgotten, actor=Actor.of(member))
    # then: not a day later, now
    forgotten.refresh_from_db()
    assert forgotten.body == "(forgotten)" and len(forgotten.erased_digest) == 64
    assert "Elm" not in str(MemoryRevision.objects.filter(entry=forgotten).values("content"))
    assert MemoryEntry.objects.get(pk=kept.pk).body == "I take my coffee black"
    assert memory_tombstone_purge_due() == 0
    assert "Elm" not in str(AuditEvent.objects.values_list("payload", flat=True))


def test_a_tombstone_that_still_holds_text_is_erased_by_the_job_once():
    # given: a tombstone as a forget left it before the text was erased at once
    member = consenting_member()
    old = remember(member, body="I once lived on Elm Street").entry
    MemoryEntry.objects.filter(pk=old.pk).update(lifecycle="tombstoned")
    # when
    assert memory_tombstone_purge_due() == 1
    # then
    old.refresh_from_db()
    assert old.lifecycle == "tombstoned" and old.body == "(forgotten)"
    revisions = list(MemoryRevision.objects.filter(entry=old).values_list("content", flat=True))
    assert [r["body"] for r in revisions] == ["(forgotten)"]
    erased = AuditEvent.objects.get(action="memory.entries.erased")
    assert erased.payload["reason"] == "tombstone-purge"
    assert erased.payload["entry_ids"] == [str(old.pk)]
    # and running it again changes nothing
    assert memory_tombstone_purge_due() == 0
