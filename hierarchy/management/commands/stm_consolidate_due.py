from django.core.management.base import BaseCommand

from hierarchy.consolidation import stm_age_consolidation_run
from hierarchy.management.commands._when import parse_when


class Command(BaseCommand):
    help = (
        "Run the age-triggered consolidation scan once: rows expiring within 15 minutes get "
        "the v1 policy (drop), each exactly once (idempotent)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--now", help="as of this ISO 8601 time with a zone")

    def handle(self, *args, **options) -> None:
        report = stm_age_consolidation_run(now=parse_when(options["now"]))
        self.stdout.write(
            self.style.SUCCESS(
                f"Age-triggered scan done (scanned: {report.scanned}, dropped: {report.dropped}, "
                f"unknown kind: {report.unknown_kind})"
            )
        )
