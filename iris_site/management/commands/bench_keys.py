"""Benchmark: what sealing costs per value, and what a key per fact would cost instead.

    python manage.py bench_keys --values 5000

Runs against a key store and keyset of its own in a temporary folder (the configured key
store is never touched; no database is used). Prints, in microseconds per value:

- sealing under a member's live key (every write asks the key store which generation
  is live: one key-store read) and opening with the key cached (a read's usual case);
- making a key (a key-store write) and opening with the key read from the store and
  unwrapped: what every write and every cold read would cost with one key per fact;
- the bytes sealing adds to a value, and the key store's bytes per key.
"""

import tempfile
import time
import uuid
from pathlib import Path

from django.core.management.base import BaseCommand
from django.test import override_settings

from iris_site.keys import envelope, kek


def _per_value(started: float, count: int) -> float:
    return (time.perf_counter() - started) / count * 1e6


class Command(BaseCommand):
    help = "Measure sealing and opening per value, and the cost of a key per fact."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--values", type=int, default=5000, help="values (and keys) timed")
        parser.add_argument("--chars", type=int, default=120, help="characters per value")

    def handle(self, *args, values: int, chars: int, **options) -> None:
        with tempfile.TemporaryDirectory() as folder:
            store = Path(folder) / "keystore.sqlite3"
            with override_settings(
                IRIS_KEYSTORE_PATH=str(store), IRIS_KEK="", IRIS_KEK_FILE=str(Path(folder) / "k")
            ):
                self._reset()
                try:
                    self._run(values, "x" * chars, store)
                finally:
                    self._reset()

    @staticmethod
    def _reset() -> None:
        envelope.cache_clear()
        envelope._store.cache_clear()
        kek._wrapper.cache_clear()

    def _run(self, count: int, text: str, store: Path) -> None:
        members = [uuid.uuid4() for _ in range(count)]
        started = time.perf_counter()
        per_key = [envelope.seal(member, "bench", text) for member in members]
        make = _per_value(started, count)
        one = members[0]
        started = time.perf_counter()
        sealed = [envelope.seal(one, "bench", text) for _ in range(count)]
        seal_live = _per_value(started, count)
        started = time.perf_counter()
        for token in sealed:
            envelope.open_sealed(token, "bench")
        open_cached = _per_value(started, count)
        envelope.cache_clear()
        started = time.perf_counter()
        for token in per_key:
            envelope.open_sealed(token, "bench")
        open_cold = _per_value(started, count)
        out = self.stdout.write
        out(f"values: {count} of {len(text)} characters")
        out(f"seal, member key live (one key-store read): {seal_live:.1f} us")
        out(f"open, key cached: {open_cached:.1f} us")
        out(f"make a key (a key-store write) and seal: {make:.1f} us")
        out(f"open, key read from the store and unwrapped: {open_cold:.1f} us")
        out(f"bytes added per value: {len(sealed[0]) - len(text)}")
        out(f"key store bytes per key: {store.stat().st_size / (count + 1):.0f}")
