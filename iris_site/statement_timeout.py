"""A ceiling on every SQL statement a request runs (PostgreSQL): no one request's
statement can hold a connection and a core for longer than `IRIS_STATEMENT_TIMEOUT_MS`
(a recall's statements take milliseconds; a long one is cut and answered 503, retry).

It is set once on each database connection a request uses: when a request opens it
(`connection_created`), or at the start of the first request that finds it open without
the ceiling (opened earlier outside a request, in a thread that now serves). Kept
connections (`CONN_MAX_AGE`) therefore cost no statement per request. The task worker,
the scheduler and management commands open theirs outside any request and run without
it: an export or a migration may take longer.
"""

import contextvars
import weakref

from django.conf import settings
from django.db import connections
from django.db.backends.signals import connection_created
from django.dispatch import receiver

_serving = contextvars.ContextVar("iris_serving_request", default=False)
# The driver connections that carry the ceiling (they go with their connection).
_limited: weakref.WeakSet = weakref.WeakSet()


def _limit(connection) -> None:
    milliseconds = settings.IRIS_STATEMENT_TIMEOUT_MS
    if not milliseconds or connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('statement_timeout', %s, false)", [f"{milliseconds}ms"])
    _limited.add(connection.connection)


@receiver(connection_created, dispatch_uid="iris_site.statement_timeout")
def statement_timeout_set(sender, connection, **kwargs) -> None:
    if _serving.get():
        _limit(connection)


class StatementTimeoutMiddleware:
    """Marks what runs inside a request, so the connections it uses get the ceiling."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        for connection in connections.all(initialized_only=True):
            if connection.connection is not None and connection.connection not in _limited:
                _limit(connection)  # opened before, outside a request
        token = _serving.set(True)
        try:
            return self.get_response(request)
        finally:
            _serving.reset(token)
