"""``bench_load``'s stage: the scratch database (a temporary SQLite file, or a fresh
``iris_load_<random>`` database on the PostgreSQL server, removed afterwards), the
server's environment, the seed written into it by the child process, and gunicorn."""

from __future__ import annotations

import http.client
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management.base import CommandError

SCRATCH_MARKER = "IRIS_BENCH_LOAD_SCRATCH"  # names the scratch database the seed may write
RATE_VARIABLES = ("IRIS_RATE_READ", "IRIS_RATE_WRITE", "IRIS_RATE_ANON", "IRIS_RATE_LOGIN")
GENEROUS_RATE = "1000000/min"
REMEMBER_CATEGORIES = ("fact", "preference", "goal", "work", "relationship")


# --- the scratch database -------------------------------------------------------------


@dataclass
class Scratch:
    url: str
    engine: str  # "sqlite" or "postgresql"
    name: str  # the file or the database
    workdir: Path


def server_url(options: dict) -> str:
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
def scratch_database(server: str) -> Iterator[Scratch]:
    """A fresh, empty database that is removed afterwards, whatever happens."""
    workdir = Path(tempfile.mkdtemp(prefix="iris-load-"))
    try:
        scheme = urlsplit(server).scheme if server else "sqlite"
        if scheme.startswith("postgres"):
            name = f"iris_load_{secrets.token_hex(6)}"
            with _pg_admin(server) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            try:
                parts = urlsplit(server)
                url = urlunsplit(parts._replace(path=f"/{name}"))
                yield Scratch(url=url, engine="postgresql", name=name, workdir=workdir)
            finally:
                with _pg_admin(server) as admin:
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        elif scheme == "sqlite":
            path = workdir / "scratch.sqlite3"
            yield Scratch(url=f"sqlite:///{path}", engine="sqlite", name=str(path), workdir=workdir)
        else:
            raise CommandError(f"bench_load runs on SQLite or PostgreSQL, not {scheme!r}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def cache_label(env: dict) -> str:
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
            # Each answer's SQL statements and their time, for the report (a checkout
            # before the setting existed ignores it).
            "IRIS_SERVER_TIMING": "true",
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
    from memory.bench.harness import vacuum_analyze
    from memory.bench.queries import bench_queries
    from memory.bench.synthetic import CONSENTS, TEMPLATES, consents_grant, populate
    from memory.enums import SENSITIVE_CATEGORIES, Lifecycle, ScopeKind
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
    vacuum_analyze()
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


def checkout_of(options: dict) -> Path:
    """The checkout the server runs: ``--checkout`` (another worktree, which seeds the
    scratch database with its own ``bench_load --prepare-into``), else this one."""
    root = Path(options.get("checkout") or settings.BASE_DIR).resolve()
    if not (root / "manage.py").is_file() or not (root / "iris_site" / "wsgi.py").is_file():
        raise CommandError(f"--checkout {root}: no manage.py and iris_site/wsgi.py there")
    return root


class Gunicorn:
    """`gunicorn iris_site.wsgi` of ``checkout`` in its own process group, stopped with
    SIGTERM."""

    def __init__(self, *, env: dict, workers: int, threads: int, log: Path, checkout: Path) -> None:
        self.port = _free_port()
        self.log = log
        self.checkout = checkout  # its working directory: `python -m` imports from there
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
                cwd=self.checkout,
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
