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
SQL statements per request (p50 and max, as the server's ``Server-Timing`` header says:
the server runs with ``IRIS_SERVER_TIMING`` on), the resident memory of the gunicorn
master and workers after the warm-up and after each phase (steady growth in both phases
would be a leak), and every error: any response other than the expected status, or an
exception. Errors make it exit non-zero. The report ends with one JSON object on its
last line (``--json``: only that object).

``--long-queries N`` adds, in the second phase only, N client threads that send nothing
but recalls of the first member with a ``--long-query-words`` (400) word query; the
report then sets the other members' recalls by the mix clients in phase 1 (without)
beside phase 2 (with), and the long recalls' own figures: one member's recall starving
another's shows as the second far above the first. ``--checkout PATH`` serves another
checkout's code (a worktree of an older commit, seeded by its own ``--prepare-into``
step), driven by these clients.

The stage (scratch database, seed, gunicorn) is `memory.bench.load_setup`, the clients
and their figures `memory.bench.load_clients`; the command
(`memory.management.commands.bench_load`) only declares the options.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, OutputWrapper
from django.core.management.color import Style

from memory.bench.load_clients import (
    ENDPOINT_LABELS,
    MIX,
    ClientThread,
    Principal,
    figures,
    long_query,
    member_login,
    sleep_until,
)
from memory.bench.load_setup import (
    RATE_VARIABLES,
    SCRATCH_MARKER,
    Gunicorn,
    Scratch,
    cache_label,
    checkout_of,
    scratch_database,
    scratch_environment,
    seed_scratch,
    server_url,
)


def bench_load_run(
    options: dict, *, stdout: OutputWrapper, stderr: OutputWrapper, style: Style
) -> None:
    """`manage.py bench_load` with its parsed ``options`` (the hidden ``--prepare-into``:
    the child's step); raises `CommandError` if a request failed."""
    LoadRun(stdout=stdout, stderr=stderr, style=style).run(options)


