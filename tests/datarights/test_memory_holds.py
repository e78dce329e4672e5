"""The memory-side hold a soft delete places: held entries drop out of recall and of
the member's lists, untouched, and come back exactly as they were when released."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.models import AuditEvent
from memory.access.capabilities import capabilities_for
from memory.forgetting.dsar import memory_held_entry_ids, memory_hold_place, memory_hold_release
from memory.models import MemoryDeletionHold
from memory.recall.service import recall_request_build, recall_run
from memory.selectors import memory_entry_list
from tests.datarights.factories import consenting_member, remember

pytestmark = pytest.mark.django_db


def _recall(member, query: str):
    request = recall_request_build(
        member_id=member.pk,
        capabilities=capabilities_for(Consumer.NOTEBOOK),
        surface="notebook",
        scope={"kind": "profile"},
        query=query,
    )
    return recall_run(request=request, actor=Actor.system())


def _recalled(member, query: str) -> list[str]:
    return [e.entry_id for e in _recall(member, query).entries]


def test_held_entries_leave_recall_and_lists_until_released():
    member = consenting_member()
    tea = remember(member, body="I drink green tea in the afternoon", subject="tea").entry
    coffee = remember(member, body="I take my coffee black", subject="coffee").entry
    request_id = uuid.uuid4()
    # when
    held = memory_hold_place(
        member_id=member.pk,
        entry_ids=[str(coffee.pk)],
        request_id=request_id,
        release_after=timezone.now() + timedelta(days=7),
        actor=Actor.system("datarights"),
    )
    # then
    assert held == 1
    assert [e.pk for e in memory_entry_list(member_id=member.pk)] == [tea.pk]
    held_recall = _recall(member, "coffee")
    assert str(coffee.pk) not in [e.entry_id for e in held_recall.entries]
    assert held_recall.audit_envelope.suppression_counts == {"deletion-hold": 1}
    assert memory_held_entry_ids(member_id=member.pk, request_id=request_id) == [str(coffee.pk)]
    event = AuditEvent.objects.get(action="memory.entries.held")
    assert event.payload == {"dsar_request_id": str(request_id), "held_count": 1}
    # placing again is a no-op
    assert (
        memory_hold_place(
            member_id=member.pk,
            entry_ids=[str(coffee.pk)],
            request_id=request_id,
            release_after=timezone.now(),
            actor=Actor.system("datarights"),
        )
        == 0
    )
    # when released
    assert (
        memory_hold_release(member_id=member.pk, request_id=request_id, actor=Actor.of(member)) == 1
    )
    assert {e.pk for e in memory_entry_list(member_id=member.pk)} == {tea.pk, coffee.pk}
    assert _recalled(member, "coffee")[0] == str(coffee.pk)
    assert AuditEvent.objects.get(action="memory.entries.released").payload["released_count"] == 1
    assert not MemoryDeletionHold.objects.exists()


def test_a_hold_only_touches_the_members_own_entries():
    member, other = consenting_member(), consenting_member()
    theirs = remember(other, body="Someone else's fact", subject="x").entry
    placed = memory_hold_place(
        member_id=member.pk,
        entry_ids=[str(theirs.pk)],
        request_id=uuid.uuid4(),
        release_after=timezone.now(),
        actor=Actor.system("datarights"),
    )
    assert placed == 0
    assert [e.pk for e in memory_entry_list(member_id=other.pk)] == [theirs.pk]
