"""`bench_changes` measures what it says on a small run: a forget with 10 recipients
writes 10 events and one with none writes none, the feed is read to its end in pages of
500 over HTTP, and nothing it wrote is left behind."""

import io
import json

import pytest
from django.core.management import call_command

from memory.models import ChangeEvent, MemoryEntry, RecallRecord

pytestmark = pytest.mark.django_db


def test_a_small_run_measures_and_leaves_nothing(monkeypatch):
    # The test database is a scratch one whatever its name (on PostgreSQL, test_<name>).
    monkeypatch.setattr("memory.bench.changes.require_scratch_database", lambda: None)
    out = io.StringIO()
    call_command(
        "bench_changes",
        "--entries=40",
        "--history=10",
        "--runs=2",
        "--events=1100",
        "--rounds=1",
        stdout=out,
    )
    summary = json.loads(out.getvalue().splitlines()[-1])
    forget, feed = summary["forget"], summary["feed"]
    assert forget["events_per_forget"] == {"0": 0, "10": 10}
    assert forget["forget_10_recipients_ms"]["p50"] > 0
    assert feed["full_pages_read"] == 2 and feed["events_per_s_overall"] > 0
    assert not ChangeEvent.objects.exists() and not RecallRecord.objects.exists()
    assert not MemoryEntry.objects.exists()
