from django.core.management.base import BaseCommand, CommandError

from iris_site.audit.checkpoint import (
    JsonLinesSink,
    audit_deployment_renew,
    checkpoint_sink,
    deployment_current,
)
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import Conflict


class Command(BaseCommand):
    help = (
        "Print this database's deployment id and its checkpoint sink; --new gives a restored "
        "copy served beside its original a deployment id and a sink of its own."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--new",
            action="store_true",
            help="verify this database against its sink (which may run ahead of a copy), "
            "then take a new deployment id and seal its first checkpoint in its own sink",
        )
        parser.add_argument(
            "--original-sink",
            metavar="PATH",
            help="with --new: the JSON-lines sink to verify against, when the one this "
            "database resolves to now is not its original's",
        )

    def handle(self, *args, **options) -> None:
        current = deployment_current()
        if current is None:
            raise CommandError("this database has no deployment id: run manage.py migrate")
        if not options["new"]:
            sink = checkpoint_sink(current)
            self.stdout.write(f"deployment {current.deployment_id}, sink {sink.where}")
            return
        original = JsonLinesSink(options["original_sink"]) if options["original_sink"] else None
        report = audit_chain_verify(sink=original, copy=True)
        if not report.valid:
            broken = report.first_break
            problem = report.checkpoint_problem or (
                f"chain {broken.chain} broken at event {broken.event_id}: {broken.reason}"
            )
            raise CommandError(
                f"this database does not verify against its sink, so it keeps its deployment "
                f"id: {problem}"
            )
        try:
            checkpoint = audit_deployment_renew(sink_checkpoint=report.sink_checkpoint)
        except Conflict as exc:
            raise CommandError(f"{exc.message} (nothing changed)") from exc
        renewed = deployment_current()
        sealed = (
            f"sealed its checkpoint {checkpoint.number}" if checkpoint else "nothing to seal yet"
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"deployment {current.deployment_id} -> {renewed.deployment_id}: verified "
                f"against checkpoint {report.checkpoint} (the sink held "
                f"{report.sink_checkpoint}), {sealed} in {checkpoint_sink(renewed).where}"
            )
        )
