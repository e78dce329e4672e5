"""Metrics and traces that leave the process: the OpenTelemetry SDK, configured once per
process from the standard `OTEL_*` environment, plus an optional Prometheus scrape
endpoint for operators.

- **OTLP** (metrics and traces) when an OTLP endpoint is named
  (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the per-signal `..._METRICS_ENDPOINT` /
  `..._TRACES_ENDPOINT`) and the signal's `OTEL_METRICS_EXPORTER` /
  `OTEL_TRACES_EXPORTER` is not `none`; the exporters read the rest of the `OTEL_*`
  variables (headers, protocol, timeout) themselves, and `OTEL_SERVICE_NAME` /
  `OTEL_RESOURCE_ATTRIBUTES` name the resource (service `iris` by default). Every process
  (web, task worker, scheduler) pushes its own, so a collector sees them all.
- **Prometheus** when `IRIS_METRICS_ENDPOINT=true` and `IRIS_METRICS_TOKEN` is set:
  `GET /metrics` with `Authorization: Bearer <token>` answers the web process's metrics
  in the text exposition format (the worker's reach a collector through OTLP).
- **Traces**: with an OTLP traces endpoint, requests get spans from the Django
  instrumentation and PostgreSQL statements from the psycopg one (statement text only,
  never parameters).
- `OTEL_SDK_DISABLED=true` turns all of it off. With nothing configured the API stays
  a no-op, as before, and no code path can fail because telemetry is absent.
"""

import hmac
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from iris_site.api.exceptions import error_body
from iris_site.api.gated import content_free

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TelemetryPlan:
    """What this process exports (pure: decided from the environment)."""

    otlp_metrics: bool = False
    otlp_traces: bool = False
    prometheus: bool = False

    @property
    def anything(self) -> bool:
        return self.otlp_metrics or self.otlp_traces or self.prometheus


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def telemetry_plan(environ: Mapping[str, str], *, prometheus: bool) -> TelemetryPlan:
    if _truthy(environ.get("OTEL_SDK_DISABLED")):
        return TelemetryPlan()
    endpoint = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")

    def otlp(signal: str) -> bool:
        named = endpoint or environ.get(f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")
        return bool(named) and environ.get(f"OTEL_{signal}_EXPORTER", "otlp") != "none"

    return TelemetryPlan(
        otlp_metrics=otlp("METRICS"), otlp_traces=otlp("TRACES"), prometheus=prometheus
    )


_configured = False


def telemetry_setup(plan: TelemetryPlan, *, extra_readers: Iterable = ()) -> None:
    """Install the SDK's providers for this process, once (OpenTelemetry's global
    providers can be set only once per process)."""
    global _configured
    extra_readers = list(extra_readers)
    if _configured or not (plan.anything or extra_readers):
        return
    _configured = True
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource

    resource = Resource.create({SERVICE_NAME: os.environ.get("OTEL_SERVICE_NAME", "iris")})
    readers = extra_readers
    if plan.prometheus:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader

        readers.append(PrometheusMetricReader())
    if plan.otlp_metrics:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        readers.append(PeriodicExportingMetricReader(OTLPMetricExporter()))
    if readers:
        metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=readers))
    if plan.otlp_traces:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        provider = TracerProvider(resource=resource)
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        trace.set_tracer_provider(provider)
        DjangoInstrumentor().instrument()
        PsycopgInstrumentor().instrument(enable_commenter=False)
    logger.info(
        "telemetry: otlp metrics %s, otlp traces %s, prometheus %s",
        plan.otlp_metrics,
        plan.otlp_traces,
        plan.prometheus,
    )


def telemetry_setup_from_environment() -> None:
    telemetry_setup(
        telemetry_plan(
            os.environ,
            prometheus=settings.IRIS_METRICS_ENDPOINT and bool(settings.IRIS_METRICS_TOKEN),
        )
    )


@content_free
@require_GET
def metrics_view(request):
    """Prometheus scrape endpoint: off unless enabled; a bearer token it compares in
    constant time. Metric names and low-cardinality attributes only, never content."""
    expected = settings.IRIS_METRICS_TOKEN
    if not (settings.IRIS_METRICS_ENDPOINT and expected):
        return JsonResponse(error_body("not_found", "Not found."), status=404)
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.encode(), expected.encode()):
        response = JsonResponse(
            error_body("not_authenticated", "The scrape token is missing or wrong."), status=401
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
