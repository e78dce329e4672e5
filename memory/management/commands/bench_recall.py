"""``manage.py bench_recall``: the options; the benchmarks are `memory.bench.recall`."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from memory.bench.recall import DEFAULT_LOCOMO, bench_recall_run


class Command(BaseCommand):
    help = (
        "Recall benchmarks: --locomo [PATH] (evidence recall on LoCoMo), --scale N [N ...] "
        "(latency for one synthetic member with N entries) and/or --long-query (a long "
        "query against a one-word one). Each part prints a "
        "JSON summary on its last line."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--locomo",
            nargs="?",
            const=str(DEFAULT_LOCOMO),
            metavar="PATH",
            help=f"a LoCoMo JSON file (default {DEFAULT_LOCOMO})",
        )
        parser.add_argument("--scale", nargs="+", type=int, metavar="N")
        parser.add_argument(
            "--long-query",
            action="store_true",
            help="a one-word and a long query on one synthetic member: what the long one"
            " costs against the one word (the query cut, memory.recall.MAX_QUERY_TERMS)",
        )
        parser.add_argument("--long-entries", type=int, default=2500, metavar="N")
        parser.add_argument("--long-words", type=int, default=400, metavar="N")
        parser.add_argument(
            "--peers",
            action="store_true",
            help="with LoCoMo: the same corpus in PostgreSQL full-text search, side by side",
        )
        parser.add_argument("--queries", type=int, default=50, help="recalls per size")
        parser.add_argument("--warmup", type=int, default=5)
        parser.add_argument(
            "--rounds",
            type=int,
            default=3,
            help="passes over the queries in process; a query's time is its median",
        )
        parser.add_argument(
            "--reference-timed",
            type=int,
            default=10,
            help="how many queries time the full reference (every query is compared)",
        )
        parser.add_argument("--seed", type=int, default=20261130)
        parser.add_argument(
            "--against",
            metavar="CHECKOUT",
            help="with --scale: also time another checkout's recall store (memory/recall/store/,"
            " or an older checkout's one-file store; a git worktree of an earlier commit),"
            " alternating with this one query by query in the same rounds, on the same data",
        )

    def handle(self, *args, **options) -> None:
        bench_recall_run(options, out=self.stdout)
