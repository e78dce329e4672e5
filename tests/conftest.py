import json
import urllib.error
import urllib.request
from dataclasses import dataclass

import pytest
from django.db import connection
from opentelemetry.sdk.metrics import Counter, Histogram
from opentelemetry.sdk.metrics.export import AggregationTemporality, InMemoryMetricReader
from rest_framework.test import APIClient

from iris_site.appendonly import append_only_models, sqlite_set_triggers
from iris_site.idempotency import REPLAYED_HEADER
from iris_site.keys.kek import keyset_new
from iris_site.services import token_issue
from iris_site.telemetry import TelemetryPlan, telemetry_setup

DB_FIXTURES = {"db", "transactional_db", "live_server", "django_db_reset_sequences"}


def _uses_db(request) -> tuple[bool, bool]:
    marker = request.node.get_closest_marker("django_db")
    names = set(request.fixturenames)
    transactional = bool(
        names & {"transactional_db", "live_server"} or (marker and marker.kwargs.get("transaction"))
    )
    return bool(marker or names & DB_FIXTURES), transactional


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing():
    """Factories set a password for every member and operator; the production hasher's
    deliberate slowness would dominate the suite's run time."""
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True, scope="session")
def _no_statement_ceiling():
    """The tests' connection serves every test, requests and benchmarks alike: a request's
    ceiling (`iris_site.statement_timeout`) must not stay on it for the rest of the
    session. Its own tests set one."""
    from django.conf import settings

    settings.IRIS_STATEMENT_TIMEOUT_MS = 0


@pytest.fixture(autouse=True, scope="session")
def _incident_signing_key():
    """The key the incident system signs references with (`tests.inspection.factories`)."""
    from django.conf import settings

    settings.INCIDENT_SIGNING_KEY = "test-incident-signing-key"


@pytest.fixture(autouse=True, scope="session")
def _audit_checkpoints_apart(tmp_path_factory):
    """Audit checkpoints (sink and development key) go to the session's temporary folder,
    never the project's `var/audit/` of `make run`; tests that seal set their own."""
    from django.conf import settings

    folder = tmp_path_factory.mktemp("audit")
    settings.AUDIT_CHECKPOINT_PATH = str(folder / "checkpoints.jsonl")
    settings.AUDIT_SIGNING_KEY_FILE = str(folder / "signing-key.pem")
    settings.AUDIT_SIGNING_KEY = ""
    settings.AUDIT_VERIFY_KEYS = []


@pytest.fixture(autouse=True, scope="session")
def _keys_apart(tmp_path_factory):
    """The session's own key store, key-encryption keyset and demo-token seed, never the
    project's `var/` of `make run`; in the environment too, for the servers tests start."""
    import os

    from django.conf import settings

    folder = tmp_path_factory.mktemp("keys")
    for name, value in (
        ("IRIS_KEYSTORE_PATH", str(folder / "keystore.sqlite3")),
        ("IRIS_KEK_FILE", str(folder / "kek.json")),
        ("IRIS_DEMO_TOKEN_SEED_FILE", str(folder / "demo-token-seed")),
    ):
        os.environ[name] = value
        setattr(settings, name, value)
    settings.IRIS_KEK = ""
    os.environ.pop("IRIS_KEK", None)
    (folder / "kek.json").write_text(json.dumps(keyset_new("session")))


@pytest.fixture(autouse=True)
def _sqlite_append_only_triggers(request):
    """Keep SQLite's native append-only triggers in place for every database test.

    A transactional test ends with a table flush (DELETE on SQLite) that the triggers
    would refuse, so they are dropped just before it and re-created by the next test.
    PostgreSQL flushes with TRUNCATE, which the triggers allow.
    """
    uses_db, transactional = _uses_db(request)
    if not uses_db or connection.vendor != "sqlite":
        yield
        return
    request.getfixturevalue("_django_db_helper")
    sqlite_set_triggers(append_only_models(), enabled=True)
    yield
    if transactional:
        sqlite_set_triggers(append_only_models(), enabled=False)


def bearer_client(principal) -> APIClient:
    """An API client authenticated the way real callers are: a bearer token."""
    client = APIClient()
    _, raw = token_issue(owner=principal)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@dataclass
class HttpResponse:
    status: int
    body: dict
    headers: dict

    @property
    def replayed(self) -> bool:
        """Did the server answer a retry with the original response?"""
        return self.headers.get(REPLAYED_HEADER) == "true"


def http_request(
    url: str,
    *,
    method: str = "GET",
    token: str | None = None,
    body=None,
    key: str | None = None,
    timeout: float = 10,
):
    """A real HTTP round trip (stdlib only) for tests against `live_server`; ``key`` is
    sent as the `Idempotency-Key`."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)  # noqa: S310
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    if key is not None:
        request.add_header("Idempotency-Key", key)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            raw, status, headers = response.read(), response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        raw, status, headers = error.read(), error.code, dict(error.headers)
    return HttpResponse(status, json.loads(raw) if raw else {}, headers)


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate-limit counters live in the cache (django-axes' lockouts live in the database,
    rolled back with it): every test starts with none, whatever ran before it."""
    from django.core.cache import caches

    for cache in caches.all():
        cache.clear()
    yield


# The product's telemetry, set up once for the whole test process as a deployment with
# the Prometheus endpoint would be (OpenTelemetry's global provider can be set only
# once): `tests/iris_site/test_telemetry.py` scrapes it, and the metric tests read this
# in-memory reader beside it.
# Delta temporality: each read gives what was recorded since the previous one.
TEST_METRICS = InMemoryMetricReader(
    preferred_temporality={
        Counter: AggregationTemporality.DELTA,
        Histogram: AggregationTemporality.DELTA,
    }
)


@pytest.fixture(autouse=True, scope="session")
def _telemetry():
    telemetry_setup(TelemetryPlan(prometheus=True), extra_readers=[TEST_METRICS])
