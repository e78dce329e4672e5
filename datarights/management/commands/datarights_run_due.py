import json

from django.core.management.base import BaseCommand

from datarights.processing import datarights_process, datarights_run_due


class Command(BaseCommand):
    help = (
        "Run the time-driven data-rights work by hand (expiry of unverified requests, soft "
        "deletes past their grace, expired downloads, stalled jobs); with --request, run "
        "or resume one request. Idempotent."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--request", help="the id of one request to run or resume")

    def handle(self, *args, **options) -> None:
        if options["request"]:
            status = datarights_process(request_id=options["request"])
            self.stdout.write(f"request {options['request']}: {status}")
            return
        self.stdout.write(json.dumps(datarights_run_due(), sort_keys=True))
