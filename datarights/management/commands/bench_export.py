"""Benchmark: peak Python memory of one member's export, however many entries they have.

    python manage.py bench_export --entries 100000

Creates a throw-away member with N entries (each with --revisions revisions) inside a
transaction that is rolled back at the end, streams their export bundle to a temporary
file under tracemalloc, and prints the peak. Not a timed test: a figure to watch.
"""

import gc
import resource
import tempfile
import time
import tracemalloc
import uuid
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from datarights.contracts import ExportPayload
from datarights.export import write_bundle
from iris_site.enums import UserKind
from iris_site.models import User
from memory.models import MemoryEntry, MemoryRevision

BATCH = 2000
LIMIT_MB = 200


class Command(BaseCommand):
    help = "Print the peak memory (tracemalloc) of exporting a member with N entries."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--entries", type=int, default=100_000)
        parser.add_argument("--revisions", type=int, default=2, help="revisions per entry")
        parser.add_argument("--body-chars", type=int, default=240)

    def handle(self, *args, **options) -> None:
        entries, revisions = options["entries"], max(1, options["revisions"])
        if entries < 1:
            raise CommandError("--entries must be positive")
        with transaction.atomic():
            member = self._seed(entries, revisions, options["body_chars"])
            gc.collect()
            payload = ExportPayload.model_validate({"scopes": ["profile"]})
            with tempfile.TemporaryFile() as out:
                tracemalloc.start()
                started = time.perf_counter()
                digest, size = write_bundle(
                    request_id=uuid.uuid4(),
                    member_id=member.pk,
                    payload=payload,
                    generated_at=timezone.now(),
                    out=out,
                )
                elapsed = time.perf_counter() - started
                _, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
            transaction.set_rollback(True)
        peak_mb = peak / (1024 * 1024)
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.stdout.write(
            f"export of {entries} entries x {revisions} revisions: bundle {size / 1e6:.1f} MB "
            f"in {elapsed:.1f} s, sha256 {digest[:16]}…\n"
            f"peak traced memory during export: {peak_mb:.1f} MB "
            f"({'under' if peak_mb < LIMIT_MB else 'OVER'} the {LIMIT_MB} MB budget); "
            f"process max RSS (incl. seeding): {rss_mb:.0f} MB"
        )

    def _seed(self, entries: int, revisions: int, body_chars: int) -> User:
        member = User.objects.create(
            email=f"bench-{uuid.uuid4().hex}@bench.invalid", kind=UserKind.MEMBER
        )
        start = timezone.now() - timedelta(days=30)
        filler = "lorem ipsum dolor sit amet " * (1 + body_chars // 27)
        for offset in range(0, entries, BATCH):
            rows, history = [], []
            for n in range(offset, min(entries, offset + BATCH)):
                body = f"Bench fact {n}: {filler}"[:body_chars]
                entry = MemoryEntry(
                    id=uuid.uuid4(),
                    member=member,
                    scope_kind="profile",
                    scope_key=f"profile:{member.pk}",
                    category="fact",
                    subject=f"bench {n}",
                    body=body,
                    origin="user-stated",
                    lifecycle="active",
                    confidence=1.0,
                    conflict_key=f"fact::::bench {n}",
                    revision_count=revisions,
                    created_at=start,
                    updated_at=start,
                )
                rows.append(entry)
                for number in range(1, revisions + 1):
                    history.append(
                        MemoryRevision(
                            entry=entry,
                            member_id=member.pk,
                            number=number,
                            action="created" if number == 1 else "edited",
                            actor="member",
                            content={"body": body, "subject": entry.subject, "category": "fact"},
                            changed_fields=[] if number == 1 else ["body"],
                            created_at=start + timedelta(minutes=number),
                        )
                    )
            MemoryEntry.objects.bulk_create(rows)
            MemoryRevision.objects.bulk_create(history)
        return member
