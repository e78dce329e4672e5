"""`bench_webhooks` measures what it says on a small run: every event is delivered to the
loopback receiver by runs of the task, at most 50 per endpoint per run, the endpoints
taking turns, and nothing it wrote is left behind (an endpoint set before it is as it was)."""

import io
import json

import pytest
from django.core.management import call_command

from iris_site.models import AuditEvent, ServiceClient
from memory.models import ChangeEvent
from tests.webhooks.factories import endpoint_for
from webhooks.models import WebhookDelivery, WebhookEndpoint

pytestmark = pytest.mark.django_db


def test_a_small_run_delivers_everything_fairly_and_leaves_nothing(monkeypatch, webhook_settings):
    # The test database is a scratch one whatever its name (on PostgreSQL, test_<name>).
    monkeypatch.setattr("webhooks.bench.require_scratch_database", lambda: None)
    before, _ = endpoint_for("http://127.0.0.1:9/hook")
    clients, audits = ServiceClient.objects.count(), AuditEvent.objects.count()
    out = io.StringIO()
    call_command("bench_webhooks", "--events=120", "--endpoints", "1", "4", stdout=out)
    summary = json.loads(out.getvalue().splitlines()[-1])
    one, four = summary["1_endpoints"], summary["4_endpoints"]
    assert one["delivered"] == 120 and one["runs"] == 3  # 50 a run: 50, 50, 20
    assert four["delivered"] == 480 and four["runs"] == 3
    assert four["sent_per_endpoint_per_run"] == [20, 50] and four["uneven_runs"] == 0
    assert four["longest_wait_behind_others"] == 3  # round-robin: one turn of each other
    assert one["every_endpoint_reached"] and four["every_endpoint_reached"]
    assert one["events_per_s"] > 0 and one["attempt_ms"]["p95"] >= one["attempt_ms"]["p50"] > 0
    assert not ChangeEvent.objects.exists() and not WebhookDelivery.objects.exists()
    assert ServiceClient.objects.count() == clients and AuditEvent.objects.count() == audits
    assert list(WebhookEndpoint.objects.values_list("pk", "is_active")) == [(before.pk, True)]
