"""One budget per caller, whichever door it knocks on: the REST API, the MCP server and
`/metrics` all spend from the same counters, in the default cache (Redis, shared by
every process, when `CACHE_URL` names one).

- A caller that authenticated spends its `read` or `write` budget under one key per
  principal (`throttle_<scope>_<app.model>:<pk>`): a surface's REST writes and its MCP
  tool calls (which run as REST requests in-process, `interfaces.mcp.rest`) are one
  budget.
- A failed authentication on any door (an API 401, an MCP 401, a wrong `/metrics`
  scrape token) spends one per-client-IP budget (`throttle_failed_auth_<ip>`, the
  `anon` rate); once it is used up, that address is refused 429 on every door until the
  window moves on.

`budget_spend` charges one request and says how long to wait when the budget is spent;
`budget_wait` only looks. The DRF throttles (`iris_site.api.throttles`), the request
guard (`iris_site.middleware`) and the MCP server's ASGI guard call these and nothing
else, so the keys and the arithmetic are the same on every door.
"""

from types import SimpleNamespace

from django.core.cache import cache
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

# The budget of failed authentications per client IP, at the `anon` rate.
FAILED_AUTH = "failed_auth"
_RATE_OF = {FAILED_AUTH: "anon"}


def budget_key(scope: str, ident: str) -> str:
    return f"throttle_{scope}_{ident}"


def _rate(scope: str) -> tuple[int, int] | None:
    """(requests, seconds), read on every call so a settings override takes effect;
    None when the rate is `off`."""
    rate = api_settings.DEFAULT_THROTTLE_RATES.get(_RATE_OF.get(scope, scope))
    if rate is None:
        return None
    return SimpleRateThrottle.parse_rate(None, rate)


def _history(key: str, now: float, duration: int) -> list[float]:
    return [at for at in cache.get(key, []) if at > now - duration]


def _wait(history: list[float], now: float, num: int, duration: int) -> float:
    """DRF's own estimate (`SimpleRateThrottle.wait`)."""
    remaining = duration - (now - history[-1]) if history else duration
    available = num - len(history) + 1
    return remaining / available if available > 0 else remaining


def budget_wait(scope: str, ident: str, *, now: float | None = None) -> float | None:
    """Seconds to wait when `ident`'s `scope` budget is spent, else None (nothing charged)."""
    rate = _rate(scope)
    if rate is None:
        return None
    num, duration = rate
    now = SimpleRateThrottle.timer() if now is None else now
    history = _history(budget_key(scope, ident), now, duration)
    if len(history) < num:
        return None
    return _wait(history, now, num, duration)


def budget_spend(scope: str, ident: str) -> float | None:
    """Charge one request to `ident`'s `scope` budget: None when it was allowed; seconds
    to wait (and nothing charged) when the budget is spent."""
    rate = _rate(scope)
    if rate is None:
        return None
    num, duration = rate
    now = SimpleRateThrottle.timer()
    key = budget_key(scope, ident)
    history = _history(key, now, duration)
    if len(history) >= num:
        return _wait(history, now, num, duration)
    history.insert(0, now)
    cache.set(key, history, duration)
    return None


def failed_auth_wait(ip: str) -> float | None:
    """Seconds this address must wait, on any door, after too many failed authentications."""
    return budget_wait(FAILED_AUTH, ip)


def failed_auth_record(ip: str) -> None:
    """One failed authentication from this address (any door)."""
    budget_spend(FAILED_AUTH, ip)


def principal_ident(principal) -> str | None:
    """The key of an authenticated member, operator or service client (different tables)."""
    if principal is None or not getattr(principal, "is_authenticated", False):
        return None
    return f"{principal._meta.label_lower}:{principal.pk}"


def client_ip_from(remote_addr: str, forwarded_for: str | None = None) -> str:
    """The client address every door keys on, by DRF's rule: `X-Forwarded-For` is trusted
    only for `NUM_PROXIES` hops (0 unless `IRIS_NUM_PROXIES` says a proxy sets it), so a
    client cannot pick its own address."""
    headers = {"x-forwarded-for": forwarded_for} if forwarded_for else {}
    request = SimpleNamespace(META={"REMOTE_ADDR": remote_addr or ""}, headers=headers)
    return BaseThrottle().get_ident(request)
