"""What every recall benchmark measures with and cleans up after: timing and percentiles,
a savepoint whose writes roll back, the WSGI application on 127.0.0.1 sharing this
thread's connection, the planner's statistics after bulk writes, deleting a synthetic
member, and the guard that the configured database is a scratch one."""

from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.handlers.wsgi import WSGIHandler
from django.core.management.base import CommandError
from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection, connections, transaction

from iris_site.appendonly import purge_bypass
from iris_site.models import Tenant, TenantMembership, User
from memory.models import (
    MemoryCorpusShard,
    MemoryEntry,
    MemoryEntryTerm,
    MemoryRevision,
    MemoryStem,
    RecallRecord,
)


def ms(seconds: float) -> float:
    return round(seconds * 1000.0, 2)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": ms(statistics.median(ordered)), "p95": ms(p95)}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


@contextmanager
def rolled_back() -> Iterator[None]:
    """Run a block whose writes are undone (a savepoint inside the open transaction)."""
    savepoint = transaction.savepoint_create()
    try:
        yield
    finally:
        transaction.savepoint_rollback(savepoint)


class SharedConnectionServer:
    """The WSGI application on 127.0.0.1 in a thread that uses this thread's database
    connection, so HTTP recalls see the benchmark's data and their writes roll back
    with it (what Django's live server does for an in-memory database)."""

    def __init__(self) -> None:
        self.server = WSGIServer(("127.0.0.1", 0), _QuietHandler, allow_reuse_address=False)
        self.server.set_app(WSGIHandler())
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self._connection = connections["default"]  # the object, not the thread-local proxy

    def _serve(self) -> None:
        connections["default"] = self._connection
        self.server.serve_forever(poll_interval=0.05)

    def __enter__(self) -> SharedConnectionServer:
        # Django would close the shared connection after each request (it is inside a
        # transaction, so it looks "unusable" to close_old_connections).
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        self._connection.inc_thread_sharing()
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
        self._connection.dec_thread_sharing()
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


def post(url: str, token: str, payload: dict) -> dict:
    request = urllib.request.Request(  # noqa: S310 - always http://127.0.0.1
        url,
        data=json.dumps(payload).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        return json.loads(response.read())


def vacuum_analyze(*, vacuum: bool = True) -> None:
    """What autovacuum would have done after the bench's writes: the planner's statistics
    of the memory tables (and, outside a transaction, their visibility map). ``vacuum``
    False inside a transaction, where PostgreSQL analyzes the transaction's own rows."""
    if connection.vendor != "postgresql":
        return
    tables = [
        m._meta.db_table
        for m in (MemoryEntry, MemoryRevision, MemoryEntryTerm, MemoryStem, MemoryCorpusShard)
    ]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"{'VACUUM ANALYZE' if vacuum else 'ANALYZE'} {table}")


def cleanup(member_id, tenant_id) -> None:
    with transaction.atomic(), purge_bypass(MemoryRevision):
        MemoryEntryTerm.objects.filter(entry__member_id=member_id).delete()
        RecallRecord.objects.filter(member_id=member_id).delete()
        MemoryStem.objects.filter(member_id=member_id).delete()
        MemoryCorpusShard.objects.filter(member_id=member_id).delete()
        entries = MemoryEntry.objects.filter(member_id=member_id)
        entries.update(revision=None)
        MemoryRevision.objects.filter(member_id=member_id).delete()
        entries.delete()
        TenantMembership.objects.filter(user_id=member_id).delete()
        # Straight DELETEs: the synthetic member and tenant own nothing else any more,
        # and the ORM's cascade would visit every table that could point at a user.
        with connection.cursor() as cursor:
            for model, pk in ((User, member_id), (Tenant, tenant_id)):
                table, key = model._meta.db_table, model._meta.pk
                value = key.get_db_prep_value(pk, connection)  # a UUID as this database keeps it
                cursor.execute(f'DELETE FROM "{table}" WHERE "{key.column}" = %s', [value])  # noqa: S608


def require_scratch_database() -> None:
    """The benchmarks write (and roll back or delete) on the configured database: on
    PostgreSQL only one named for it (``*bench*`` or ``*scratch*``)."""
    name = str(connection.settings_dict.get("NAME") or "")
    if connection.vendor == "postgresql" and not ("bench" in name or "scratch" in name):
        raise CommandError(
            f"bench_recall writes to the database: {name!r} is not a bench or scratch one "
            "(its name must contain 'bench' or 'scratch')."
        )
