"""OpenTelemetry instruments named exactly as seed 004's table, read with an in-memory
reader; without an SDK they are silent no-ops."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from hierarchy import metrics as hierarchy_metrics
from hierarchy.bundle import get_context_bundle
from hierarchy.consolidation import stm_age_consolidation_run, stm_consolidate
from hierarchy.stm import stm_expire_due, stm_read, stm_reader
from memory.access.capabilities import capabilities_for
from tests.conftest import TEST_METRICS
from tests.hierarchy.stm_factories import member_with, service_actor, write

SEED_NAMES = {
    "memory.stm.writes",
    "memory.stm.reads",
    "memory.stm.deletes",
    "memory.stm.expired",
    "memory.stm.consolidated",
    "memory.bundle.resolved",
    "memory.bundle.latency_ms",
    "memory.ltm.consolidation",
}


@pytest.fixture
def reader():
    # The test process's one provider (tests/conftest.py); what earlier tests recorded
    # is read away first.
    TEST_METRICS.get_metrics_data()
    return TEST_METRICS


def collected(reader) -> dict[str, list]:
    data = reader.get_metrics_data()
    found: dict[str, list] = {}
    for resource in data.resource_metrics if data else ():
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                found.setdefault(metric.name, []).extend(metric.data.data_points)
    return found


def test_the_instrument_names_are_the_seeds():
    assert set(hierarchy_metrics.COUNTERS) | set(hierarchy_metrics.HISTOGRAMS) == SEED_NAMES


def test_unknown_instruments_are_a_programming_error():
    with pytest.raises(ValueError):
        hierarchy_metrics.increment("memory.stm.oops")


@pytest.mark.django_db
def test_each_surface_emits_its_metric_with_low_cardinality_attributes(reader):
    # given
    cache.clear()
    member = member_with()
    actor = service_actor()
    # when: every instrumented path runs once
    row = write(member)
    capabilities = capabilities_for("assistant")
    gate_reader = stm_reader(
        member_id=member.pk, capabilities=capabilities, client_id=actor.id, context="general"
    )
    stm_read(member_id=member.pk, scope_id="s-1", reader=gate_reader, actor=actor)
    get_context_bundle(
        member=member, scope_id="s-1", actor=actor, capabilities=capabilities, query="x"
    )
    stm_consolidate(stm_id=row.pk, actor=actor)
    soon = write(member, scope_kind="agent_run", now=timezone.now() - timedelta(minutes=5))
    stm_age_consolidation_run()
    stm_expire_due(now=soon.ttl_expires + timedelta(seconds=1))
    # then
    found = collected(reader)
    assert set(found) >= SEED_NAMES
    writes = {p.attributes["scope_kind"] for p in found["memory.stm.writes"]}
    assert {"user_session", "agent_run"} <= writes
    assert {p.attributes["row_count_bucket"] for p in found["memory.stm.reads"]} <= {"0", "1+"}
    assert {p.attributes["reason"] for p in found["memory.stm.expired"]} == {"age_triggered_drop"}
    triggers = {p.attributes["trigger"] for p in found["memory.stm.consolidated"]}
    assert "explicit" in triggers
    [latency] = found["memory.bundle.latency_ms"]
    assert set(latency.attributes) == {
        "query_provided",
        "stm_count_bucket",
        "ltm_count_bucket",
        "episodic_count_bucket",
    }
    assert {p.attributes["query_provided"] for p in found["memory.bundle.resolved"]} == {"true"}
