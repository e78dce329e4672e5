"""Follow a surface's change feed and print each event as it arrives: what a surface
connected to `GET /api/v1/events/` (or the MCP tool `read_changes`) would learn, for a
newcomer to watch a forget reach the surfaces that were given the memory.

Read-only: it never acknowledges (only the surface itself says it applied an event).
Ids, types and times only, as the feed carries them."""

import time

from django.core.management.base import BaseCommand, CommandError

from iris_site.enums import Consumer
from memory.changes import change_events_last_id
from memory.labels import consumer_label
from memory.models import ChangeEvent

BATCH = 500


class Command(BaseCommand):
    help = (
        "Print the change events written for a surface (a consumer) as they arrive, "
        "polling every second; read-only (never acknowledges)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--consumer", required=True, choices=Consumer.values, help="The surface to follow."
        )
        parser.add_argument(
            "--from-start", action="store_true", help="Print the events already written too."
        )
        parser.add_argument("--once", action="store_true", help="Print what there is now and stop.")
        parser.add_argument(
            "--interval", type=float, default=1.0, help="Seconds between polls (1)."
        )
        parser.add_argument(
            "--for", type=float, dest="duration", help="Stop after this many seconds."
        )

    def handle(
        self,
        *args,
        consumer: str,
        from_start: bool,
        once: bool,
        interval: float,
        duration: float | None,
        **_,
    ):
        if interval <= 0:
            raise CommandError("--interval must be more than 0.")
        after = 0 if from_start else change_events_last_id()
        if not once:
            self.stdout.write(
                f"Following the change feed of {consumer_label(consumer)} ({consumer}); "
                "Ctrl-C stops."
            )
        stop = None if duration is None else time.monotonic() + duration
        try:
            while True:
                after = self._print_new(consumer, after)
                if once or (stop is not None and time.monotonic() >= stop):
                    return
                time.sleep(interval)
        except KeyboardInterrupt:
            return

    def _print_new(self, consumer: str, after: int) -> int:
        while True:
            events = list(
                ChangeEvent.objects.filter(consumer=consumer, id__gt=after).order_by("id")[:BATCH]
            )
            for event in events:
                self.stdout.write(self._line(event))
                after = event.id
            if len(events) < BATCH:
                return after

    @staticmethod
    def _line(event: ChangeEvent) -> str:
        parts = [
            event.occurred_at.isoformat(timespec="seconds"),
            event.type,
            f"member={event.member_id}",
        ]
        for label, ids in (
            ("entries", event.entry_ids),
            ("revisions", event.revision_ids),
            ("entities", event.entity_ids),
        ):
            if ids:
                parts.append(f"{label}={','.join(ids)}")
        if event.consent_type:
            parts.append(f"consent={event.consent_type}")
        parts.append(f"id={event.event_id}")
        return "  ".join(parts)
