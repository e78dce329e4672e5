"""Request guards that run before any view: body size and authentication attempts; and
the faults of encryption at rest (a key store that is down: 503; a sealed value that
fails authentication: an operator alert, counted and audited once per request)."""

import contextvars
import logging
import math
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from iris_site.api.exceptions import (
    KEY_STORE_RETRY_SECONDS,
    KEY_STORE_UNAVAILABLE,
    error_body,
    key_store_unavailable,
)
from iris_site.api.throttles import LoginRateThrottle, client_ip
from iris_site.budgets import failed_auth_record, failed_auth_wait
from iris_site.keys.store import KeyStoreUnavailable

logger = logging.getLogger(__name__)


class RequestSizeLimitMiddleware:
    """413 with the error envelope for bodies over DATA_UPLOAD_MAX_MEMORY_SIZE.

    Django enforces that limit only when `request.body` is read; DRF's parsers read the
    stream directly, so without this a 10 MB JSON body would be parsed in full.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is not None and length > limit:
            return JsonResponse(
                error_body(
                    "request_too_large",
                    f"The request body is {length} bytes; the limit is {limit} bytes.",
                ),
                status=413,
            )
        return self.get_response(request)


class RequestEncodingMiddleware:
    """400 with the error envelope for a query string that is not UTF-8 text, or a path
    or query string holding a NUL.

    Django decodes query strings leniently (bad bytes become U+FFFD, `%00` a NUL), so a
    view would otherwise search for a replacement character or hand a NUL to PostgreSQL,
    which refuses it (a 500) where SQLite would not. Bad bytes in the path are re-quoted
    by Django (`%FF`) and simply match no route.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path_info:
            return self.refuse("The path contains a null character.")
        query = unquote_to_bytes(request.META.get("QUERY_STRING", "").replace("+", " "))
        try:
            text = query.decode("utf-8")
        except UnicodeDecodeError:
            return self.refuse("The query string is not valid UTF-8.")
        if "\x00" in text:
            return self.refuse("The query string contains a null character.")
        return self.get_response(request)

    @staticmethod
    def refuse(message: str) -> JsonResponse:
        return JsonResponse(error_body("malformed_request", message), status=400)


class AuthenticationRateLimitMiddleware:
    """Per-IP limits on attempts to authenticate, which DRF's throttles never see.

    The sign-in forms are plain Django views, and DRF checks its throttles only after
    authentication and permissions, so a request with a missing or wrong bearer token is
    answered 401 before any throttle runs. Here, per client IP:

    - every POST to a sign-in form counts against `IRIS_RATE_LOGIN` (the `login` scope);
    - every answer of 401 from the API or `/metrics` counts against the failed-
      authentication budget (`iris_site.budgets`, `IRIS_RATE_ANON`), the one the MCP
      server's 401s count against too; once an address has used it up, its API,
      `/metrics` and MCP requests are refused until the window moves on.

    Refusals are 429 with `Retry-After`: the error envelope under /api/ and on
    `/metrics`, a page elsewhere. Locking one account after repeated wrong passwords is
    django-axes' job.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self._login_paths: frozenset[str] | None = None

    def login_paths(self) -> frozenset[str]:
        if self._login_paths is None:
            self._login_paths = frozenset({reverse("login"), reverse("admin:login")})
        return self._login_paths

    def __call__(self, request):
        if request.method == "POST" and request.path_info in self.login_paths():
            throttle = LoginRateThrottle()
            if not throttle.allow_request(request, None):
                return too_many_attempts_response(request, throttle.wait())
            return self.get_response(request)
        if not _answers_json(request.path_info):
            return self.get_response(request)

        ip = client_ip(request)
        wait = failed_auth_wait(ip)
        if wait is not None:
            return too_many_attempts_response(request, wait)
        response = self.get_response(request)
        if response.status_code == 401:
            failed_auth_record(ip)
        return response


def _answers_json(path: str) -> bool:
    """The API and the metrics scrape: machine doors, answered with the error envelope."""
    return path.startswith("/api/") or path == "/metrics"


def too_many_attempts_response(
    request, wait: float | None, *, locked_out: bool = False
) -> HttpResponse:
    """429 with `Retry-After`; `locked_out` when django-axes refused the account."""
    seconds = max(1, math.ceil(wait or 1))
    if _answers_json(request.path_info):
        response = JsonResponse(
            error_body(
                "rate_limited",
                f"Too many attempts from your address; retry in {seconds} seconds.",
            ),
            status=429,
        )
    else:
        response = render(
            request,
            "registration/too_many_attempts.html",
            {"retry_after": seconds, "locked_out": locked_out},
            status=429,
        )
    response["Retry-After"] = str(seconds)
    return response


class PermissionsPolicyMiddleware:
    """`Permissions-Policy` on every response (Django has no setting for it)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if settings.PERMISSIONS_POLICY:
            response.headers.setdefault("Permissions-Policy", settings.PERMISSIONS_POLICY)
        return response


