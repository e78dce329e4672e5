"""Load run: gunicorn on loopback, a scratch database, a bounded mix of real requests.

    python manage.py bench_load --duration 30 --concurrency 8 --workers 4

Never touches the configured database: on SQLite (no ``DATABASE_URL``, or a SQLite one)
it works in a temporary SQLite file; on PostgreSQL (``DATABASE_URL`` or
``--database-url``) it creates a fresh ``iris_load_<random>`` database on that server
and drops it at the end. It migrates the scratch database, seeds ``--members`` members
(consents, ``--entries`` memories each from the recall benchmark's generator, a member
token, a service-client token, a password), starts ``gunicorn iris_site.wsgi`` on
127.0.0.1 (plain ``iris_site.settings``, DEBUG off, a random SECRET_KEY, generous
``IRIS_RATE_*`` limits), signs the members in through ``/accounts/login/`` and drives,
from ``--concurrency`` keep-alive client threads, recalls, remembers, memory list and
detail reads and the member's memory pages: a warm-up, then two equal phases.

It prints, per endpoint and in total, requests, throughput and p50/p95/p99 latency, the
resident memory of the gunicorn master and workers after the warm-up and after each
phase (steady growth in both phases would be a leak), and every error: any response
other than the expected status, or an exception. Errors make it exit non-zero.
The report ends with one JSON object on its last line (``--json``: only that object).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

SCRATCH_MARKER = "IRIS_BENCH_LOAD_SCRATCH"  # names the scratch database the seed may write
RATE_VARIABLES = ("IRIS_RATE_READ", "IRIS_RATE_WRITE", "IRIS_RATE_ANON", "IRIS_RATE_LOGIN")
GENEROUS_RATE = "1000000/min"

# (endpoint, weight): what an assistant platform and its members do most.
MIX = (
    ("recall", 35),
    ("remember", 10),
    ("api_list", 15),
    ("api_detail", 15),
    ("page_index", 12),
    ("page_detail", 13),
)
ENDPOINT_LABELS = {
    "recall": "POST /api/v1/members/{id}/recall/ (service)",
    "remember": "POST /api/v1/members/{id}/memories/ (service)",
    "api_list": "GET /api/v1/me/memories/ (member token)",
    "api_detail": "GET /api/v1/me/memories/{id}/ (member token)",
    "page_index": "GET /profile/memory/ (member session)",
    "page_detail": "GET /profile/memory/{id}/ (member session)",
}
REMEMBER_CATEGORIES = ("fact", "preference", "goal", "work", "relationship")


# --- the scratch database -------------------------------------------------------------


@dataclass
class Scratch:
    url: str
    engine: str  # "sqlite" or "postgresql"
    name: str  # the file or the database
    workdir: Path


def _server_url(options: dict) -> str:
    url = options["database_url"]
    if url is None:
        url = "" if options["sqlite"] else os.environ.get("DATABASE_URL", "")
    return url


def _pg_connect(url: str, dbname: str):
    import psycopg

    parts = urlsplit(url)
    return psycopg.connect(
        host=parts.hostname or "localhost",
        port=parts.port or 5432,
        user=parts.username or None,
        password=parts.password or None,
        dbname=dbname,
        autocommit=True,
        connect_timeout=10,
    )


def _pg_admin(url: str):
    """A connection to the server: the URL's own database, else `postgres`."""
    import psycopg

    own = urlsplit(url).path.lstrip("/")
    last: Exception | None = None
    for dbname in dict.fromkeys([own, "postgres", "template1"]):
        if not dbname:
            continue
        try:
            return _pg_connect(url, dbname)
        except psycopg.OperationalError as exc:
            last = exc
    raise CommandError(f"Cannot reach the PostgreSQL server of --database-url: {last}")


