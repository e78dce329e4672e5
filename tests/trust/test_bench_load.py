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

from iris_site.access_log import StatementCounter, server_timing
from memory.bench import load_clients, load_setup


def _database_exists(name: str) -> bool:
    with load_setup._pg_admin(load_setup.server_url({"database_url": None, "sqlite": False})) as c:
        return c.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()


def test_a_short_load_run_prints_figures_with_zero_errors_and_removes_its_database():
    # given tiny sizes and a few seconds, and one long-query client in the second phase
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
        "--long-queries=1",
        stdout=out,
        stderr=StringIO(),
    )

    # then the report names every endpoint, the total and the server's memory
    text = out.getvalue()
    for label in (*load_clients.ENDPOINT_LABELS.values(), "total", "phase 1", "phase 2"):
        assert label in text
    assert "p50 ms" in text and "p99 ms" in text and "SQL p50" in text
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
    assert report["server"]["checkout"] == str(Path(settings.BASE_DIR).resolve())
    # and the SQL statements per request, as the server counted them (Server-Timing on)
    assert report["server"]["server_timing"] == "true"
    for name, _ in load_clients.MIX:
        row = report["endpoints"][name]
        if row["requests"]:
            assert 0 < row["statements_p50"] <= row["statements_max"], name
            assert row["db_p50_ms"] is not None, name
    assert report["total"]["statements_max"] >= report["endpoints"]["recall"]["statements_max"]
    # and the long recalls of the first member, beside the other members' recalls
    # without them (phase 1) and with them (phase 2)
    long = report["long_queries"]
    assert long["clients"] == 1 and long["words"] == 400
    assert long["member"] and long["query_chars"] > 400 * 3
    assert long["long_recalls"]["requests"] >= 1 and long["long_recalls"]["errors"] == 0
    assert long["long_recalls"]["statements_p50"] > 0
    assert set(long["other_members_recall"]) == {"without", "with"}
    assert "other members' recalls, phase 1: without" in text
    assert "other members' recalls, phase 2: with" in text
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
    with pytest.raises(CommandError, match="--long-queries must be 0 or more"):
        call_command("bench_load", "--long-queries=-1")


def test_the_clients_read_the_count_the_server_writes():
    # given the header as the access-log middleware writes it, for 1 and for 7 statements
    counter = StatementCounter()
    counter.statements, counter.seconds = 7, 0.0041
    many = server_timing(counter, 0.023)
    counter.statements = 1
    one = server_timing(counter, 0.023)

    # then the clients read back the count and the database time; nothing from a server
    # that does not say (an older checkout)
    assert load_clients.server_timing_db(many) == (7, 4.1)
    assert load_clients.server_timing_db(one) == (1, 4.1)
    assert load_clients.server_timing_db(None) == (None, None)
    assert load_clients.server_timing_db("cache;desc=hit") == (None, None)


def test_the_long_query_is_the_members_own_words():
    principal = load_clients.Principal(
        member_id="m",
        token="t",
        service_token="s",
        session="x",
        entry_ids=[],
        recalls=[{"query": "Where does Nadia live?"}],
        remembers=[{"body": "Nadia moved to Brockville in May (#3)"}],
    )
    payload = load_clients.long_query(principal, 400, seed=1)
    words = payload["query"].split()
    assert len(words) == 400
    assert set(words) == {"where", "does", "nadia", "live", "moved", "brockville", "may"}
    assert payload["scope"] == {"kind": "profile"} and payload["surface"] == "assistant"


def test_a_checkout_that_is_not_one_is_refused(tmp_path):
    with pytest.raises(CommandError, match="--checkout"):
        call_command("bench_load", f"--checkout={tmp_path}")
