"""Request guards that run before any view: body size and authentication attempts."""

import math
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from iris_site.api.exceptions import error_body
from iris_site.api.throttles import IrisRateThrottle, LoginRateThrottle


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
    - every API answer of 401 counts against `IRIS_RATE_ANON`; once an address has used
      that up, its API requests are refused until the window moves on.

    Refusals are 429 with `Retry-After`: the error envelope under /api/, a page elsewhere.
    Locking one account after repeated wrong passwords is django-axes' job.
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
        if not request.path_info.startswith("/api/"):
            return self.get_response(request)

        failures = FailedAuthenticationThrottle()
        wait = failures.wait_if_exhausted(request)
        if wait is not None:
            return too_many_attempts_response(request, wait)
        response = self.get_response(request)
        if response.status_code == 401:
            failures.allow_request(request, None)
        return response


class FailedAuthenticationThrottle(IrisRateThrottle):
    """API answers of 401 per client IP, kept apart from the anonymous budget."""

    scope = "anon"
    cache_format = "throttle_failed_auth_%(ident)s"

    def get_cache_key(self, request, view):
        return self.cache_format % {"ident": self.get_ident(request)}

    def wait_if_exhausted(self, request) -> float | None:
        """Seconds to wait when the budget is used up (without counting this request)."""
        if self.rate is None:
            return None
        self.key = self.get_cache_key(request, None)
        self.now = self.timer()
        self.history = [at for at in self.cache.get(self.key, []) if at > self.now - self.duration]
        if len(self.history) < self.num_requests:
            return None
        return self.wait()


def too_many_attempts_response(
    request, wait: float | None, *, locked_out: bool = False
) -> HttpResponse:
    """429 with `Retry-After`; `locked_out` when django-axes refused the account."""
    seconds = max(1, math.ceil(wait or 1))
    if request.path_info.startswith("/api/"):
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