class LoadRun:
    """One load run, printing to the command's streams."""

    def __init__(self, *, stdout: OutputWrapper, stderr: OutputWrapper, style: Style) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.style = style

    def run(self, options: dict) -> None:
        if options["prepare_into"]:
            self._prepare_child(Path(options["prepare_into"]), options)
            return
        for name in ("duration", "concurrency", "workers", "threads", "members", "entries"):
            if options[name] <= 0:
                raise CommandError(f"--{name} must be positive")
        if options["long_queries"] < 0 or options["long_query_words"] <= 0:
            raise CommandError("--long-queries must be 0 or more, --long-query-words positive")
        checkout_of(options)  # refuse a wrong --checkout before making anything
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
        checkout = checkout_of(options)
        with scratch_database(server_url(options)) as scratch:
            env = scratch_environment(scratch, secret=secret, rate=options["rate"])
            server = Gunicorn(
                env=env,
                workers=options["workers"],
                threads=options["threads"],
                log=scratch.workdir / "gunicorn.log",
                checkout=checkout,
            )
            self._say(
                f"Scratch {scratch.engine} database {scratch.name}: migrating, then seeding "
                f"{options['members']} members x {options['entries']} memories…"
            )
            try:
                # One child migrates and seeds; gunicorn boots while it seeds.
                seeded, migrate_seconds, seed_seconds = self._prepare(
                    scratch, env, options, checkout=checkout, on_migrated=server.spawn
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
                    "checkout": str(checkout),
                    "revision": _revision(checkout),
                    "server_timing": env["IRIS_SERVER_TIMING"],
                    "settings": "iris_site.settings",
                    "debug": False,
                    # unset: the checkout's own default (since issue 43, 60 on PostgreSQL)
                    "conn_max_age": env.get("CONN_MAX_AGE", "default"),
                    "cache": cache_label(env),
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
        self, scratch: Scratch, env: dict, options: dict, *, checkout: Path, on_migrated
    ) -> tuple[list[dict], float, float]:
        """Run the checkout's `bench_load --prepare-into` against the scratch database
        (migrate, then seed); call `on_migrated` as soon as the schema is there."""
        marker = scratch.workdir / "migrated"
        output = scratch.workdir / "principals.json"
        log = scratch.workdir / "prepare.log"
        args = [
            sys.executable,
            str(checkout / "manage.py"),
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
                args, env=env, cwd=checkout, stdout=sink, stderr=subprocess.STDOUT
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
        # --long-queries: only long recalls of the first member, in phase 2 only.
        target = principals[0]
        payload = long_query(target, options["long_query_words"], seed=options["seed"])
        long_clients = [
            ClientThread(
                port=server.port,
                principals=[target],
                seed=options["seed"] + 1000 + index,
                started_at=begin,
                stop_at=end,
                timeout=options["timeout"],
                start_at=middle,
                long_payload=payload,
            )
            for index in range(options["long_queries"])
        ]
        threads = [
            threading.Thread(target=client.run, name=f"load-{i}", daemon=True)
            for i, client in enumerate(clients + long_clients)
        ]
        for thread in threads:
            thread.start()
        memory = {}
        for label, moment in (("after_warmup", measured_from), ("after_phase_1", middle)):
            sleep_until(moment)
            memory[label] = server.rss()
        sleep_until(end)
        memory["after_phase_2"] = server.rss()
        for thread in threads:
            thread.join(timeout=options["timeout"] + 5)
        if any(thread.is_alive() for thread in threads):
            raise CommandError("Client threads did not finish; the server stopped answering.")

        mixed = [s for client in clients for s in client.samples]
        warm_offset, middle_offset = warmup, warmup + half
        measured = [s for s in mixed if s.started >= warm_offset]
        first = [s for s in measured if s.started < middle_offset]
        second = [s for s in measured if s.started >= middle_offset]
        errors = sum(client.error_count for client in clients + long_clients)
        pids = {label: set(m.pop("worker_pids")) for label, m in memory.items()}
        long_report = None
        if long_clients:

            def others(phase):
                return [s for s in phase if s.endpoint == "recall" and s.member != target.member_id]

            long_report = {
                "clients": len(long_clients),
                "words": options["long_query_words"],
                "query_chars": len(payload["query"]),
                "member": target.member_id,
                "long_recalls": figures([s for c in long_clients for s in c.samples], half),
                "other_members_recall": {
                    "without": figures(others(first), half),
                    "with": figures(others(second), half),
                },
            }
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
            "warmup_requests": len(mixed) - len(measured),
            "long_queries": long_report,
            "errors": errors,
            "machine": {
                "cpus": os.cpu_count(),
                "loadavg_1m_before": round(load_before, 2),
                "loadavg_1m_after": round(os.getloadavg()[0], 2),
            },
            "error_samples": [e for c in clients + long_clients for e in c.errors][:20],
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
        self.stdout.write(header + f"{'p99 ms':>9}{'errors':>8}{'SQL p50':>9}{'max':>5}")
        rows = [(ENDPOINT_LABELS[name], report["endpoints"][name]) for name, _ in MIX]
        rows.append(("total", report["total"]))
        rows += [(f"  phase {k}", v) for k, v in report["phases"].items()]
        for label, row in rows:
            self.stdout.write(_row(label, row))
        self.stdout.write(
            "SQL: statements per request, from the server's Server-Timing header"
            if report["total"]["statements_max"] is not None
            else "SQL: the server sent no Server-Timing header (a checkout before it): -"
        )
        if long := report["long_queries"]:
            self.stdout.write(
                f"--long-queries {long['clients']}: in phase 2 only, {long['clients']} more "
                f"client(s) recall the first member with a {long['words']}-word query "
                f"({long['query_chars']} characters), one after another:"
            )
            rows = [
                ("  the long recalls (phase 2)", long["long_recalls"]),
                (
                    "  other members' recalls, phase 1: without",
                    long["other_members_recall"]["without"],
                ),
                ("  other members' recalls, phase 2: with", long["other_members_recall"]["with"]),
            ]
            for label, row in rows:
                self.stdout.write(_row(label, row))
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


def _row(label: str, row: dict) -> str:
    statements = "-" if row["statements_p50"] is None else row["statements_p50"]
    most = "-" if row["statements_max"] is None else row["statements_max"]
    return (
        f"{label:<48}{row['requests']:>9}{row['throughput_rps']:>8}{row['p50_ms']:>9}"
        f"{row['p95_ms']:>9}{row['p99_ms']:>9}{row['errors']:>8}{statements:>9}{most:>5}"
    )


def _revision(checkout: Path) -> str:
    """The checkout's commit (short), or "" where git cannot say."""
    try:
        done = subprocess.run(  # noqa: S603 - fixed arguments
            ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],  # noqa: S607
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
