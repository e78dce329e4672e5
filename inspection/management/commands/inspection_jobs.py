from django.core.management.base import BaseCommand

from inspection.services import (
    inspection_close_expired_grants,
    inspection_expire_undecided,
    inspection_notices_deliver,
)

JOBS = {
    "expire": ("undecided request(s) denied (expired)", inspection_expire_undecided),
    "close": ("grant(s) closed by their time box", inspection_close_expired_grants),
    "deliver": ("member notice(s) delivered", inspection_notices_deliver),
}


class Command(BaseCommand):
    help = (
        "Run the inspection jobs by hand (idempotent): expire undecided requests, close "
        "time-boxed grants, deliver member notices."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--only", choices=sorted(JOBS), action="append", help="run only these jobs"
        )

    def handle(self, *args, **options) -> None:
        for name in options["only"] or list(JOBS):
            label, job = JOBS[name]
            self.stdout.write(self.style.SUCCESS(f"{job()} {label}"))
