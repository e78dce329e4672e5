from django.core.management.base import BaseCommand

from memory.forgetting.services import memory_clear_purge_due, memory_tombstone_purge_due


class Command(BaseCommand):
    help = (
        "Purge full clears past their grace window; erase the text of any tombstone "
        "that still holds it."
    )

    def handle(self, *args, **options) -> None:
        cleared = memory_clear_purge_due()
        forgotten = memory_tombstone_purge_due()
        self.stdout.write(
            self.style.SUCCESS(f"{cleared} cleared and {forgotten} forgotten entries purged")
        )
