"""Rate limits (DRF's throttling), one scope per kind of caller and request.

- `read`: safe requests of one authenticated caller (member, operator or service
  client, whichever credential it used), `IRIS_RATE_READ`;
- `write`: unsafe requests (POST/PUT/PATCH/DELETE) of one authenticated caller,
  stricter, `IRIS_RATE_WRITE`;
- `anon`: unauthenticated requests per client IP, `IRIS_RATE_ANON`;
- `login`: sign-in attempts per client IP, `IRIS_RATE_LOGIN` (checked by
  `iris_site.middleware.AuthenticationRateLimitMiddleware`, since sign-in forms are
  not API views).

Rates are read on every request from `REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`
rather than DRF's import-time copy, so a settings override takes effect. The history
lives in the default cache: a shared one (Redis) when several workers serve.
"""

from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


def client_ip(request) -> str:
    """The client address the throttles and the login lockout key on.

    DRF's rule: `X-Forwarded-For` is trusted only for `NUM_PROXIES` hops (0 here unless
    `IRIS_NUM_PROXIES` says a proxy sets it), so a client cannot pick its own address.
    """
    return IrisRateThrottle().get_ident(request)


class IrisRateThrottle(SimpleRateThrottle):
    scope = "anon"

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def _principal_ident(request) -> str | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    # Members/operators and service clients live in different tables.
    return f"{user._meta.label_lower}:{user.pk}"


class ReadRateThrottle(IrisRateThrottle):
    """Safe requests of one authenticated caller."""

    scope = "read"

    def applies(self, request) -> bool:
        return request.method in SAFE_METHODS

    def get_cache_key(self, request, view):
        ident = _principal_ident(request)
        if ident is None or not self.applies(request):
            return None
        return self.cache_format % {"scope": self.scope, "ident": ident}


class WriteRateThrottle(ReadRateThrottle):
    """Unsafe requests of one authenticated caller: a stricter budget."""

    scope = "write"

    def applies(self, request) -> bool:
        return request.method not in SAFE_METHODS


class AnonymousRateThrottle(IrisRateThrottle):
    """Requests without credentials, per client IP."""

    scope = "anon"

    def get_cache_key(self, request, view):
        if _principal_ident(request) is not None:
            return None
        return super().get_cache_key(request, view)


class LoginRateThrottle(IrisRateThrottle):
    """Sign-in attempts per client IP."""

    scope = "login"
