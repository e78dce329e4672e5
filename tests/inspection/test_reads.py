"""Reads: the pinned snapshot only while granted, replay exactly as granted, erasure wins."""

from datetime import timedelta

import pytest

from inspection.enums import InspectionState
from inspection.services import inspection_read, inspection_transition
from iris_site.audit.events import Actor
from iris_site.errors import Conflict, NotPermitted
from memory.forgetting.services import memory_purge_entries, memory_tombstone
from memory.services import memory_edit
from tests.inspection.factories import (
    granted,
    inspection_audit,
    member_with_memory,
    move,
    open_request,
)
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import assert_no_audit_mentions, remember

pytestmark = pytest.mark.django_db

S = InspectionState
READ = "inspection.snapshot.read"
REFUSED = "inspection.snapshot.read_refused"


@pytest.fixture
def legal():
    return OperatorFactory(role="legal")


def bodies(view) -> dict:
    return {item.entry_id: item.content["body"] for item in view.items if item.content}


def test_the_snapshot_is_the_pinned_entries_and_the_read_is_recorded(legal):
    # given
    member, entries = member_with_memory()
    inspection = granted(legal, member)
    # when
    view = inspection_read(inspection=inspection, operator=legal)
    # then
    assert bodies(view) == {entries["ordinary"].pk: "I take my coffee black"}
    assert view.matches_grant
    (read,) = inspection_audit(inspection, READ)
    assert read.actor_id == legal.pk
    assert read.payload["read_kind"] == "snapshot" and read.payload["served_count"] == 1
    assert_no_audit_mentions("coffee black")


def test_replay_returns_the_grant_time_bodies_after_an_edit_and_erasure_wins_after_a_forget(
    legal,
):
    # given
    member, entries = member_with_memory()
    entry = entries["ordinary"]
    inspection = granted(legal, member)
    pinned_revision = entry.revision_id
    # when: the member edits the entry while the grant is open
    edited = memory_edit(entry=entry, actor=Actor.of(member), body="I take my coffee with oat milk")
    remember(member, subject="cake", body="I like lemon cake")  # new, never pinned
    view = inspection_read(inspection=inspection, operator=legal, kind="replay")
    # then
    (item,) = view.items
    assert item.entry_id == entry.pk and item.revision_id == pinned_revision
    assert item.status == "as-granted" and item.revision_number == 1
    assert item.content["body"] == "I take my coffee black"
    assert item.content["lifecycle"] == "active"
    assert view.matches_grant
    assert inspection_audit(inspection, READ)[-1].payload["read_kind"] == "replay"
    # when the member forgets it: its text is erased at once, revisions included
    memory_tombstone(entry=edited, actor=Actor.of(member))
    view = inspection_read(inspection=inspection, operator=legal, kind="replay")
    (item,) = view.items
    assert item.status == "purged" and item.content is None


def test_after_a_hard_delete_replay_reports_the_entry_as_purged(legal):
    # given
    member, entries = member_with_memory()
    second = remember(member, subject="tea", body="I drink green tea").entry
    inspection = granted(legal, member)
    # when: a data-rights hard delete purges one entry and its revisions
    memory_purge_entries(member_id=member.pk, entry_ids=[second.pk], reason="dsar-hard-delete")
    view = inspection_read(inspection=inspection, operator=legal, kind="replay")
    # then
    statuses = {item.entry_id: item.status for item in view.items}
    assert statuses == {entries["ordinary"].pk: "as-granted", second.pk: "purged"}
    purged = next(item for item in view.items if item.entry_id == second.pk)
    assert purged.content is None  # erasure wins: nothing of it is rebuilt
    assert view.purged_entry_ids == [second.pk]
    assert not view.matches_grant
    assert inspection_audit(inspection, READ)[-1].payload["purged_count"] == 1


@pytest.mark.parametrize(
    "steps",
    [[], [S.ROUTINE_REVIEW], [S.ROUTINE_REVIEW, S.DENIED]],
    ids=["requested", "routine-review", "denied"],
)
def test_nothing_is_readable_before_a_grant(legal, steps):
    member, _ = member_with_memory()
    inspection = open_request(legal, member)
    if steps:
        move(inspection, legal, *steps)
    for kind in ("snapshot", "replay"):
        with pytest.raises(Conflict) as excinfo:
            inspection_read(inspection=inspection, operator=legal, kind=kind)
        assert excinfo.value.code == "inspection-not-granted"
    refusals = inspection_audit(inspection, REFUSED)
    assert [r.payload["read_kind"] for r in refusals] == ["snapshot", "replay"]
    assert all(r.payload["refusal"] == "inspection-not-granted" for r in refusals)
    assert not inspection_audit(inspection, READ)


def test_nothing_is_readable_after_close(legal):
    member, _ = member_with_memory()
    inspection = granted(legal, member)
    inspection_transition(inspection=inspection, to=S.CLOSED, operator=legal)
    with pytest.raises(Conflict):
        inspection_read(inspection=inspection, operator=legal)
    assert inspection_audit(inspection, REFUSED)[0].payload["state"] == "closed"


def test_nothing_is_readable_past_the_time_box_even_before_the_close_job(legal):
    member, _ = member_with_memory()
    inspection = granted(legal, member)
    later = inspection.expires_at + timedelta(seconds=1)
    with pytest.raises(Conflict) as excinfo:
        inspection_read(inspection=inspection, operator=legal, now=later)
    assert excinfo.value.code == "grant-expired"
    assert inspection_audit(inspection, REFUSED)[0].payload["refusal"] == "grant-expired"


def test_only_the_requester_reads_even_admin_oversight_does_not(legal):
    member, _ = member_with_memory()
    inspection = granted(legal, member)
    overseer = OperatorFactory(role="admin")
    with pytest.raises(NotPermitted) as excinfo:
        inspection_read(inspection=inspection, operator=overseer)
    assert excinfo.value.code == "not-request-owner"
    (refusal,) = inspection_audit(inspection, REFUSED)
    assert refusal.actor_id == overseer.pk


def _mention(member):
    return remember(
        member,
        category="relationship",
        subject="partner",
        body="My partner worries about my sleep",
        multi_actor={"actor_name": "Sam Lee", "relationship_note": "my partner"},
    ).entry


@pytest.mark.parametrize(
    ("path", "redacted"),
    [(S.ROUTINE_REVIEW, True), (S.INCIDENT_ESCALATION, True), (S.DSAR_FULFILLMENT, False)],
)
def test_mentions_of_other_people_are_redacted_unless_dsar(legal, path, redacted):
    member, _ = member_with_memory()
    mention = _mention(member)
    inspection = granted(legal, member, path)
    view = inspection_read(inspection=inspection, operator=legal)
    item = next(i for i in view.items if i.entry_id == mention.pk)
    if redacted:
        assert item.content["multi_actor"] is None
    else:
        assert item.content["multi_actor"]["relationship_note"] == "my partner"
        assert item.content["multi_actor"]["actor_handle"] == mention.actor_handle
    assert view.matches_grant  # redaction is a view; the fingerprint covers the revision
