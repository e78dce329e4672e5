"""``bench_load``'s clients: members signed in like a browser, keep-alive client threads
driving a weighted mix of real requests (or, with ``--long-queries``, only long recalls of
one member), and the figures of their samples: latency as the client saw it, and the SQL
statements and database time each answer's ``Server-Timing`` header reports."""

from __future__ import annotations

import http.client
import json
import random
import re
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core.management.base import CommandError

# (endpoint, weight): what an assistant platform and its members do most.
MIX = (
    ("recall", 35),
    ("remember", 10),
    ("api_list", 15),
    ("api_detail", 15),
    ("page_index", 12),
    ("page_detail", 13),
    ("bundle", 5),
)
ENDPOINT_LABELS = {
    "recall": "POST /api/v1/members/{id}/recall/ (service)",
    "remember": "POST /api/v1/members/{id}/memories/ (service)",
    "api_list": "GET /api/v1/me/memories/ (member token)",
    "api_detail": "GET /api/v1/me/memories/{id}/ (member token)",
    "page_index": "GET /profile/memory/ (member session)",
    "page_detail": "GET /profile/memory/{id}/ (member session)",
    "bundle": "POST /api/v1/members/{id}/context-bundle/ (service)",
}
LONG_RECALL = "long_recall"  # the --long-queries clients' only request
# `iris_site.access_log.server_timing`: `db;dur=4.1;desc="7 statements", total;dur=23.0`.
SERVER_TIMING_DB = re.compile(r'(?:^|,)\s*db;dur=([0-9.]+);desc="(\d+) statements?"')
WORD = re.compile(r"[a-z]{3,}")

# --- the clients ----------------------------------------------------------------------


def _cookies(response: http.client.HTTPResponse) -> dict[str, str]:
    jar = SimpleCookie()
    for header in response.headers.get_all("Set-Cookie") or ():
        jar.load(header)
    return {name: morsel.value for name, morsel in jar.items()}


def member_login(port: int, email: str, password: str) -> str:
    """Sign in through /accounts/login/ like a browser (CSRF cookie + form token)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", "/accounts/login/")
        response = connection.getresponse()
        html = response.read().decode()
        csrf_cookie = _cookies(response).get("csrftoken", "")
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        if response.status != 200 or not csrf_cookie or not found:
            raise CommandError(f"Login page: HTTP {response.status}, no CSRF token")
        form = urlencode(
            {"username": email, "password": password, "csrfmiddlewaretoken": found.group(1)}
        )
        connection.request(
            "POST",
            "/accounts/login/",
            body=form,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": f"csrftoken={csrf_cookie}",
                "Referer": f"http://127.0.0.1:{port}/accounts/login/",
            },
        )
        response = connection.getresponse()
        response.read()
        session = _cookies(response).get(settings.SESSION_COOKIE_NAME)
        if response.status != 302 or not session:
            raise CommandError(f"Login of {email} failed: HTTP {response.status}")
        return session
    finally:
        connection.close()


@dataclass
class Principal:
    member_id: str
    token: str
    service_token: str
    session: str
    entry_ids: list[str]
    recalls: list[dict]
    remembers: list[dict]


def long_query(principal: Principal, words: int, *, seed: int) -> dict:
    """A recall whose query is ``words`` words of the member's own vocabulary (the words
    of their seeded remembers and queries, each once before any repeats): every one of
    them can match the member's memories, as a pasted document would."""
    texts = [r["body"] for r in principal.remembers] + [r["query"] for r in principal.recalls]
    vocabulary = sorted({word for text in texts for word in WORD.findall(text.lower())})
    random.Random(seed).shuffle(vocabulary)  # noqa: S311 - a load mix, not secrets
    chosen = [vocabulary[i % len(vocabulary)] for i in range(words)] if vocabulary else []
    return {"surface": "assistant", "scope": {"kind": "profile"}, "query": " ".join(chosen)}


def server_timing_db(header: str | None) -> tuple[int | None, float | None]:
    """The statement count and database milliseconds of a ``Server-Timing`` header, or
    ``(None, None)`` (a server that does not say: an older checkout, the setting off)."""
    found = SERVER_TIMING_DB.search(header or "")
    if found is None:
        return None, None
    return int(found.group(2)), float(found.group(1))


@dataclass
class Sample:
    endpoint: str
    started: float  # seconds since the run began
    seconds: float
    ok: bool
    member: str = ""
    statements: int | None = None  # from the answer's Server-Timing header
    db_ms: float | None = None


