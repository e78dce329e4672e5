from django.core.management.base import BaseCommand

from memory.services import memory_clear_purge_due


class Command(BaseCommand):
    help = "Purge every full clear whose grace window has passed (idempotent)."

    def handle(self, *args, **options) -> None:
        count = memory_clear_purge_due()
        self.stdout.write(self.style.SUCCESS(f"{count} cleared memory entries purged"))
