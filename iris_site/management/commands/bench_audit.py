"""Benchmark: audited writes per second with N concurrent writers for different members.

    DATABASE_URL=postgres://…/iris_bench python manage.py bench_audit --writers 1,2,4,8

Each writer is a thread with its own database connection and its own member; it loops
for `--seconds`, each iteration one transaction the way a service writes: the member
lock, then one `audit_event_append`. Printed per writer count: committed appends, the
rate in total and per writer. Audit events are append-only, so every row it writes stays:
it refuses a database whose name does not say `bench` or `scratch` unless `--any-database`.
On SQLite the writers serialize on the database's one write lock whatever the chain does.
"""

import threading
import time
import uuid

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.enums import UserKind
from iris_site.models import User
from iris_site.services import member_lock

ACTOR = Actor.system("bench-audit")


def _writer_counts(raw: str) -> list[int]:
    try:
        counts = [int(part) for part in raw.split(",") if part.strip()]
    except ValueError as exc:
        raise CommandError(f"--writers {raw!r}: expected e.g. 1,2,4,8") from exc
    if not counts or min(counts) < 1:
        raise CommandError("--writers: positive counts, e.g. 1,2,4,8")
    return counts


def _append_loop(member_id: uuid.UUID, deadline: float, start: threading.Barrier, out: list):
    done = 0
    try:
        start.wait(timeout=30)
        while time.perf_counter() < deadline:
            with transaction.atomic():
                member_lock(member_id=member_id)
                audit_event_append(
                    action=AuditAction.IRIS_SITE_AUDIT_BENCH_APPENDED,
                    policy_id="iris.iris_site.audit_bench.v1",
                    actor=ACTOR,
                    target_member_id=member_id,
                    payload={"index": done},
                )
            done += 1
        out.append(done)
    finally:
        connection.close()


class Command(BaseCommand):
    help = "Print audited writes per second for 1, 2, 4, 8… concurrent writers (one member each)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--writers", default="1,2,4,8", help="comma-separated counts")
        parser.add_argument("--seconds", type=float, default=5.0, help="per writer count")
        parser.add_argument(
            "--any-database",
            action="store_true",
            help="write to a database whose name says neither bench nor scratch",
        )

    def handle(self, *args, **options) -> None:
        counts = _writer_counts(options["writers"])
        name = str(connection.settings_dict["NAME"])
        if not options["any_database"] and not any(w in name for w in ("bench", "scratch")):
            raise CommandError(
                f"{name!r} is not a bench database: audit rows cannot be deleted "
                "(pass --any-database to write there anyway)"
            )
        seconds = options["seconds"]
        self.stdout.write(f"bench_audit on {connection.vendor} ({name}), {seconds:g} s per count")
        self.stdout.write(f"{'writers':>7}  {'appends':>8}  {'per s':>9}  {'per writer/s':>12}")
        for writers in counts:
            members = [
                User.objects.create(
                    email=f"bench-audit-{uuid.uuid4().hex}@bench.invalid", kind=UserKind.MEMBER
                ).pk
                for _ in range(writers)
            ]
            connection.close()  # each thread opens its own
            start = threading.Barrier(writers)
            done: list[int] = []
            began = time.perf_counter()
            deadline = began + seconds
            threads = [
                threading.Thread(target=_append_loop, args=(m, deadline, start, done))
                for m in members
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - began
            if len(done) != writers:
                raise CommandError(f"{writers - len(done)} writer(s) failed; see the traceback")
            total, rate = sum(done), sum(done) / elapsed
            self.stdout.write(f"{writers:>7}  {total:>8}  {rate:>9.0f}  {rate / writers:>12.0f}")
