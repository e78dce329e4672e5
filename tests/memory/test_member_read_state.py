"""The read gate's member state reads the member's own controls (settings, a pending full
clear, off the record) in one statement: it must say exactly what the three reads it
replaces say, in every combination, and never another member's."""

import itertools
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory.controls import member_memory_settings_get
from memory.models import MemoryClearRequest, OffTheRecordSession
from memory.selectors import member_read_state, memory_off_the_record, memory_pending_clear
from tests.memory.factories import consenting_member, memory_settings

pytestmark = pytest.mark.django_db

SETTINGS = (
    None,
    {"stop_using": True},
    {"auto_forget_months": {"session": 3}, "paused_consumers": ["shell"]},
)
CLEARS = (None, "pending", "cancelled")
OFF_THE_RECORD = (None, ("", True), ("s-1", True), ("s-2", True), ("s-1", False))


def _given(member, settings, clear, off_the_record):
    now = timezone.now()
    if settings is not None:
        memory_settings(member, **settings)
    if clear is not None:
        MemoryClearRequest.objects.create(
            member=member, state=clear, requested_at=now, purge_after=now + timedelta(days=7)
        )
    if off_the_record is not None:
        session_id, active = off_the_record
        OffTheRecordSession.objects.create(
            member=member, session_id=session_id, active=active, changed_at=now
        )


@pytest.mark.parametrize(
    ("settings", "clear", "off_the_record"),
    list(itertools.product(SETTINGS, CLEARS, OFF_THE_RECORD)),
)
def test_the_members_own_controls_read_as_the_three_reads_say(settings, clear, off_the_record):
    member = consenting_member()
    _given(member, settings, clear, off_the_record)
    other = consenting_member()  # another member's opposite controls never leak in
    _given(other, {"stop_using": True, "paused_consumers": ["assistant"]}, "pending", ("", True))

    for session_id in ("", "s-1"):
        state = member_read_state(member_id=member.pk, session_id=session_id)
        own = member_memory_settings_get(member_id=member.pk)
        assert state.stopped_use == own.stop_using
        assert state.paused_consumers == own.paused_consumers
        assert dict(state.auto_forget_days) == {
            kind: round(months * 365 / 12) for kind, months in own.auto_forget_months.items()
        }
        assert state.clear_pending == (memory_pending_clear(member_id=member.pk) is not None)
        assert state.off_the_record == memory_off_the_record(
            member_id=member.pk, session_id=session_id
        )


def test_the_own_controls_are_one_statement():
    member = consenting_member()
    memory_settings(member, stop_using=True)
    with CaptureQueriesContext(connection) as captured:
        member_read_state(member_id=member.pk, session_id="s-1")
    own = [q for q in captured.captured_queries if "memory_membermemorysettings" in q["sql"]]
    assert len(own) == 1
    assert "memory_memoryclearrequest" in own[0]["sql"]
    assert "memory_offtherecordsession" in own[0]["sql"]
    assert not any(
        "memory_memoryclearrequest" in q["sql"] or "memory_offtherecordsession" in q["sql"]
        for q in captured.captured_queries
        if q is not own[0]
    )
