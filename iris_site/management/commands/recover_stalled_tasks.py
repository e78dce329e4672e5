"""Requeue tasks left RUNNING by a dead worker (the scheduled job, by hand; run it
before starting workers after a crash, e.g. `--lease-seconds 0` once all are stopped)."""

import json
from datetime import timedelta

from django.core.management.base import BaseCommand

from iris_site.jobs import tasks_recover_stalled


class Command(BaseCommand):
    help = "Requeue django-tasks-db tasks stuck in RUNNING longer than the lease."

    def add_arguments(self, parser):
        parser.add_argument(
            "--lease-seconds",
            type=float,
            default=None,
            help="Override IRIS_TASK_LEASE_SECONDS. 0 = every RUNNING task: only when no "
            "worker is alive.",
        )

    def handle(self, *args, lease_seconds=None, **options):
        lease = None if lease_seconds is None else timedelta(seconds=lease_seconds)
        self.stdout.write(json.dumps(tasks_recover_stalled(lease=lease), sort_keys=True))
