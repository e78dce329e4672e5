from django.core.management.base import BaseCommand, CommandError

from iris_site.audit.selectors import audit_chain_verify


class Command(BaseCommand):
    help = (
        "Check every audit chain against the latest signed checkpoint; exit non-zero naming "
        "the first event that fails, or what is wrong with the checkpoints."
    )

    def handle(self, *args, **options) -> None:
        report = audit_chain_verify()
        broken = report.first_break
        problems = []
        if report.checkpoint_problem is not None:
            problems.append(f"checkpoints do not hold: {report.checkpoint_problem}")
        if broken is not None:
            problems.append(
                f"audit chain {broken.chain} broken at event {broken.event_id} "
                f"(chain sequence {broken.sequence}): {broken.reason}; "
                f"{report.broken_chains} of {report.chain_count} chains broken"
            )
        if problems:
            raise CommandError(f"{'; '.join(problems)}; {report.checked_count} events read")
        against = (
            f"against signed checkpoint {report.checkpoint}"
            if report.checkpoint is not None
            else "with no signed checkpoint yet (a recomputed rewrite would not show)"
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"audit chains intact: {report.checked_count} events in "
                f"{report.chain_count} chains, {against} (deployment {report.deployment})"
            )
        )
