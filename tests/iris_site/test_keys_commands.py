"""The key commands: `keys_rotate` re-wraps every data key under the new primary KEK (and
`--check` says when the old one may go); `keys_encrypt` seals in place what a database
written before encryption holds in clear, resumably, and a second run does nothing."""

import base64
import json
import os
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from hierarchy.models import ShortTermMemory
from iris_site.crypto import encrypt as legacy_encrypt
from iris_site.keys import envelope
from iris_site.keys.envelope import PREFIX, Unreadable, open_sealed, seal
from memory.models import MemoryEntry, conflict_token
from tests.hierarchy.stm_factories import member_with, write
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db


def _key() -> str:
    return base64.b64encode(os.urandom(32)).decode()


@pytest.fixture
def own_key_store(settings, tmp_path):
    """A key store and keyset of this test's own (rotation counts every key)."""
    settings.IRIS_KEYSTORE_PATH = str(tmp_path / "keystore.sqlite3")
    envelope.cache_clear()
    envelope._store.cache_clear()
    yield
    envelope.cache_clear()
    envelope._store.cache_clear()


def _run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_rotation_rewraps_every_key_and_the_old_kek_can_then_go(settings, own_key_store):
    old, new = _key(), _key()
    settings.IRIS_KEK = json.dumps({"primary": "old", "keys": {"old": old}})
    members = ["0b6f1f5e-4a59-4c43-9f0e-1d2c3b4a5f60", "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"]
    sealed = [(m, seal(m, "t.c", f"words of {m}")) for m in members]
    envelope.shred(members[1])  # a destroyed key has no KEK: nothing to re-wrap
    sealed.append((members[1], seal(members[1], "t.c", "after the shred")))

    settings.IRIS_KEK = json.dumps({"primary": "new", "keys": {"old": old, "new": new}})
    with pytest.raises(CommandError, match="still wrapped"):
        _run("keys_rotate", "--check")
    out = _run("keys_rotate", "--batch-size", "1")
    assert "re-wrapped 2" in out
    assert "old" in out.split("after:")[0]
    assert _run("keys_rotate", "--check").endswith("'new'\n")
    assert "re-wrapped 0" in _run("keys_rotate")  # resumed / re-run: nothing left

    settings.IRIS_KEK = json.dumps({"primary": "new", "keys": {"new": new}})  # old key gone
    envelope.cache_clear()
    assert open_sealed(sealed[0][1], "t.c") == f"words of {members[0]}"
    assert isinstance(open_sealed(sealed[1][1], "t.c"), Unreadable)  # shredded before
    assert open_sealed(sealed[2][1], "t.c") == "after the shred"


def _raw(model, column: str, pk) -> str:
    key = pk.hex if connection.vendor == "sqlite" else pk
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT "{column}" FROM "{model._meta.db_table}" WHERE id = %s', [key])
        return cursor.fetchone()[0]


def _set_raw(model, column: str, pk, value: str) -> None:
    key = pk.hex if connection.vendor == "sqlite" else pk
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE "{model._meta.db_table}" SET "{column}" = %s WHERE id = %s', [value, key]
        )


def test_encrypt_seals_a_database_written_before_encryption_and_a_second_run_does_nothing():
    member = member_with("category:medical")
    entry = remember(member, subject="coffee", body="placeholder").entry
    row = write(member, content="placeholder")
    sensitive = write(member, category="medical", content="placeholder")
    # An old database: plain text, and a sensitive short-term row under the app key.
    _set_raw(MemoryEntry, "body", entry.pk, "takes oat milk in coffee")
    _set_raw(MemoryEntry, "subject", entry.pk, "coffee")
    plain_key = "preference::::coffee"
    _set_raw(MemoryEntry, "conflict_key", entry.pk, plain_key)
    _set_raw(ShortTermMemory, "content", row.pk, "prefers morning walks")
    _set_raw(ShortTermMemory, "content", sensitive.pk, legacy_encrypt("takes insulin at night"))

    dry = _run("keys_encrypt", "--dry-run", "--no-progress")
    assert "memory.MemoryEntry (" in dry and "hierarchy.ShortTermMemory (content): 2" in dry
    assert not _raw(MemoryEntry, "body", entry.pk).startswith(PREFIX)  # nothing changed

    out = _run("keys_encrypt", "--no-progress", "--batch-size", "1")
    assert "sealed 2 row(s) of hierarchy.ShortTermMemory" in out

    for model, column, pk in (
        (MemoryEntry, "body", entry.pk),
        (MemoryEntry, "subject", entry.pk),
        (ShortTermMemory, "content", row.pk),
        (ShortTermMemory, "content", sensitive.pk),
    ):
        assert _raw(model, column, pk).startswith(PREFIX), (model, column)
    envelope.cache_clear()
    stored = MemoryEntry.objects.get(pk=entry.pk)
    assert (stored.subject, stored.body) == ("coffee", "takes oat milk in coffee")
    # the plain conflict key became the member's token, as a write now stores it
    assert _raw(MemoryEntry, "conflict_key", entry.pk) == conflict_token(member.pk, plain_key)
    assert ShortTermMemory.objects.get(pk=row.pk).content == "prefers morning walks"
    assert ShortTermMemory.objects.get(pk=sensitive.pk).content == "takes insulin at night"

    before = _raw(ShortTermMemory, "content", row.pk)
    again = _run("keys_encrypt", "--no-progress")
    assert "sealed" not in again.replace("to seal", "")
    assert ": 0 row(s) to seal" in again and "row(s) to seal" in again
    assert all(
        line.endswith(": 0 row(s) to seal") for line in again.splitlines() if "to seal" in line
    )
    assert _raw(ShortTermMemory, "content", row.pk) == before