@dataclass
class ClientThread:
    port: int
    principals: list[Principal]
    seed: int
    started_at: float
    stop_at: float
    timeout: float
    start_at: float = 0.0  # monotonic; the --long-queries clients start in phase 2
    long_payload: dict | None = None  # set: only long recalls, of `principals[0]`
    samples: list[Sample] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)
    error_count: int = 0

    def request(self, principal: Principal, endpoint: str, rng: random.Random):
        member = principal.member_id
        if endpoint == LONG_RECALL:
            body = json.dumps(self.long_payload)
            return "POST", f"/api/v1/members/{member}/recall/", body, principal.service_token, 200
        if endpoint == "recall":
            body = json.dumps(rng.choice(principal.recalls))
            return "POST", f"/api/v1/members/{member}/recall/", body, principal.service_token, 200
        if endpoint == "remember":
            body = json.dumps(rng.choice(principal.remembers))
            return "POST", f"/api/v1/members/{member}/memories/", body, principal.service_token, 201
        if endpoint == "bundle":
            # A conversation's context: its working memory and what recall gives for it.
            recall = rng.choice(principal.recalls)
            session = recall["scope"].get("session_id") or "load-bundle"
            body = json.dumps({"scope_id": session, "query": recall.get("query", "")})
            path = f"/api/v1/members/{member}/context-bundle/"
            return "POST", path, body, principal.service_token, 200
        entry = rng.choice(principal.entry_ids)
        if endpoint == "api_list":
            return "GET", "/api/v1/me/memories/", None, principal.token, 200
        if endpoint == "api_detail":
            return "GET", f"/api/v1/me/memories/{entry}/", None, principal.token, 200
        if endpoint == "page_index":
            return "GET", "/profile/memory/", None, None, 200
        return "GET", f"/profile/memory/{entry}/", None, None, 200

    def run(self) -> None:
        rng = random.Random(self.seed)  # noqa: S311 - a load mix, not secrets
        names = [name for name, _ in MIX]
        weights = [weight for _, weight in MIX]
        if self.long_payload is not None:
            names, weights = [LONG_RECALL], [1]
        sleep_until(self.start_at)
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        while time.monotonic() < self.stop_at:
            principal = rng.choice(self.principals)
            endpoint = rng.choices(names, weights)[0]
            method, path, body, token, expected = self.request(principal, endpoint, rng)
            headers = {"Accept": "application/json" if token else "text/html"}
            if token:
                headers["Authorization"] = f"Bearer {token}"
            else:
                headers["Cookie"] = f"{settings.SESSION_COOKIE_NAME}={principal.session}"
            if body is not None:
                headers["Content-Type"] = "application/json"
            begin = time.monotonic()
            status, excerpt, timing = None, "", None
            try:
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                status = response.status
                timing = response.headers.get("Server-Timing")
                if response.will_close:
                    connection.close()
                ok = status == expected or (endpoint == "remember" and status == 200)
                if not ok:
                    excerpt = payload[:300].decode(errors="replace")
            except (OSError, http.client.HTTPException) as exc:
                ok, excerpt = False, f"{type(exc).__name__}: {exc}"
                connection.close()
            elapsed = time.monotonic() - begin
            statements, db_ms = server_timing_db(timing)
            self.samples.append(
                Sample(
                    endpoint,
                    begin - self.started_at,
                    elapsed,
                    ok,
                    member=principal.member_id,
                    statements=statements,
                    db_ms=db_ms,
                )
            )
            if not ok:
                self.error_count += 1
                if len(self.errors) < 10:
                    self.errors.append(
                        {
                            "endpoint": endpoint,
                            "method": method,
                            "path": path,
                            "status": status,
                            "detail": excerpt,
                        }
                    )
        connection.close()


# --- figures ----------------------------------------------------------------------------


def _percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def figures(samples: list[Sample], seconds: float) -> dict[str, Any]:
    """Requests, errors, throughput and latency percentiles (as the clients measured
    them); the SQL statements per request (p50 and max) and the database time (p50) as
    the server reported them, ``None`` where no answer said."""
    latencies = sorted(s.seconds for s in samples)
    statements = sorted(s.statements for s in samples if s.statements is not None)
    db_ms = sorted(s.db_ms for s in samples if s.db_ms is not None)
    return {
        "requests": len(samples),
        "errors": sum(1 for s in samples if not s.ok),
        "throughput_rps": round(len(samples) / seconds, 1) if seconds else 0.0,
        "p50_ms": round(_percentile(latencies, 0.50) * 1000, 1),
        "p95_ms": round(_percentile(latencies, 0.95) * 1000, 1),
        "p99_ms": round(_percentile(latencies, 0.99) * 1000, 1),
        "statements_p50": _percentile(statements, 0.50) if statements else None,
        "statements_max": statements[-1] if statements else None,
        "db_p50_ms": round(_percentile(db_ms, 0.50), 1) if db_ms else None,
    }


def sleep_until(moment: float) -> None:
    while (left := moment - time.monotonic()) > 0:
        time.sleep(min(left, 0.25))
