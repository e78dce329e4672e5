from datetime import datetime

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from memory.sweeps.retention import retention_sweep


class Command(BaseCommand):
    help = (
        "Apply the retention envelopes once: compact expired session, scene and pose memory, "
        "tombstone expired summaries, flag review-due memory (idempotent)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--now",
            help="sweep as of this ISO 8601 time with a zone (default: the current time)",
        )

    def handle(self, *args, **options) -> None:
        now = timezone.now()
        if options["now"]:
            try:
                now = datetime.fromisoformat(options["now"])
            except ValueError as error:
                raise CommandError(f"--now: {error}") from error
            if timezone.is_naive(now):
                raise CommandError("--now needs a time zone, e.g. 2026-05-01T00:00:00Z")
        report = retention_sweep(now=now)
        counts = ", ".join(f"{name.replace('_', ' ')}: {n}" for name, n in report.as_dict().items())
        self.stdout.write(self.style.SUCCESS(f"Retention sweep done ({counts})"))
