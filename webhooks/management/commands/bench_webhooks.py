"""``manage.py bench_webhooks``: the options; the benchmark is `webhooks.bench`."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from webhooks.bench import bench_webhooks_run


class Command(BaseCommand):
    help = (
        "Webhook delivery throughput: --events change events per endpoint delivered by "
        "back-to-back runs of deliver_webhooks (one worker) to a loopback receiver, with 1 "
        "and with 4 endpoints (--endpoints); events/s, each attempt's p50/p95 and the "
        "per-run fairness. Rolled back; a scratch database. Prints a JSON summary last."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--events", type=int, default=2000, help="events per endpoint")
        parser.add_argument("--endpoints", type=int, nargs="+", default=[1, 4])

    def handle(self, *args, **options) -> None:
        bench_webhooks_run(options, out=self.stdout)
