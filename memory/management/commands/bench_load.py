"""``manage.py bench_load``: the options; the load run is `memory.bench.load`."""

from __future__ import annotations

import argparse

from django.core.management.base import BaseCommand

from memory.bench.load import bench_load_run
from memory.bench.load_setup import GENEROUS_RATE, RATE_VARIABLES


class Command(BaseCommand):
    help = (
        "Load run against gunicorn on 127.0.0.1 with a scratch database (never the "
        "configured one): recall, remember, memory reads and member pages; prints "
        "throughput, p50/p95/p99 latency, SQL statements per request, errors and server "
        "memory growth."
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
        parser.add_argument(
            "--long-queries",
            type=int,
            default=0,
            metavar="N",
            help="in the second phase only, N more clients sending only recalls of the first "
            "member with a long query; the report sets the other members' recalls without "
            "(phase 1) beside with (phase 2)",
        )
        parser.add_argument(
            "--long-query-words", type=int, default=400, help="the long query's words"
        )
        parser.add_argument(
            "--checkout",
            metavar="PATH",
            help="serve this checkout's code (e.g. a worktree of an older commit; it seeds "
            "with its own bench_load --prepare-into) instead of this one's",
        )
        parser.add_argument("--timeout", type=float, default=60.0, help="per request, seconds")
        parser.add_argument("--seed", type=int, default=20261201)
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--prepare-into", help=argparse.SUPPRESS)  # the child's step

    def handle(self, *args, **options) -> None:
        bench_load_run(options, stdout=self.stdout, stderr=self.stderr, style=self.style)
