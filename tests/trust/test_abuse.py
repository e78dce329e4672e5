"""Abuse: rate limits per caller and per address (429, `Retry-After`, the envelope),
sign-in lockout and its recovery, and the security headers every page carries.

The throttles run on the configured rates (the defaults of `iris_site.settings`); to
avoid a thousand requests per test, a caller's history is filled up to one short of
its budget through DRF's own cache key, then the last allowed and the first refused
requests are real.
"""

import importlib
import json
import re
import sys
import time
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.test import Client
from django.utils.csp import CSP
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from iris_site.keys.kek import keyset_new
from iris_site.settings import cache_from_url, env_rate
from tests.conftest import bearer_client
from tests.iris_site.factories import (
    PASSWORD,
    MemberFactory,
    OperatorFactory,
    ServiceClientFactory,
)
from tests.memory.factories import consenting_member

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/memories/"
OTR = "/api/v1/me/off-the-record/"
SCHEMA = "/api/schema/?format=json"  # open to anyone


def budget(scope: str) -> int:
    num, _ = SimpleRateThrottle.parse_rate(None, api_settings.DEFAULT_THROTTLE_RATES[scope])
    return num


def use_up(scope: str, ident: str, *, leave: int = 1) -> None:
    """Record `budget - leave` requests for that caller, all just now."""
    num, duration = SimpleRateThrottle.parse_rate(None, api_settings.DEFAULT_THROTTLE_RATES[scope])
    cache.set(f"throttle_{scope}_{ident}", [time.time()] * (num - leave), duration)


def principal(obj) -> str:
    return f"{obj._meta.label_lower}:{obj.pk}"


def assert_rate_limited(response) -> int:
    assert response.status_code == 429, response.content
    body = response.json()
    assert body["error"]["code"] == "rate_limited", body
    assert set(body["error"]) == {"code", "message", "fields"}
    retry_after = int(response.headers["Retry-After"])
    assert 0 < retry_after <= 60
    return retry_after


# --- Configuration ----------------------------------------------------------------------------


def test_the_default_rates_and_writes_are_stricter_than_reads():
    rates = api_settings.DEFAULT_THROTTLE_RATES
    assert set(rates) >= {"read", "write", "anon", "login"}
    assert budget("write") < budget("read")
    assert budget("login") < budget("anon")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1200/min", "1200/min"), (" 20/S ", "20/s"), ("5/hour", "5/hour"), ("off", None)],
)
def test_rates_come_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("IRIS_RATE_WRITE", value)
    assert env_rate("IRIS_RATE_WRITE", "300/min") == expected


@pytest.mark.parametrize("value", ["300", "300/fortnight", "many/min", "-1/min"])
def test_a_malformed_rate_refuses_to_start(monkeypatch, value):
    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.setenv("IRIS_RATE_READ", value)
    with pytest.raises(ImproperlyConfigured):
        env_rate("IRIS_RATE_READ", "1200/min")


def test_the_cache_comes_from_the_environment():
    assert cache_from_url("")["BACKEND"].endswith("LocMemCache")
    redis = cache_from_url("redis://127.0.0.1:6379/3")
    assert redis == {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/3",
    }
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured):
        cache_from_url("memcached://x")


# --- Per caller ---------------------------------------------------------------------------------


def test_a_member_token_is_throttled_on_reads_with_retry_after():
    # given
    member = consenting_member()
    client = bearer_client(member)
    use_up("read", principal(member))
    # when
    last_allowed = client.get(ME)
    refused = client.get(ME)
    # then
    assert last_allowed.status_code == 200
    assert_rate_limited(refused)
    assert bearer_client(consenting_member()).get(ME).status_code == 200  # others unaffected


def test_writes_have_their_own_stricter_budget_and_reads_go_on():
    # given
    member = consenting_member()
    client = bearer_client(member)
    use_up("write", principal(member))
    # when
    last_allowed = client.put(OTR, {"active": True, "session_id": "s-1"}, format="json")
    refused = client.put(OTR, {"active": False, "session_id": "s-1"}, format="json")
    refused_post = client.post(
        ME, {"scope": {"kind": "profile"}, "category": "preference", "body": "x"}, format="json"
    )
    # then
    assert last_allowed.status_code == 200, last_allowed.content
    assert_rate_limited(refused)
    assert_rate_limited(refused_post)
    assert client.get(ME).status_code == 200


