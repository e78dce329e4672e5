"""``manage.py bench_changes``: the options; the benchmark is `memory.bench.changes`."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from memory.bench.changes import bench_changes_run


class Command(BaseCommand):
    help = (
        "What telling the surfaces costs: a forget with 10 recipients against none (p50 over "
        "--runs, on a member of --entries with --history recall records), and the change "
        "feed read over HTTP in pages of 500 (--events). Rolled back; a scratch database. "
        "Prints a JSON summary on its last line."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--entries", type=int, default=1000)
        parser.add_argument("--history", type=int, default=500, help="recall records")
        parser.add_argument("--runs", type=int, default=50, help="forgets of each kind")
        parser.add_argument("--events", type=int, default=10000, help="events in the feed")
        parser.add_argument("--rounds", type=int, default=3, help="passes over the feed")
        parser.add_argument("--seed", type=int, default=20261206)

    def handle(self, *args, **options) -> None:
        bench_changes_run(options, out=self.stdout)
