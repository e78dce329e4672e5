from django.core.management.base import BaseCommand

from memory.pauses import memory_pause_expire_due


class Command(BaseCommand):
    help = "Resume every memory whose timed pause has ended (idempotent)."

    def handle(self, *args, **options) -> None:
        resumed = memory_pause_expire_due()
        self.stdout.write(self.style.SUCCESS(f"{resumed} paused memories resumed"))
