"""The access log, without content: one line per request naming the route, never the
path or the query string (member search terms, subjects and ids in operator paths,
justifications would otherwise land in every log line).

`AccessLogMiddleware` writes the only access line, for every server that runs Django
(runserver, gunicorn: keep gunicorn's own access log off). `DropServerRequestLines` takes
runserver's own request lines (`django.server`, which print the raw request line) out of
the log; its other messages (errors, broken pipes) stay.
"""

import logging
import time

logger = logging.getLogger("iris.access")


def route_of(request) -> str:
    """The route's name (`memory:index`), else its pattern; `-` where none matched."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "-"
    return match.view_name or match.route or "-"


class AccessLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        logger.info(
            "%s %s %s %.0fms",
            request.method,
            route_of(request),
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
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
    """Django's own request log (`django.request`: "Not Found: /path", "Bad Request: …")
    names the route instead of the path."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        args = record.args
        if request is not None and isinstance(args, tuple) and len(args) == 2:
            record.args = (args[0], route_of(request))
        return True
