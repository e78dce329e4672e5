"""`manage.py bench_load`: a short load run against gunicorn with tiny sizes.

The command never touches the test database: it makes its own scratch database (a
temporary SQLite file, or `iris_load_<random>` on the PostgreSQL server of
DATABASE_URL), so these tests need no `db` fixture.
"""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from memory.bench import load_clients, load_setup


def _database_exists(name: str) -> bool:
    with load_setup._pg_admin(load_setup.server_url({"database_url": None, "sqlite": False})) as c:
        return c.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()


def test_a_short_load_run_prints_figures_with_zero_errors_and_removes_its_database():
    # given tiny sizes and a few seconds
    out = StringIO()
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]

    # when
    call_command(
        "bench_load",
        "--duration=2",
        "--warmup=1",
        "--members=2",
        "--entries=40",
        "--concurrency=3",
        "--workers=2",
        "--threads=2",
        stdout=out,
        stderr=StringIO(),
    )

    # then the report names every endpoint, the total and the server's memory
    text = out.getvalue()
    for label in (*load_clients.ENDPOINT_LABELS.values(), "total", "phase 1", "phase 2"):
        assert label in text
    assert "p50 ms" in text and "p99 ms" in text
    assert "MB after warm-up" in text and "MB after phase 2" in text
    assert "errors: 0" in text
    # and ends with the same figures as one JSON object
    report = json.loads(text.strip().splitlines()[-1])
    assert report["errors"] == 0 and report["error_samples"] == []
    assert report["total"]["requests"] > 0 and report["total"]["throughput_rps"] > 0
    assert report["endpoints"]["recall"]["requests"] > 0
    assert report["total"]["p50_ms"] <= report["total"]["p95_ms"] <= report["total"]["p99_ms"]
    memory = report["memory_mb"]
    assert memory["after_warmup"] > 0 and memory["after_phase_2"] > 0
    assert memory["processes"] == 3  # master + 2 workers
    assert set(report["server"]["rates"]) == set(load_setup.RATE_VARIABLES)
    # on a scratch database of the configured engine, removed afterwards
    expected = "postgresql" if engine == "postgresql" else "sqlite"
    assert report["database"] == expected
    if expected == "sqlite":
        assert not Path(report["scratch_database"]).exists()
        assert Path(report["scratch_database"]).parent != Path(settings.BASE_DIR)
    else:
        assert report["scratch_database"].startswith("iris_load_")
        assert not _database_exists(report["scratch_database"])


def test_the_prepare_step_refuses_any_database_but_the_scratch_one(monkeypatch, tmp_path):
    # given no scratch marker (as when someone runs the hidden step by hand)
    monkeypatch.delenv(load_setup.SCRATCH_MARKER, raising=False)

    # when / then it refuses before migrating or writing anything
    with pytest.raises(CommandError, match="scratch database"):
        call_command("bench_load", f"--prepare-into={tmp_path}")
    assert list(tmp_path.iterdir()) == []


def test_nonsensical_sizes_are_refused():
    with pytest.raises(CommandError, match="--concurrency must be positive"):
        call_command("bench_load", "--concurrency=0")
