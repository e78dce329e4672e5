"""``manage.py bench_webhooks``: how fast one worker delivers change events by webhook
(issue 44, "Must show": events delivered per second to a loopback receiver).

1. **One endpoint**: N `memory.forgotten` events (spread over a few members) for one
   consumer whose service client has an endpoint at a loopback receiver (an
   `http.server` in a thread on 127.0.0.1, answering 204). Passes of the delivery
   (`webhook_deliveries_run`, which the scheduled task repeats for up to 40 s while they
   deliver) run back to back until every event is delivered: events per second
   over the whole (making the deliveries, planning, signing with the Standard Webhooks
   library, a new TCP connection per POST through the SSRF-guarded transport, writing
   the outcome), and each delivery's attempt (claim, sign, POST, record) at p50 / p95.
2. **Four endpoints**, N events each: the same, and the per-run fairness: how many each
   endpoint was sent per run, and the longest stretch of other endpoints' deliveries
   the receivers saw between two of one endpoint's (round-robin: at most 3).

Plain HTTP to 127.0.0.1 needs `DEBUG` and the allow-list: both are overridden for the
bench only (`DEBUG` also makes Django keep each query's SQL, a small added cost).
Everything is written inside a transaction that is rolled back, on a scratch database
(`require_scratch_database`). Ids and counts only are printed.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from unittest import mock

from django.core.management.base import OutputWrapper
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.models import ServiceClient
from memory.bench.harness import percentiles, require_scratch_database
from memory.enums import ChangeType
from memory.models import ChangeEvent
from webhooks import delivery
from webhooks.enums import DeliveryState
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import webhook_endpoint_set

MEMBERS = 20  # events are spread over this many members (per-member order holds)
MAX_RUNS = 10_000


class LoopbackReceiver:
    """Answers every POST with 204 and notes, in order, which endpoint (path) it was for."""

    def __init__(self) -> None:
        arrivals: list[str] = []
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                with lock:
                    arrivals.append(self.path)
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

        self.arrivals = arrivals
        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{path}"

    def __enter__(self) -> LoopbackReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def _timed_attempts() -> Iterator[list[float]]:
    """Each delivery attempt's seconds, as `webhooks.delivery` makes it."""
    samples: list[float] = []
    attempt = delivery._attempt

    def timed(delivery_id, now):
        started = time.perf_counter()
        result = attempt(delivery_id, now)
        if result is not None:
            samples.append(time.perf_counter() - started)
        return result

    with mock.patch.object(delivery, "_attempt", timed):
        yield samples


def _endpoints(receiver: LoopbackReceiver, consumers: list[str]) -> dict[str, str]:
    """A service client with an endpoint for each consumer: consumer → its path."""
    # Only the bench's endpoints take part (rolled back with the rest).
    WebhookEndpoint.objects.update(is_active=False)
    paths = {}
    for consumer in consumers:
        client = ServiceClient.objects.create(
            consumer=consumer, label=f"bench-{uuid.uuid4().hex[:12]}"
        )
        paths[consumer] = f"hook-{consumer}"
        webhook_endpoint_set(
            service_client=client, url=receiver.url(paths[consumer]), actor=Actor.system("bench")
        )
    return paths


def _events(consumer: str, count: int) -> None:
    members = [uuid.uuid4() for _ in range(MEMBERS)]
    now = timezone.now()
    ChangeEvent.objects.bulk_create(
        (
            ChangeEvent(
                member_id=members[i % MEMBERS],
                consumer=consumer,
                type=ChangeType.MEMORY_FORGOTTEN,
                entry_ids=[str(uuid.uuid4())],
                revision_ids=[str(uuid.uuid4())],
                occurred_at=now,
            )
            for i in range(count)
        ),
        batch_size=1000,
    )


def _longest_wait(arrivals: list[str]) -> int:
    """The most deliveries to other endpoints between two consecutive ones of one
    endpoint, while both still had events waiting (the tail, when only one is left,
    is not a wait)."""
    last: dict[str, int] = {}
    longest = 0
    for index, path in enumerate(arrivals):
        if path in last:
            longest = max(longest, index - last[path] - 1)
        last[path] = index
    return longest


def delivery_throughput(*, events: int, endpoints: int) -> dict[str, Any]:
    """Deliver `events` events to each of `endpoints` endpoints by back-to-back runs."""
    consumers = [c.value for c in Consumer][:endpoints]
    with LoopbackReceiver() as receiver, _timed_attempts() as attempts:
        paths = _endpoints(receiver, consumers)
        for consumer in consumers:
            _events(consumer, events)
        total = events * endpoints
        per_run: list[dict[str, int]] = []
        runs, delivered, failed = 0, 0, 0
        started = time.perf_counter()
        while delivered < total and runs < MAX_RUNS:
            before = len(receiver.arrivals)
            counts = delivery.webhook_deliveries_run()
            runs += 1
            delivered += counts["delivered"]
            failed += counts["failed"]
            this_run: dict[str, int] = defaultdict(int)
            for path in receiver.arrivals[before:]:
                this_run[path] += 1
            per_run.append(this_run)
            if counts["delivered"] == 0 and counts["failed"] == 0:
                break
        seconds = time.perf_counter() - started
    left = WebhookDelivery.objects.filter(state=DeliveryState.PENDING).count()
    assert delivered == total and left == 0 and failed == 0, (delivered, total, left, failed)
    arrivals = receiver.arrivals
    attempt = percentiles(attempts)
    return {
        "endpoints": endpoints,
        "events_per_endpoint": events,
        "delivered": delivered,
        "runs": runs,
        "seconds": round(seconds, 2),
        "events_per_s": round(delivered / seconds, 0),
        "attempt_ms": attempt,
        "run_ms_mean": round(1000 * seconds / runs, 1),
        # What one endpoint was sent in a run (every count seen), and the runs in which
        # the endpoints were not sent the same number (or not all sent to).
        "sent_per_endpoint_per_run": sorted({n for r in per_run for n in r.values()}),
        "uneven_runs": sum(1 for r in per_run if len(set(r.values())) > 1 or len(r) < endpoints),
        "longest_wait_behind_others": _longest_wait(arrivals) if endpoints > 1 else 0,
        "every_endpoint_reached": sorted(f"/{p}" for p in paths.values()) == sorted(set(arrivals)),
    }


def bench_webhooks_run(options: dict, *, out: OutputWrapper) -> None:
    require_scratch_database()
    summary: dict[str, Any] = {}
    with (
        override_settings(DEBUG=True, IRIS_WEBHOOK_ALLOWED_HOSTS=["127.0.0.1"]),
        transaction.atomic(),
    ):
        try:
            started = time.perf_counter()
            for endpoints in options["endpoints"]:
                # Each case starts from no events and no deliveries (all rolled back).
                WebhookDelivery.objects.all().delete()
                ChangeEvent.objects.all().delete()
                result = delivery_throughput(events=options["events"], endpoints=endpoints)
                summary[f"{endpoints}_endpoints"] = result
                out.write(f"{endpoints} endpoint(s): {json.dumps(result)}")
            summary["seconds"] = round(time.perf_counter() - started, 1)
        finally:
            transaction.set_rollback(True)
    summary["per_endpoint_sends_per_run"] = delivery.PER_ENDPOINT_SENDS
    out.write(json.dumps(summary))


__all__ = ["LoopbackReceiver", "bench_webhooks_run", "delivery_throughput"]
