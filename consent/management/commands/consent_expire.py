from django.core.management.base import BaseCommand

from consent.services import consent_expire_due


class Command(BaseCommand):
    help = "Append expiry events for grants whose end date has passed (idempotent)."

    def handle(self, *args, **options) -> None:
        count = consent_expire_due()
        self.stdout.write(self.style.SUCCESS(f"{count} consent grant(s) expired"))