def test_a_write_burst_on_the_real_rate_is_cut_at_the_budget():
    member = consenting_member()
    client = bearer_client(member)
    statuses = [
        client.put(OTR, {"active": i % 2 == 0, "session_id": "s-1"}, format="json").status_code
        for i in range(budget("write") + 1)
    ]
    assert statuses[:-1] == [200] * budget("write")
    assert statuses[-1] == 429


def test_a_service_client_is_throttled_per_client():
    member = consenting_member()
    tara = ServiceClientFactory(consumer="tara")
    client = bearer_client(tara)
    use_up("read", principal(tara), leave=0)
    url = f"/api/v1/members/{member.pk}/continuation-tokens/"
    assert_rate_limited(client.get(url))
    assert bearer_client(ServiceClientFactory(consumer="tara")).get(url).status_code == 200


def test_a_session_member_is_throttled_like_a_token_member():
    member = consenting_member()
    client = Client()
    client.force_login(member)
    use_up("read", principal(member), leave=0)
    assert_rate_limited(client.get(ME))


# --- Per address ---------------------------------------------------------------------------------


def test_anonymous_requests_are_throttled_per_ip():
    # given: /api/schema/ is open to anyone
    use_up("anon", "10.0.0.1")
    client = Client(REMOTE_ADDR="10.0.0.1")
    # when
    last_allowed = client.get(SCHEMA)
    refused = client.get(SCHEMA)
    # then
    assert last_allowed.status_code == 200
    assert_rate_limited(refused)
    assert Client(REMOTE_ADDR="10.0.0.2").get(SCHEMA).status_code == 200


def test_a_forged_forwarded_for_header_does_not_reset_the_count():
    use_up("anon", "10.0.0.1", leave=0)
    client = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert_rate_limited(client.get(SCHEMA))


def test_failed_api_authentication_is_throttled_per_ip():
    # given
    bad = Client(REMOTE_ADDR="10.0.0.3", HTTP_AUTHORIZATION="Bearer not-a-token")
    anonymous = Client(REMOTE_ADDR="10.0.0.3")
    # when: a guesser spends the anonymous budget on 401s
    statuses = [(bad if i % 2 else anonymous).get(ME).status_code for i in range(budget("anon"))]
    refused = bad.get(ME)
    # then
    assert statuses == [401] * budget("anon")
    assert_rate_limited(refused)
    other = Client(REMOTE_ADDR="10.0.0.4", HTTP_AUTHORIZATION="Bearer not-a-token")
    assert other.get(ME).status_code == 401


def test_sign_in_attempts_are_throttled_per_ip():
    # given
    client = Client(REMOTE_ADDR="10.0.0.5")
    # when
    statuses = [
        client.post("/accounts/login/", {"username": f"u{i}@x.test", "password": "x"}).status_code
        for i in range(budget("login"))
    ]
    refused = client.post("/accounts/login/", {"username": "last@x.test", "password": "x"})
    # then
    assert statuses == [200] * budget("login")  # the form again, with its error
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
    assert "Too many sign-in attempts" in refused.content.decode()
    assert client.get("/accounts/login/").status_code == 200  # the page itself still shows
    other = Client(REMOTE_ADDR="10.0.0.6")
    assert (
        other.post("/accounts/login/", {"username": "a@x.test", "password": "x"}).status_code == 200
    )


def test_admin_sign_in_attempts_count_too():
    client = Client(REMOTE_ADDR="10.0.0.7")
    for i in range(budget("login")):
        client.post("/admin/login/", {"username": f"u{i}@x.test", "password": "x"})
    assert (
        client.post("/admin/login/", {"username": "a@x.test", "password": "x"}).status_code == 429
    )


# --- Lockout (django-axes) --------------------------------------------------------------------


def sign_in(client: Client, email: str, password: str):
    return client.post("/accounts/login/", {"username": email, "password": password})


