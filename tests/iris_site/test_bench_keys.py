"""`manage.py bench_keys` prints its figures from a key store of its own."""

from io import StringIO
from pathlib import Path

from django.conf import settings
from django.core.management import call_command


def test_the_key_benchmark_prints_every_figure_and_leaves_the_configured_store_alone():
    store = Path(settings.IRIS_KEYSTORE_PATH)
    before = store.stat().st_mtime_ns if store.exists() else None
    out = StringIO()

    call_command("bench_keys", "--values=40", stdout=out)

    text = out.getvalue()
    for label in (
        "seal, member key live",
        "open, key cached",
        "make a key",
        "open, key read from the store",
        "bytes added per value: 110",
        "key store bytes per key",
    ):
        assert label in text, label
    assert (store.stat().st_mtime_ns if store.exists() else None) == before
