"""The access log, without content: one line per request naming the route, never the
path or the query string (member search terms, subjects and ids in operator paths,
justifications would otherwise land in every log line).

`AccessLogMiddleware` writes the only access line, for every server that runs Django
(runserver, gunicorn: keep gunicorn's own access log off): method, route name, status,
duration and the number of SQL statements the request issued, e.g.
``POST members:recall 200 23ms 7q``. With ``IRIS_SERVER_TIMING`` on it also answers a
``Server-Timing`` header (W3C Server Timing) with the statements' count and time.
`DropServerRequestLines` takes runserver's own request lines (`django.server`, which
print the raw request line) out of the log; its other messages (errors, broken pipes)
stay.
"""

import logging
import time
from contextlib import ExitStack

from django.conf import settings
from django.db import connections

logger = logging.getLogger("iris.access")


def route_of(request) -> str:
    """The route's name (`memory:index`), else its pattern; `-` where none matched."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "-"
    return match.view_name or match.route or "-"


class StatementCounter:
    """An execute wrapper (`connection.execute_wrapper`, Django's documented hook): counts
    the statements run through it and the time spent in them. An ``executemany`` is one
    statement, as Django's own query log counts it."""

    __slots__ = ("seconds", "statements")

    def __init__(self) -> None:
        self.statements = 0
        self.seconds = 0.0

    def __call__(self, execute, sql, params, many, context):
        self.statements += 1
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started


def server_timing(counter: StatementCounter, total_seconds: float) -> str:
    """The ``Server-Timing`` value: the database's share, the count in its description,
    and the whole request (`memory.bench.load_clients` reads it back)."""
    count = counter.statements
    return (
        f'db;dur={counter.seconds * 1000:.1f};desc="{count} statement{"" if count == 1 else "s"}", '
        f"total;dur={total_seconds * 1000:.1f}"
    )


class AccessLogMiddleware:
    """Outermost: times the request and counts its SQL statements on every database
    connection of its thread, sessions, authentication and refusals included (a
    streaming response's body runs after the count is taken)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        counter = StatementCounter()
        started = time.perf_counter()
        with ExitStack() as wrappers:
            for connection in connections.all():
                wrappers.enter_context(connection.execute_wrapper(counter))
            response = self.get_response(request)
        elapsed = time.perf_counter() - started
        logger.info(
            "%s %s %s %.0fms %dq",
            request.method,
            route_of(request),
            response.status_code,
            elapsed * 1000,
            counter.statements,
        )
        if settings.IRIS_SERVER_TIMING:
            response["Server-Timing"] = server_timing(counter, elapsed)
        return response


class DropServerRequestLines(logging.Filter):
    """runserver logs each request with its raw request line and a `status_code`."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not hasattr(record, "status_code")


class QuietJobs(logging.Filter):
    """Below WARNING, nothing from the task worker and the scheduler, unless verbose."""

    # The worker's and the scheduler's own loggers, the scheduler library under
    # crontask, and the autoreloader the worker runs under DEBUG.
    JOB_LOGGERS = (
        "django.tasks",
        "django_tasks",
        "django_tasks_db",
        "crontask",
        "apscheduler",
        "django.utils.autoreload",
    )

    def __init__(self, verbose: bool = False) -> None:
        super().__init__()
        self.verbose = verbose

    def filter(self, record: logging.LogRecord) -> bool:
        if self.verbose or record.levelno >= logging.WARNING:
            return True
        return not record.name.startswith(self.JOB_LOGGERS)


class RouteNotPath(logging.Filter):
    """Django's own request log (`django.request`: "Not Found: /path", "Forbidden
    (Permission denied): /path", "Bad Request: …") names the route instead of the path,
    which is its message's last argument."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        args = record.args
        if request is not None and isinstance(args, tuple) and args:
            record.args = (*args[:-1], route_of(request))
        return True


class RefusalsInOneLine(logging.Filter):
    """A refusal (403, 404, any 4xx) is the caller's answer, not a fault: one line, without
    the traceback Django attaches when a view raised it (`PermissionDenied`). A 5xx keeps
    its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if 400 <= getattr(record, "status_code", 0) < 500:
            record.exc_info = record.exc_text = None
        return True
