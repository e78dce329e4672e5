"""Request guards that run before any view: body size and authentication attempts."""

import math
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from iris_site.api.exceptions import error_body
from iris_site.api.throttles import LoginRateThrottle, client_ip
from iris_site.budgets import failed_auth_record, failed_auth_wait


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
