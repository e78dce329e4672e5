"""Rate limits (DRF's throttling), one scope per kind of caller and request.

- `read`: safe requests of one authenticated caller (member, operator or service
  client, whichever credential it used), `IRIS_RATE_READ`;
- `write`: unsafe requests (POST/PUT/PATCH/DELETE) of one authenticated caller,
  stricter, `IRIS_RATE_WRITE`;
- `anon`: unauthenticated requests per client IP, `IRIS_RATE_ANON`;
- `login`: sign-in attempts per client IP, `IRIS_RATE_LOGIN` (checked by
  `iris_site.middleware.AuthenticationRateLimitMiddleware`, since sign-in forms are
  not API views).

Each spends from `iris_site.budgets` (one budget per caller across REST, MCP and
`/metrics`). Rates are read on every request from `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`
rather than DRF's import-time copy, so a settings override takes effect. The history
lives in the default cache: a shared one (Redis) when several workers serve.
"""

from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import BaseThrottle

from iris_site.budgets import budget_spend, client_ip_from, principal_ident


def client_ip(request) -> str:
    """The client address the throttles and the login lockout key on (see
    `iris_site.budgets.client_ip_from`: the MCP server keys on the same)."""
    return client_ip_from(
        request.META.get("REMOTE_ADDR", ""), request.headers.get("x-forwarded-for")
    )


class IrisRateThrottle(BaseThrottle):
    """A DRF throttle spending from `iris_site.budgets`, the one budget every door uses."""

    scope = "anon"

    def ident(self, request) -> str | None:
        return client_ip(request)

    def allow_request(self, request, view) -> bool:
        ident = self.ident(request)
        self._wait = None if ident is None else budget_spend(self.scope, ident)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait


def _principal_ident(request) -> str | None:
    return principal_ident(getattr(request, "user", None))


class ReadRateThrottle(IrisRateThrottle):
    """Safe requests of one authenticated caller."""

    scope = "read"

    def applies(self, request) -> bool:
        return request.method in SAFE_METHODS

    def ident(self, request) -> str | None:
        if not self.applies(request):
            return None
        return _principal_ident(request)


class WriteRateThrottle(ReadRateThrottle):
    """Unsafe requests of one authenticated caller: a stricter budget."""

    scope = "write"

    def applies(self, request) -> bool:
        return request.method not in SAFE_METHODS


class AnonymousRateThrottle(IrisRateThrottle):
    """Requests without credentials, per client IP."""

    scope = "anon"

    def ident(self, request) -> str | None:
        if _principal_ident(request) is not None:
            return None
        return client_ip(request)


class LoginRateThrottle(IrisRateThrottle):
    """Sign-in attempts per client IP."""

    scope = "login"