@contextmanager
def scratch_database(server_url: str) -> Iterator[Scratch]:
    """A fresh, empty database that is removed afterwards, whatever happens."""
    workdir = Path(tempfile.mkdtemp(prefix="iris-load-"))
    try:
        scheme = urlsplit(server_url).scheme if server_url else "sqlite"
        if scheme.startswith("postgres"):
            name = f"iris_load_{secrets.token_hex(6)}"
            with _pg_admin(server_url) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            try:
                parts = urlsplit(server_url)
                url = urlunsplit(parts._replace(path=f"/{name}"))
                yield Scratch(url=url, engine="postgresql", name=name, workdir=workdir)
            finally:
                with _pg_admin(server_url) as admin:
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        elif scheme == "sqlite":
            path = workdir / "scratch.sqlite3"
            yield Scratch(url=f"sqlite:///{path}", engine="sqlite", name=str(path), workdir=workdir)
        else:
            raise CommandError(f"bench_load runs on SQLite or PostgreSQL, not {scheme!r}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _cache_label(env: dict) -> str:
    """Where the rate limits count (settings.CACHES), without any password."""
    url = env.get("CACHE_URL") or env.get("REDIS_URL") or ""
    if not url or url == "locmem://":
        return "per-process memory"
    parts = urlsplit(url)
    netloc = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def scratch_environment(scratch: Scratch, *, secret: str, rate: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": scratch.url,
            "DJANGO_SETTINGS_MODULE": "iris_site.settings",  # no TLS on loopback
            "DEBUG": "false",
            "SECRET_KEY": secret,
            "IRIS_HASH_SECRET": secret,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": env.get("LOG_LEVEL", "WARNING"),
            SCRATCH_MARKER: scratch.name,
        }
    )
    for variable in RATE_VARIABLES:
        env[variable] = rate
    return env


# --- seeding (runs in a child process whose default database is the scratch one) -------


def seed_scratch(*, members: int, entries: int, seed: int) -> dict[str, Any]:
    from django.utils import timezone

    from consent.enums import category_consent_type
    from iris_site.audit.events import Actor
    from iris_site.enums import Consumer
    from iris_site.models import ServiceClient, Tenant, TenantMembership
    from iris_site.services import member_create, token_issue
    from memory.enums import SENSITIVE_CATEGORIES, Lifecycle, ScopeKind
    from memory.management.commands.bench_recall import (
        CONSENTS,
        TEMPLATES,
        _vacuum_analyze,
        bench_queries,
        consents_grant,
        populate,
    )
    from memory.models import MemoryEntry
    from memory.turns import conversation_turn_append

    consents = [*CONSENTS, *sorted({category_consent_type(c) for c in SENSITIVE_CATEGORIES})]
    now = timezone.now()
    tenant = Tenant.objects.create(name="Load run", slug=f"load-{uuid.uuid4().hex[:12]}")
    rng = random.Random(seed)  # noqa: S311 - test data, not secrets
    seeded = []
    for index in range(members):
        password = secrets.token_urlsafe(18)
        member = member_create(email=f"load-{index}@load.invalid", password=password)
        TenantMembership.objects.get_or_create(tenant=tenant, user=member)
        consents_grant(member, consents, witness="bench-load")
        synthetic = populate(member, tenant, entries, now=now, seed=seed + index)
        _check_entries(member)
        client = ServiceClient.objects.create(
            consumer=Consumer.ASSISTANT, label=f"load-{index}-{uuid.uuid4().hex[:8]}"
        )
        visible = list(
            MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.ACTIVE)
            .order_by("?")
            .values_list("pk", flat=True)[:100]
        )
        sessions = sorted(set(synthetic.sessions)) or ["load-session"]
        remembers = []
        for number in range(200):
            session = rng.choice(sessions)
            profile = rng.random() < 0.3
            body = f"{synthetic.vocabulary.fill(rng, rng.choice(TEMPLATES))} (#{number})"
            remember = {
                "scope": {"kind": ScopeKind.SESSION, "session_id": session},
                "category": rng.choice(REMEMBER_CATEGORIES),
                "body": body,
                "origin": "model-inferred",
            }
            if profile:
                # The member's own word, as a surface may write it: quoting their turn.
                turn = conversation_turn_append(
                    member=member,
                    session_id=session,
                    speaker="member",
                    text=body,
                    consumer=Consumer.ASSISTANT,
                    actor=Actor.of(client),
                )
                remember |= {
                    "scope": {"kind": ScopeKind.PROFILE},
                    "origin": "user-stated",
                    "provenance": [
                        {
                            "kind": "session-turn",
                            "ref": str(turn.pk),
                            "captured_at": turn.created_at.isoformat(),
                        }
                    ],
                }
            remembers.append(remember)
        seeded.append(
            {
                "id": str(member.pk),
                "email": member.email,
                "password": password,
                "token": token_issue(owner=member, label="load")[1],
                "service_token": token_issue(owner=client, label="load")[1],
                "entry_ids": [str(pk) for pk in visible],
                "recalls": [q.payload() for q in bench_queries(synthetic, 50, seed=seed + index)],
                "remembers": remembers,
            }
        )
    _vacuum_analyze()
    return {"members": seeded}


