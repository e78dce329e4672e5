from django.core.management.base import BaseCommand, CommandError

from hierarchy.selectors import audit_chain_verify


class Command(BaseCommand):
    help = "Walk the episodic audit chain; exit non-zero naming the first event that fails."

    def handle(self, *args, **options) -> None:
        report = audit_chain_verify()
        broken = report.first_break
        if broken is not None:
            raise CommandError(
                f"audit chain broken at event {broken.event_id} "
                f"(sequence {broken.sequence}): {broken.reason}; "
                f"{report.checked_count} events read"
            )
        self.stdout.write(self.style.SUCCESS(f"audit chain intact: {report.checked_count} events"))
