"""Issue 44, item 1: change events are kept only as long as notification needs them. The
retention sweep deletes acknowledged events older than 30 days and any event older than
90; the rest stay, and the sweep's audit event counts them (no ids of the events)."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from iris_site.models import AuditEvent
from memory.changes import ACKNOWLEDGED_KEPT, UNACKNOWLEDGED_KEPT
from memory.models import ChangeEvent
from memory.sweeps.retention import retention_sweep

pytestmark = pytest.mark.django_db


def event(now, *, age: timedelta, acknowledged: bool) -> ChangeEvent:
    return ChangeEvent.objects.create(
        member_id=uuid.uuid4(),
        consumer="assistant",
        type="memory.forgotten",
        entry_ids=[str(uuid.uuid4())],
        occurred_at=now - age,
        acknowledged_at=now - age + timedelta(hours=1) if acknowledged else None,
    )


def test_the_sweep_deletes_what_notification_no_longer_needs():
    assert (timedelta(days=30), timedelta(days=90)) == (ACKNOWLEDGED_KEPT, UNACKNOWLEDGED_KEPT)
    now = timezone.now()
    day = timedelta(days=1)
    kept = [
        event(now, age=29 * day, acknowledged=True),  # acknowledged, still recent
        event(now, age=89 * day, acknowledged=False),  # not read yet, not too old
    ]
    gone = [
        event(now, age=31 * day, acknowledged=True),
        event(now, age=91 * day, acknowledged=False),
        event(now, age=91 * day, acknowledged=True),
    ]
    report = retention_sweep(now=now)
    assert report.change_events_expired == len(gone)
    assert set(ChangeEvent.objects.values_list("pk", flat=True)) == {e.pk for e in kept}
    swept = AuditEvent.objects.get(action="memory.retention.swept")
    assert swept.payload["change_events_expired"] == 3
    assert not any(str(e.event_id) in str(swept.payload) for e in gone)
    assert retention_sweep(now=now).change_events_expired == 0  # idempotent
