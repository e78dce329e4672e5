"""Rotating the key-encryption key under load: `bench_load` drives recall, remember, the
memory pages and the bundle against gunicorn while the keyset gains a new primary key,
`keys_rotate` re-wraps every data key under it, and the old key is removed from the
keyset — all during the run. Zero errors; afterwards every data key unwraps with the new
key alone (`keys_rotate --check`)."""

import json
import os
import threading
import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from iris_site.keys import envelope, kek

pytestmark = pytest.mark.django_db(transaction=True)


def _write_keyset(path: Path, keyset: dict) -> None:
    """Replaced in one step: a reader sees the old keyset or the new one, never half."""
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(keyset))
    os.replace(partial, path)


def _reset() -> None:
    envelope.cache_clear()
    envelope._store.cache_clear()
    kek._wrapper.cache_clear()


def test_the_kek_rotates_and_the_old_key_goes_under_load_with_zero_errors(
    settings, tmp_path, monkeypatch
):
    keyset_file, store = tmp_path / "kek.json", tmp_path / "keystore.sqlite3"
    old, new = kek.keyset_new("old"), kek.keyset_new("new")
    _write_keyset(keyset_file, old)
    for name, value in (("IRIS_KEK_FILE", keyset_file), ("IRIS_KEYSTORE_PATH", store)):
        monkeypatch.setenv(name, str(value))  # for the server and the seeding it runs
        setattr(settings, name, str(value))
    _reset()

    out = StringIO()
    run = threading.Thread(
        target=call_command,
        args=("bench_load", "--duration=6", "--warmup=1", "--members=2", "--entries=30"),
        kwargs={"concurrency": 3, "workers": 2, "threads": 2, "stdout": out, "stderr": StringIO()},
    )
    run.start()
    try:
        # once the clients drive the server, past the warm-up
        deadline = time.monotonic() + 180
        while "Driving" not in out.getvalue():
            assert run.is_alive() and time.monotonic() < deadline, out.getvalue()
            time.sleep(0.2)
        time.sleep(1.5)
        _write_keyset(keyset_file, {"primary": "new", "keys": {**old["keys"], **new["keys"]}})
        _reset()
        rotated = StringIO()
        call_command("keys_rotate", stdout=rotated)
        call_command("keys_rotate", "--check", stdout=StringIO())
        _write_keyset(keyset_file, new)  # the old key is gone while the clients still run
        assert run.is_alive(), "the rotation finished inside the load run"
    finally:
        run.join(timeout=300)

    report = json.loads(out.getvalue().strip().splitlines()[-1])
    assert report["errors"] == 0, report["error_samples"]
    assert report["total"]["requests"] > 0
    _reset()
    counts = envelope.key_store().count_by_kek()
    assert set(counts) == {"new"}, counts
    for record in envelope.key_store().live():  # every data key opens with the new key alone
        assert envelope._read_key(record.member_id, record.generation) is not None
    _write_keyset(keyset_file, old)
    _reset()
    with pytest.raises(CommandError):
        call_command("keys_rotate", "--check", stdout=StringIO())