def test_repeated_wrong_passwords_lock_the_account_on_that_address_and_it_recovers():
    # given
    from django.conf import settings

    member = MemberFactory()
    client = Client(REMOTE_ADDR="10.0.1.1")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in(client, member.email, "wrong").status_code == 200
    assert sign_in(client, member.email, "wrong").status_code == 429  # the last failure
    # when
    locked = sign_in(client, member.email, PASSWORD)
    # then: even the right password is refused, with a clear page and Retry-After
    assert locked.status_code == 429
    assert "locked" in locked.content.decode()
    assert int(locked.headers["Retry-After"]) == int(settings.AXES_COOLOFF_TIME.total_seconds())
    assert "_auth_user_id" not in client.session
    # the same account from elsewhere, and another account here, are not locked
    assert sign_in(Client(REMOTE_ADDR="10.0.1.2"), member.email, PASSWORD).status_code == 302
    here = Client(REMOTE_ADDR="10.0.1.1")
    assert sign_in(here, MemberFactory().email, PASSWORD).status_code == 302

    # when: the cool-off passes
    cache.clear()  # the per-IP attempt budget is a separate, shorter limit
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.first().attempt_time
        - settings.AXES_COOLOFF_TIME
        - timedelta(seconds=1)
    )
    recovered = sign_in(client, member.email, PASSWORD)
    # then
    assert recovered.status_code == 302
    assert client.session["_auth_user_id"] == str(member.pk)


def test_a_successful_sign_in_resets_the_failures():
    from django.conf import settings

    member = MemberFactory()
    client = Client(REMOTE_ADDR="10.0.1.3")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, member.email, "wrong")
    assert sign_in(client, member.email, PASSWORD).status_code == 302
    assert not AccessAttempt.objects.filter(username=member.email).exists()


def test_the_test_clients_login_helpers_still_work():
    member = MemberFactory()
    client = Client()
    assert client.login(email=member.email, password=PASSWORD)
    assert client.get("/profile/memory/").status_code == 200


# --- Security headers and CSP ---------------------------------------------------------------


def _page_clients():
    member = consenting_member()
    operator = OperatorFactory(role="admin")
    member_client, operator_client = Client(), Client()
    member_client.force_login(member)
    operator_client.force_login(operator)
    return member_client, operator_client


PAGES = [
    ("anonymous", "/accounts/login/", 200),
    ("anonymous", "/", 200),
    ("anonymous", "/healthz", 200),
    ("anonymous", "/api/docs/", 200),
    ("anonymous", "/api/schema/", 200),
    ("anonymous", "/admin/login/", 200),
    ("anonymous", "/no-such-page/", 404),
    ("anonymous", "/api/v1/me/memories/", 401),
    ("member", "/profile/memory/", 200),
    ("member", "/profile/memory/consents/", 200),
    ("member", "/profile/memory/notices/", 200),
    ("member", "/profile/memory/data/", 200),
    ("member", "/api/v1/me/memories/", 200),
    ("operator", "/dashboard/admin/memory-hierarchy", 200),
    ("operator", "/admin/", 200),
]


def assert_security_headers(response, where: str) -> None:
    csp = response.headers.get("Content-Security-Policy", "")
    assert csp, where
    directives = dict(
        [*part.strip().split(" ", 1), ""][:2] for part in csp.split(";") if part.strip()
    )
    assert directives["default-src"] == "'self'", (where, csp)
    assert directives["script-src"].startswith("'self'"), (where, csp)
    assert directives["object-src"] == "'none'" and directives["base-uri"] == "'none'", where
    assert directives["frame-ancestors"] == "'none'", where
    assert "unsafe" not in directives["script-src"], (where, csp)
    assert "unsafe-eval" not in csp, (where, csp)
    # Only the API docs (Redoc adds styles without a nonce) allow inline styles.
    if where != "/api/docs/":
        assert "unsafe-inline" not in csp, (where, csp)
    assert response.headers["X-Content-Type-Options"] == "nosniff", where
    assert response.headers["Referrer-Policy"] == "same-origin", where
    assert response.headers["X-Frame-Options"] == "DENY", where
    assert "camera=()" in response.headers["Permissions-Policy"], where
    assert response.headers["Cross-Origin-Opener-Policy"], where


