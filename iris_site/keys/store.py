"""The key store: every member's data keys, wrapped, outside the main database.

One row per (member, generation): the data key wrapped by the KEK, the KEK's id, when it
was made and, once the member's memory is erased, when it was destroyed (the wrapped
bytes are then gone: the row stays as a tombstone, so a restored copy of the main
database reads that member as erased rather than as a fault). A full clear destroys the
current generation; the member's next write makes the next one.

The default store is a SQLite file of its own (`IRIS_KEYSTORE_PATH`), with
`secure_delete` so a destroyed key is overwritten on disk, not only unlinked. It is
backed up on its own, short schedule (docs/encryption.md): a backup of the key store
older than an erasure would bring that member's keys back. Another store (a KMS's key
hierarchy, a separate PostgreSQL database) implements the same methods.
"""

import contextlib
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from django.utils import timezone

SCHEMA = """
CREATE TABLE IF NOT EXISTS member_keys (
    member_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    kek_id TEXT,
    wrapped BLOB,
    created_at TEXT NOT NULL,
    destroyed_at TEXT,
    PRIMARY KEY (member_id, generation)
)
"""


class KeyStoreUnavailable(RuntimeError):
    """The key store cannot be read or written: Iris fails closed (503)."""


@dataclass(frozen=True, slots=True)
class KeyRecord:
    member_id: str
    generation: int
    kek_id: str | None
    wrapped: bytes | None

    @property
    def destroyed(self) -> bool:
        return self.wrapped is None


class SqliteKeyStore:
    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            try:
                path = Path(self.path)
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                # Private from the start: the -wal and -shm files take the file's mode.
                # Only ever opened here when it does not exist yet: closing a descriptor
                # of an open SQLite file drops the process's locks on it.
                if not path.exists():
                    with contextlib.suppress(FileExistsError):
                        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                connection = sqlite3.connect(self.path, timeout=5, isolation_level=None)
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA secure_delete=ON")
                connection.execute(SCHEMA)
            except (sqlite3.Error, OSError, ValueError) as exc:
                raise KeyStoreUnavailable(f"the key store {self.path} cannot be opened") from exc
            self._local.connection = connection
        return connection

    def _run(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            return self._connection().execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            self.close()
            raise KeyStoreUnavailable(f"the key store {self.path} is unavailable") from exc

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            self._local.connection = None
            connection.close()

    def latest(self, member_id: str) -> KeyRecord | None:
        """The member's newest generation (destroyed or not), None when there is none."""
        rows = self._run(
            "SELECT member_id, generation, kek_id, wrapped FROM member_keys"
            " WHERE member_id = ? ORDER BY generation DESC LIMIT 1",
            (member_id,),
        )
        return KeyRecord(*rows[0]) if rows else None

    def get(self, member_id: str, generation: int) -> KeyRecord | None:
        rows = self._run(
            "SELECT member_id, generation, kek_id, wrapped FROM member_keys"
            " WHERE member_id = ? AND generation = ?",
            (member_id, generation),
        )
        return KeyRecord(*rows[0]) if rows else None

    def add(self, record: KeyRecord) -> KeyRecord:
        """Stores `record` unless its generation exists (a racing writer made it first);
        returns the stored one."""
        self._run(
            "INSERT OR IGNORE INTO member_keys"
            " (member_id, generation, kek_id, wrapped, created_at) VALUES (?, ?, ?, ?, ?)",
            (
                record.member_id,
                record.generation,
                record.kek_id,
                record.wrapped,
                timezone.now().isoformat(),
            ),
        )
        stored = self.get(record.member_id, record.generation)
        assert stored is not None  # just written
        return stored

    def destroy(self, member_id: str) -> int:
        """Destroys every generation of the member's keys; returns how many were live."""
        rows = self._run(
            "UPDATE member_keys SET wrapped = NULL, kek_id = NULL, destroyed_at = ?"
            " WHERE member_id = ? AND wrapped IS NOT NULL RETURNING generation",
            (timezone.now().isoformat(), member_id),
        )
        return len(rows)

    def live(self, *, after: tuple[str, int] = ("", 0), limit: int = 500) -> list[KeyRecord]:
        """Live keys in key order after `after`: the rotation job's pages."""
        rows = self._run(
            "SELECT member_id, generation, kek_id, wrapped FROM member_keys"
            " WHERE wrapped IS NOT NULL AND (member_id, generation) > (?, ?)"
            " ORDER BY member_id, generation LIMIT ?",
            (*after, limit),
        )
        return [KeyRecord(*row) for row in rows]

    def rewrap(self, record: KeyRecord, *, kek_id: str, wrapped: bytes) -> bool:
        """Replaces the wrapping of a live key, only if it is still as read."""
        rows = self._run(
            "UPDATE member_keys SET kek_id = ?, wrapped = ?"
            " WHERE member_id = ? AND generation = ? AND wrapped = ? RETURNING 1",
            (kek_id, wrapped, record.member_id, record.generation, record.wrapped),
        )
        return bool(rows)

    def count_by_kek(self) -> dict[str | None, int]:
        return dict(self._run("SELECT kek_id, COUNT(*) FROM member_keys GROUP BY kek_id"))