def _check_entries(member) -> None:
    """Every seeded entry must pass the read contract, so that a failure during the load
    run is the server's, not the data's."""
    from memory.models import MemoryEntry
    from memory.selectors import entry_contract, multi_actor_of

    for entry in MemoryEntry.objects.filter(member=member).prefetch_related("revisions"):
        entry_contract(entry)
        multi_actor_of(entry)


# --- the server -----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Gunicorn:
    """`gunicorn iris_site.wsgi` in its own process group, stopped with SIGTERM."""

    def __init__(self, *, env: dict, workers: int, threads: int, log: Path) -> None:
        self.port = _free_port()
        self.log = log
        self.args = [
            sys.executable,
            "-m",
            "gunicorn",
            "iris_site.wsgi:application",
            f"--bind=127.0.0.1:{self.port}",
            f"--workers={workers}",
            f"--threads={threads}",
            "--timeout=60",
            "--graceful-timeout=10",
            "--keep-alive=5",
            "--log-level=warning",
        ]
        self.env = env
        self.process: subprocess.Popen | None = None

    @property
    def command_line(self) -> str:
        return "gunicorn " + " ".join(self.args[4:])

    def spawn(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 - our interpreter, fixed arguments
                self.args,
                cwd=settings.BASE_DIR,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches us; we stop it in order
            )

    def wait_ready(self, *, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CommandError(f"gunicorn exited at start:\n{self.log_tail()}")
            with suppress(OSError, http.client.HTTPException):
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                connection.request("GET", "/healthz")
                response = connection.getresponse()
                body = response.read()
                connection.close()
                if response.status == 200 and b'"ok"' in body:
                    return
            time.sleep(0.2)
        raise CommandError(f"gunicorn did not answer /healthz in {timeout:.0f} s")

    def processes(self) -> list:
        import psutil

        master = psutil.Process(self.process.pid)
        return [master, *master.children(recursive=True)]

    def rss(self) -> dict[str, Any]:
        import psutil

        sizes, workers, by_process = 0, [], {}
        for process in self.processes():
            with suppress(psutil.NoSuchProcess):
                rss = process.memory_info().rss
                sizes += rss
                by_process[str(process.pid)] = round(rss / 2**20, 1)
                if process.pid != self.process.pid:
                    workers.append(process.pid)
        return {
            "total_mb": round(sizes / 2**20, 1),
            "by_process_mb": by_process,
            "worker_pids": sorted(workers),
        }

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            # Only the group we started (start_new_session: its id is the master's pid).
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


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


@dataclass
class Sample:
    endpoint: str
    started: float  # seconds since the run began
    seconds: float
    ok: bool


@dataclass
class ClientThread:
    port: int
    principals: list[Principal]
    seed: int
    started_at: float
    stop_at: float
    timeout: float
    samples: list[Sample] = field(default_factory=list)
    errors: list[dict] = field(default_factory=list)
    error_count: int = 0

    def request(self, principal: Principal, endpoint: str, rng: random.Random):
        member = principal.member_id
        if endpoint == "recall":
            body = json.dumps(rng.choice(principal.recalls))
            return "POST", f"/api/v1/members/{member}/recall/", body, principal.service_token, 200
        if endpoint == "remember":
            body = json.dumps(rng.choice(principal.remembers))
            return "POST", f"/api/v1/members/{member}/memories/", body, principal.service_token, 201
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
            status, excerpt = None, ""
            try:
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                status = response.status
                if response.will_close:
                    connection.close()
                ok = status == expected or (endpoint == "remember" and status == 200)
                if not ok:
                    excerpt = payload[:300].decode(errors="replace")
            except (OSError, http.client.HTTPException) as exc:
                ok, excerpt = False, f"{type(exc).__name__}: {exc}"
                connection.close()
            elapsed = time.monotonic() - begin
            self.samples.append(Sample(endpoint, begin - self.started_at, elapsed, ok))
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
    latencies = sorted(s.seconds for s in samples)
    return {
        "requests": len(samples),
        "errors": sum(1 for s in samples if not s.ok),
        "throughput_rps": round(len(samples) / seconds, 1) if seconds else 0.0,
        "p50_ms": round(_percentile(latencies, 0.50) * 1000, 1),
        "p95_ms": round(_percentile(latencies, 0.95) * 1000, 1),
        "p99_ms": round(_percentile(latencies, 0.99) * 1000, 1),
    }


def _sleep_until(moment: float) -> None:
    while (left := moment - time.monotonic()) > 0:
        time.sleep(min(left, 0.25))


class Command(BaseCommand):
    help = (
        "Load run against gunicorn on 127.0.0.1 with a scratch database (never the "
        "configured one): recall, remember, memory reads and member pages; prints "
        "throughput, p50/p95/p99 latency, errors and server memory growth."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--duration", type=float, default=30.0, help="measured seconds")
        parser.add_argument("--warmup", type=float, default=5.0, help="unmeasured seconds first")
        parser.add_argument("--concurrency", type=int, default=8, help="client threads")
        parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
        parser.add_argument("--threads", type=int, default=2, help="threads per worker")
        parser.add_argument("--members", type=int, default=8)
        parser.add_argument("--entries", type=int, default=300, help="memories per member")
        parser.add_argument(
            "--database-url",
            help="the server to make the scratch database on (default: DATABASE_URL; "
            "SQLite or unset: a temporary SQLite file). The database it names is never used.",
        )
        parser.add_argument(
            "--sqlite", action="store_true", help="a temporary SQLite file, whatever DATABASE_URL"
        )
        parser.add_argument(
            "--rate",
            default=GENEROUS_RATE,
            help=f"the value of {', '.join(RATE_VARIABLES)} for the server",
        )
        parser.add_argument("--timeout", type=float, default=60.0, help="per request, seconds")
        parser.add_argument("--seed", type=int, default=20261201)
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--prepare-into", help=argparse.SUPPRESS)  # the child's step

    def handle(self, *args, **options) -> None:
        if options["prepare_into"]:
            self._prepare_child(Path(options["prepare_into"]), options)
            return
        for name in ("duration", "concurrency", "workers", "threads", "members", "entries"):
            if options[name] <= 0:
                raise CommandError(f"--{name} must be positive")
        try:
            import psutil  # noqa: F401 - the server's memory is part of the report
        except ImportError as exc:
            raise CommandError(
                "bench_load needs psutil to measure the server's memory: "
                "pip install -e '.[test]' (or pip install psutil)."
            ) from exc
        self.progress = self.stderr if options["json"] else self.stdout
        report = self._run(options)
        if options["json"]:
            self.stdout.write(json.dumps(report))
        else:
            self._print(report)
        if report["errors"]:
            raise CommandError(f"{report['errors']} request(s) failed during the load run")

    def _prepare_child(self, workdir: Path, options: dict) -> None:
        """In the child: migrate the scratch database, leave a marker, seed it."""
        from django.core.management import call_command
        from django.db import connection

        marker = os.environ.get(SCRATCH_MARKER, "")
        if not marker or str(connection.settings_dict["NAME"]) != marker:
            raise CommandError("--prepare-into only writes the scratch database bench_load made.")
        started = time.monotonic()
        call_command("migrate", interactive=False, verbosity=0)
        (workdir / "migrated").write_text(str(time.monotonic() - started))
        data = seed_scratch(
            members=options["members"], entries=options["entries"], seed=options["seed"]
        )
        path = workdir / "principals.json"
        path.touch(mode=0o600)
        path.write_text(json.dumps(data))

    def _say(self, message: str) -> None:
        self.progress.write(message)
        self.progress.flush()

    def _run(self, options: dict) -> dict[str, Any]:
        secret = secrets.token_urlsafe(48)
        with scratch_database(_server_url(options)) as scratch:
            env = scratch_environment(scratch, secret=secret, rate=options["rate"])
            server = Gunicorn(
                env=env,
                workers=options["workers"],
                threads=options["threads"],
                log=scratch.workdir / "gunicorn.log",
            )
            self._say(
                f"Scratch {scratch.engine} database {scratch.name}: migrating, then seeding "
                f"{options['members']} members x {options['entries']} memories…"
            )
            try:
                # One child migrates and seeds; gunicorn boots while it seeds.
                seeded, migrate_seconds, seed_seconds = self._prepare(
                    scratch, env, options, on_migrated=server.spawn
                )
                self._say(f"Started {server.command_line}; waiting for /healthz…")
                server.wait_ready()
                try:
                    sessions = [
                        member_login(server.port, m["email"], m["password"]) for m in seeded
                    ]
                except CommandError as exc:
                    raise CommandError(f"{exc}\ngunicorn log (tail):\n{server.log_tail()}") from exc
                principals = [
                    Principal(
                        member_id=m["id"],
                        token=m["token"],
                        service_token=m["service_token"],
                        session=session,
                        entry_ids=m["entry_ids"],
                        recalls=m["recalls"],
                        remembers=m["remembers"],
                    )
                    for m, session in zip(seeded, sessions, strict=True)
                ]
                self._say(
                    f"Driving {options['concurrency']} clients for {options['warmup']:g} s "
                    f"warm-up + 2 x {options['duration'] / 2:g} s…"
                )
                report = self._drive(server, principals, options)
                report["server_log_tail"] = server.log_tail(20) if report["errors"] else ""
            finally:
                server.stop()
        report.update(
            {
                "database": scratch.engine,
                "scratch_database": scratch.name,
                "migrate_seconds": round(migrate_seconds, 1),
                "seed_seconds": round(seed_seconds, 1),
                "server": {
                    "command": server.command_line,
                    "settings": "iris_site.settings",
                    "debug": False,
                    "conn_max_age": env.get("CONN_MAX_AGE", "0"),
                    "cache": _cache_label(env),
                    "rates": {variable: env[variable] for variable in RATE_VARIABLES},
                },
                "members": len(seeded),
                "entries_per_member": options["entries"],
                "concurrency": options["concurrency"],
                "workers": options["workers"],
                "threads": options["threads"],
            }
        )
        return report

    def _prepare(
        self, scratch: Scratch, env: dict, options: dict, *, on_migrated
    ) -> tuple[list[dict], float, float]:
        """Run `bench_load --prepare-into` against the scratch database (migrate, then
        seed); call `on_migrated` as soon as the schema is there."""
        marker = scratch.workdir / "migrated"
        output = scratch.workdir / "principals.json"
        log = scratch.workdir / "prepare.log"
        args = [
            sys.executable,
            str(Path(settings.BASE_DIR) / "manage.py"),
            "bench_load",
            f"--prepare-into={scratch.workdir}",
            f"--members={options['members']}",
            f"--entries={options['entries']}",
            f"--seed={options['seed']}",
        ]
        started = time.monotonic()
        migrate_seconds = None
        with log.open("wb") as sink:
            child = subprocess.Popen(  # noqa: S603 - our interpreter, fixed arguments
                args, env=env, cwd=settings.BASE_DIR, stdout=sink, stderr=subprocess.STDOUT
            )
        try:
            while child.poll() is None:
                if migrate_seconds is None and marker.exists():
                    migrate_seconds = time.monotonic() - started
                    on_migrated()
                time.sleep(0.1)
        finally:
            if child.poll() is None:  # interrupted: stop the child we started
                child.terminate()
                child.wait(timeout=30)
        if child.returncode != 0 or not output.exists():
            tail = log.read_text(errors="replace")[-4000:]
            raise CommandError(f"Preparing the scratch database failed:\n{tail}")
        if migrate_seconds is None:
            migrate_seconds = float(marker.read_text())
            on_migrated()
        seeded = json.loads(output.read_text())["members"]
        return seeded, migrate_seconds, time.monotonic() - started - migrate_seconds

    def _drive(self, server: Gunicorn, principals: list[Principal], options: dict) -> dict:
        warmup, half = options["warmup"], options["duration"] / 2
        load_before = os.getloadavg()[0]
        begin = time.monotonic()
        measured_from, middle, end = (
            begin + warmup,
            begin + warmup + half,
            begin + warmup + 2 * half,
        )
        clients = [
            ClientThread(
                port=server.port,
                principals=principals,
                seed=options["seed"] + index,
                started_at=begin,
                stop_at=end,
                timeout=options["timeout"],
            )
            for index in range(options["concurrency"])
        ]
        threads = [
            threading.Thread(target=client.run, name=f"load-{i}", daemon=True)
            for i, client in enumerate(clients)
        ]
        for thread in threads:
            thread.start()
        memory = {}
        for label, moment in (("after_warmup", measured_from), ("after_phase_1", middle)):
            _sleep_until(moment)
            memory[label] = server.rss()
        _sleep_until(end)
        memory["after_phase_2"] = server.rss()
        for thread in threads:
            thread.join(timeout=options["timeout"] + 5)
        if any(thread.is_alive() for thread in threads):
            raise CommandError("Client threads did not finish; the server stopped answering.")

        samples = [s for client in clients for s in client.samples]
        warm_offset, middle_offset = warmup, warmup + half
        measured = [s for s in samples if s.started >= warm_offset]
        first = [s for s in measured if s.started < middle_offset]
        second = [s for s in measured if s.started >= middle_offset]
        errors = sum(client.error_count for client in clients)
        pids = {label: set(m.pop("worker_pids")) for label, m in memory.items()}
        return {
            "benchmark": "load",
            "duration_seconds": options["duration"],
            "warmup_seconds": warmup,
            "total": figures(measured, 2 * half),
            "endpoints": {
                name: figures([s for s in measured if s.endpoint == name], 2 * half)
                for name, _ in MIX
            },
            "phases": {"1": figures(first, half), "2": figures(second, half)},
            "warmup_requests": len(samples) - len(measured),
            "errors": errors,
            "machine": {
                "cpus": os.cpu_count(),
                "loadavg_1m_before": round(load_before, 2),
                "loadavg_1m_after": round(os.getloadavg()[0], 2),
            },
            "error_samples": [e for client in clients for e in client.errors][:20],
            "memory_mb": {
                **{label: m["total_mb"] for label, m in memory.items()},
                "by_process": {label: m["by_process_mb"] for label, m in memory.items()},
                "growth_phase_1": round(
                    memory["after_phase_1"]["total_mb"] - memory["after_warmup"]["total_mb"], 1
                ),
                "growth_phase_2": round(
                    memory["after_phase_2"]["total_mb"] - memory["after_phase_1"]["total_mb"], 1
                ),
                "processes": len(pids["after_phase_2"]) + 1,
                "workers_replaced": len(pids["after_phase_2"] - pids["after_warmup"]),
            },
        }

    def _print(self, report: dict) -> None:
        server = report["server"]
        self.stdout.write(
            f"Load run on {report['database']} ({report['scratch_database']}, removed): "
            f"{report['members']} members x {report['entries_per_member']} memories, "
            f"{report['concurrency']} clients, {server['command']}"
        )
        self.stdout.write(
            f"settings {server['settings']}, DEBUG off, CONN_MAX_AGE={server['conn_max_age']}, "
            f"cache {server['cache']}, " + ", ".join(f"{k}={v}" for k, v in server["rates"].items())
        )
        self.stdout.write(
            f"migrate {report['migrate_seconds']} s, seed {report['seed_seconds']} s, "
            f"warm-up {report['warmup_seconds']:g} s ({report['warmup_requests']} requests), "
            f"measured {report['duration_seconds']:g} s; {report['machine']['cpus']} CPUs, "
            f"load average {report['machine']['loadavg_1m_before']} before, "
            f"{report['machine']['loadavg_1m_after']} after (the client shares the machine)"
        )
        header = f"{'endpoint':<48}{'requests':>9}{'req/s':>8}{'p50 ms':>9}{'p95 ms':>9}"
        self.stdout.write(header + f"{'p99 ms':>9}{'errors':>8}")
        rows = [(ENDPOINT_LABELS[name], report["endpoints"][name]) for name, _ in MIX]
        rows.append(("total", report["total"]))
        rows += [(f"  phase {k}", v) for k, v in report["phases"].items()]
        for label, row in rows:
            self.stdout.write(
                f"{label:<48}{row['requests']:>9}{row['throughput_rps']:>8}{row['p50_ms']:>9}"
                f"{row['p95_ms']:>9}{row['p99_ms']:>9}{row['errors']:>8}"
            )
        memory = report["memory_mb"]
        self.stdout.write(
            f"server RSS (master + {memory['processes'] - 1} workers): "
            f"{memory['after_warmup']} MB after warm-up, {memory['after_phase_1']} MB after "
            f"phase 1 ({memory['growth_phase_1']:+} MB), {memory['after_phase_2']} MB after "
            f"phase 2 ({memory['growth_phase_2']:+} MB); workers replaced: "
            f"{memory['workers_replaced']}"
        )
        if report["errors"]:
            self.stdout.write(self.style.ERROR(f"{report['errors']} errors, for example:"))
            for error in report["error_samples"]:
                self.stdout.write(
                    f"  {error['endpoint']} {error['method']} {error['path']} -> "
                    f"{error['status']}: {error['detail']}"
                )
            if report.get("server_log_tail"):
                self.stdout.write("gunicorn log (tail):\n" + report["server_log_tail"])
        else:
            self.stdout.write(self.style.SUCCESS("errors: 0"))
        self.stdout.write(json.dumps(report))