@pytest.mark.parametrize(("who", "path", "status"), PAGES)
def test_every_kind_of_page_carries_the_security_headers(who, path, status):
    member_client, operator_client = _page_clients()
    client = {"anonymous": Client(), "member": member_client, "operator": operator_client}[who]
    response = client.get(path)
    assert response.status_code == status, (path, response.status_code)
    assert_security_headers(response, path)
    assert response.headers["Cross-Origin-Opener-Policy"] == "same-origin", path


def test_refusals_from_the_guards_carry_the_headers_too():
    big = Client().post("/api/v1/me/memories/", "x" * (3 * 1024 * 1024), content_type="text/plain")
    odd = Client().get("/api/v1/me/memories/?q=%ff")
    assert big.status_code == 413 and odd.status_code == 400
    assert_security_headers(big, "413")
    assert_security_headers(odd, "400")


def test_inline_code_on_the_api_docs_carries_the_requests_nonce():
    response = Client().get("/api/docs/")
    html = response.content.decode()
    nonce = re.search(r"'nonce-([^']+)'", response.headers["Content-Security-Policy"]).group(1)
    inline = re.findall(r"<(script|style)\b([^>]*)>", html)
    assert inline, "the docs page has its script and style"
    for tag, attrs in inline:
        assert f'nonce="{nonce}"' in attrs, (tag, attrs)
    assert (
        Client().get("/api/docs/").headers["Content-Security-Policy"]
        != response.headers["Content-Security-Policy"]
    )  # a fresh nonce per response


def test_our_templates_have_no_inline_script_or_style():
    from pathlib import Path

    from django.conf import settings

    for template in Path(settings.BASE_DIR, "templates").rglob("*.html"):
        text = template.read_text()
        for match in re.finditer(r"<(script|style)\b([^>]*)>", text):
            assert "nonce=" in match.group(2), (template, match.group(0))
        assert not re.search(r"\son[a-z]+=", text), template  # no inline event handlers
        assert " style=" not in text, template


# --- Production settings --------------------------------------------------------------------


@pytest.fixture
def production(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "p" * 64)
    monkeypatch.setenv("ALLOWED_HOSTS", "iris.example")
    monkeypatch.setenv("IRIS_KEK", json.dumps(keyset_new()))
    sys.modules.pop("iris_site.production_settings", None)
    module = importlib.import_module("iris_site.production_settings")
    yield module
    sys.modules.pop("iris_site.production_settings", None)


def test_production_cookies_are_secure_httponly_and_samesite(production):
    assert production.SESSION_COOKIE_SECURE and production.CSRF_COOKIE_SECURE
    assert production.SESSION_COOKIE_HTTPONLY and production.CSRF_COOKIE_HTTPONLY
    assert production.SESSION_COOKIE_SAMESITE == "Lax" and production.CSRF_COOKIE_SAMESITE == "Lax"
    assert production.SECURE_HSTS_SECONDS >= 31536000 and production.SECURE_SSL_REDIRECT
    assert CSP.UNSAFE_INLINE not in production.SECURE_CSP["script-src"]
    assert CSP.UNSAFE_INLINE not in production.SECURE_CSP["style-src"]
    assert "django.middleware.csp.ContentSecurityPolicyMiddleware" in production.MIDDLEWARE
    assert production.MIDDLEWARE[-1] == "axes.middleware.AxesMiddleware"


# --- Shared cache ------------------------------------------------------------------------------


def _redis_available() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_timeout=1).ping())
    except Exception:
        return False


@pytest.mark.skipif(not _redis_available(), reason="no Redis server on 127.0.0.1:6379")
def test_counts_are_shared_through_redis_across_workers(settings):
    # given: the deploy's cache, as CACHE_URL would configure it (a test-only db number)
    settings.CACHES = {"default": cache_from_url("redis://127.0.0.1:6379/15")}
    from django.core.cache import caches

    caches["default"].clear()
    member = consenting_member()
    use_up("read", principal(member))
    # when: two clients stand for two workers sharing nothing but Redis
    first = bearer_client(member).get(ME)
    second = bearer_client(member).get(ME)
    # then
    try:
        assert first.status_code == 200
        assert_rate_limited(second)
    finally:
        caches["default"].clear()
