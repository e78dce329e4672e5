from django.core.management.base import BaseCommand

from hierarchy.freshness_job import freshness_confidence_run
from hierarchy.management.commands._when import parse_when


class Command(BaseCommand):
    help = (
        "Run the freshness/confidence job once: queue stale low-confidence inferences for "
        "member re-confirmation (idempotent)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--now", help="as of this ISO 8601 time with a zone")

    def handle(self, *args, **options) -> None:
        report = freshness_confidence_run(now=parse_when(options["now"]))
        self.stdout.write(
            self.style.SUCCESS(
                f"Freshness job done (evaluated: {report.evaluated}, "
                f"queued: {report.enqueued}, resolved: {report.resolved})"
            )
        )
