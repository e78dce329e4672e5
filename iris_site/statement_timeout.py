"""A ceiling on every SQL statement a request runs (PostgreSQL): no one request's
statement can hold a connection and a core for longer than `IRIS_STATEMENT_TIMEOUT_MS`
(a recall's statements take milliseconds; a long one is cut and answered 503, retry).

It is set once on each database connection a request opens (`connection_created`), so
it costs no statement per request where connections are kept (`CONN_MAX_AGE`). The task
worker, the scheduler and management commands open theirs outside any request and run
without it: an export or a migration may take longer.
"""

import contextvars

from django.conf import settings
from django.db.backends.signals import connection_created
from django.dispatch import receiver

_serving = contextvars.ContextVar("iris_serving_request", default=False)


@receiver(connection_created, dispatch_uid="iris_site.statement_timeout")
def statement_timeout_set(sender, connection, **kwargs) -> None:
    milliseconds = settings.IRIS_STATEMENT_TIMEOUT_MS
    if milliseconds and connection.vendor == "postgresql" and _serving.get():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT set_config('statement_timeout', %s, false)", [f"{milliseconds}ms"]
            )


class StatementTimeoutMiddleware:
    """Marks what runs inside a request, so the connections it opens get the ceiling."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = _serving.set(True)
        try:
            return self.get_response(request)
        finally:
            _serving.reset(token)
