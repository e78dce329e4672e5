from django.core.management.base import BaseCommand

from hierarchy.management.commands._when import parse_when
from hierarchy.stm import stm_expire_due


class Command(BaseCommand):
    help = (
        "Expire short-term memory once: hard-delete expired ordinary rows, anonymize expired "
        "sensitive rows in place (idempotent)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--now", help="as of this ISO 8601 time with a zone")

    def handle(self, *args, **options) -> None:
        report = stm_expire_due(now=parse_when(options["now"]))
        self.stdout.write(
            self.style.SUCCESS(
                f"Short-term expiry done (deleted: {report.deleted}, "
                f"anonymized: {report.anonymized})"
            )
        )
