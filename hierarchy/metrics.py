"""OpenTelemetry instruments of the memory hierarchy, named as seed 004's table.

Without an SDK and exporter configured the API hands out no-op instruments, so nothing
here can raise because telemetry is absent. Attributes stay low-cardinality: buckets,
enums, never ids. Instruments are looked up per call (cheap) so a meter provider set
after import, as a test does, is honoured.
"""

import logging

from opentelemetry import metrics

logger = logging.getLogger(__name__)
METER_NAME = "iris.hierarchy"

COUNTERS = {
    "memory.stm.writes": "Short-term rows written (attribute: scope_kind).",
    "memory.stm.reads": "Short-term reads (attribute: row_count_bucket 0 | 1+).",
    "memory.stm.deletes": "Short-term rows hard-deleted.",
    "memory.stm.expired": "Short-term rows expired (scope_kind, reason).",
    "memory.stm.consolidated": "Short-term rows consolidated (trigger, scope_kind).",
    "memory.bundle.resolved": "Context bundles resolved (query_provided).",
    "memory.ltm.consolidation": "Long-term writes from consolidation (trigger, scope_kind).",
}
HISTOGRAMS = {
    "memory.bundle.latency_ms": "Context bundle latency (query_provided and count buckets).",
}


def _meter():
    return metrics.get_meter(METER_NAME)


def count_bucket(count: int) -> str:
    return "0" if count <= 0 else "1+"


def size_bucket(count: int) -> str:
    if count <= 0:
        return "0"
    if count <= 5:
        return "1-5"
    if count <= 20:
        return "6-20"
    return "21+"


def increment(name: str, amount: int = 1, **attributes: str) -> None:
    if name not in COUNTERS:
        raise ValueError(f"unknown hierarchy counter {name!r}")
    try:
        _meter().create_counter(name, unit="1", description=COUNTERS[name]).add(amount, attributes)
    except Exception:  # telemetry never breaks a code path
        logger.debug("metric %s not recorded", name, exc_info=True)


def record(name: str, value: float, **attributes: str) -> None:
    if name not in HISTOGRAMS:
        raise ValueError(f"unknown hierarchy histogram {name!r}")
    try:
        _meter().create_histogram(name, unit="ms", description=HISTOGRAMS[name]).record(
            value, attributes
        )
    except Exception:
        logger.debug("metric %s not recorded", name, exc_info=True)
