"""Metrics that leave the process: what the environment turns on (pure), and the
Prometheus endpoint read over real HTTP after real requests, carrying the eight seed
metrics and nothing else of the member's."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hierarchy.consolidation import stm_age_consolidation_run, stm_consolidate
from hierarchy.models import ShortTermMemory
from hierarchy.stm import stm_expire_due
from iris_site.services import token_issue
from iris_site.telemetry import TelemetryPlan, telemetry_plan
from tests.hierarchy.stm_factories import member_with, service_actor, write
from tests.iris_site.factories import ServiceClientFactory

SCRAPE_TOKEN = "scrape-secret-for-the-test"
SEED_METRICS = (
    "memory_stm_writes",
    "memory_stm_reads",
    "memory_stm_deletes",
    "memory_stm_expired",
    "memory_stm_consolidated",
    "memory_bundle_resolved",
    "memory_bundle_latency_ms",
    "memory_ltm_consolidation",
)


@pytest.mark.parametrize(
    ("environ", "plan"),
    [
        ({}, TelemetryPlan()),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
            TelemetryPlan(otlp_metrics=True, otlp_traces=True),
        ),
        (
            {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://collector:4318/v1/metrics"},
            TelemetryPlan(otlp_metrics=True),
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"},
            TelemetryPlan(otlp_metrics=True),
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"},
            TelemetryPlan(),
        ),
    ],
)
def test_the_standard_environment_decides_what_is_exported(environ, plan):
    assert telemetry_plan(environ, prometheus=False) == plan


def test_prometheus_is_off_when_the_sdk_is_disabled():
    assert telemetry_plan({"OTEL_SDK_DISABLED": "1"}, prometheus=True) == TelemetryPlan()
    assert telemetry_plan({}, prometheus=True) == TelemetryPlan(prometheus=True)


def _scrape(live_server, token=SCRAPE_TOKEN):
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{live_server.url}/metrics")  # noqa: S310
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.django_db(transaction=True)
def test_the_endpoint_is_off_unless_enabled_and_needs_its_token(live_server, settings):
    settings.IRIS_METRICS_ENDPOINT, settings.IRIS_METRICS_TOKEN = False, SCRAPE_TOKEN
    assert _scrape(live_server)[0] == 404
    settings.IRIS_METRICS_ENDPOINT = True
    assert _scrape(live_server, token=None)[0] == 401
    assert _scrape(live_server, token="wrong")[0] == 401
    assert _scrape(live_server)[0] == 200


@pytest.mark.django_db(transaction=True)
def test_the_eight_seed_metrics_are_scraped_after_real_requests(live_server, settings):
    from tests.conftest import http_request

    settings.IRIS_METRICS_ENDPOINT, settings.IRIS_METRICS_TOKEN = True, SCRAPE_TOKEN
    member = member_with()
    _, token = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    base = f"{live_server.url}/api/v1/members/{member.pk}"
    body = {
        "scope_kind": "user_session",
        "scope_id": "s-1",
        "category": "preference",
        "content": "prefers morning walks by the canal",
    }
    # Real requests: a short-term write, a read of its scope, a context bundle.
    written = http_request(f"{base}/short-term/", method="POST", token=token, body=body)
    assert written.status == 201, written.body
    read = http_request(f"{base}/short-term/?scope_id=s-1&context=general", token=token)
    assert read.status == 200, read.body
    bundle = http_request(
        f"{base}/context-bundle/",
        method="POST",
        token=token,
        body={"scope_id": "s-1", "query": "walks"},
    )
    assert bundle.status == 200, bundle.body
    # The jobs' part, in this process (the worker's metrics reach a collector by OTLP).
    stm_consolidate(stm_id=ShortTermMemory.objects.get().pk, actor=service_actor())
    soon = write(member, scope_kind="agent_run", now=timezone.now() - timedelta(minutes=5))
    stm_age_consolidation_run()  # an agent run's row about to expire is dropped
    stm_expire_due(now=soon.ttl_expires + timedelta(seconds=1))

    status, text = _scrape(live_server)

    assert status == 200
    names = {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line[:1] != "#"}
    missing = [m for m in SEED_METRICS if not any(n.startswith(m) for n in names)]
    assert missing == [], sorted(n for n in names if n.startswith("memory"))
    assert "canal" not in text and str(member.pk) not in text