# --- encryption at rest: faults ----------------------------------------------------------

KEYS_METER = "iris.keys"
KEYS_COUNTERS = {
    "ciphertext_unreadable": (
        "iris.keys.ciphertext_unreadable",
        "Sealed values that failed authentication (attribute: column).",
    ),
    "key_store_unavailable": (
        "iris.keys.store_unavailable",
        "Key-store calls that failed: reads and writes refused with 503.",
    ),
    "member_keys_shred_failed": (
        "iris.keys.shred_failed",
        "Member keys an erasure could not destroy (the shred stays pending).",
    ),
}
# The faults of the request being served: (member id, column), as `iris.keys` logs them.
_faults: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "iris_keys_faults", default=None
)


class SealedFaultHandler(logging.Handler):
    """The operator alert of `iris.keys`: every record carrying `alert` (a value that
    failed authentication, a key store that is down, a shred that failed) adds to an
    OpenTelemetry counter (`/metrics`, OTLP); a value that failed authentication is also
    noted for the request's audit event (`SealedFaultMiddleware`). Never content: the
    records carry ids and a column name only."""

    def emit(self, record: logging.LogRecord) -> None:
        alert = getattr(record, "alert", None)
        if alert not in KEYS_COUNTERS:
            return
        column = str(getattr(record, "column", "") or "")
        try:
            from opentelemetry import metrics

            name, description = KEYS_COUNTERS[alert]
            attributes = {"column": column} if alert == "ciphertext_unreadable" else {}
            metrics.get_meter(KEYS_METER).create_counter(
                name, unit="1", description=description
            ).add(1, attributes)
        except Exception:  # telemetry never breaks a read
            logger.debug("metric for %s not recorded", alert, exc_info=True)
        faults = _faults.get()
        if alert == "ciphertext_unreadable" and faults is not None:
            faults.append((getattr(record, "member_id", None), column))


def sealed_fault_handler_install() -> SealedFaultHandler:
    """Attach the handler to `iris.keys` once per process (idempotent)."""
    keys_logger = logging.getLogger("iris.keys")
    for handler in keys_logger.handlers:
        if isinstance(handler, SealedFaultHandler):
            return handler
    handler = SealedFaultHandler(level=logging.ERROR)
    keys_logger.addHandler(handler)
    return handler


def key_store_unavailable_response(request) -> HttpResponse:
    if _answers_json(request.path_info):
        response = JsonResponse(
            error_body("key_store_unavailable", KEY_STORE_UNAVAILABLE), status=503
        )
    else:
        response = render(
            request,
            "iris_site/key_store_unavailable.html",
            {"retry_after": KEY_STORE_RETRY_SECONDS},
            status=503,
        )
    response["Retry-After"] = str(KEY_STORE_RETRY_SECONDS)
    return response


class SealedFaultMiddleware:
    """A key store that is down anywhere in a request (outside the API's own handler:
    pages, MCP, plain JSON views) is a 503, the error envelope under `/api/` and a plain
    page elsewhere, never a 500. And every sealed value of the request that failed
    authentication (it reads as `Unreadable`, never as content) is audited once per
    member, after the response: a critical event with the columns and a count."""

    def __init__(self, get_response):
        self.get_response = get_response
        sealed_fault_handler_install()

    def __call__(self, request):
        token = _faults.set([])
        try:
            response = self.get_response(request)
            faults = _faults.get() or []
        finally:
            _faults.reset(token)
        if faults:
            sealed_faults_audit(faults)
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, KeyStoreUnavailable):
            key_store_unavailable(exception)
            return key_store_unavailable_response(request)
        return None


def sealed_faults_audit(faults: list[tuple]) -> None:
    """One critical event per member whose sealed values failed authentication."""
    from iris_site.audit.actions import AuditAction
    from iris_site.audit.enums import Severity
    from iris_site.audit.events import Actor, audit_event_append

    by_member: dict = {}
    for member_id, column in faults:
        by_member.setdefault(member_id, []).append(column)
    for member_id, columns in by_member.items():
        try:
            audit_event_append(
                action=AuditAction.IRIS_SITE_SEALED_VALUE_UNREADABLE,
                policy_id="iris.iris_site.keys.v1",
                actor=Actor.system("keys"),
                severity=Severity.CRITICAL,
                target_member_id=member_id,
                payload={"columns": sorted(set(columns)), "count": len(columns)},
            )
        except Exception:  # the alert is logged and counted already
            logger.exception("the unreadable sealed values could not be audited")
