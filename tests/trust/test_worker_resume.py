"""A worker killed mid-job: the job is recovered and finishes exactly once.

Real processes: `manage.py db_worker` runs against the test database in a subprocess,
picks up a data-rights job that blocks at a known point (a test-only wrapper patches one
step to wait), and is SIGKILLed there. `tasks_recover_stalled` hands the task row back to
the queue, a second worker runs it, and the result is complete and not duplicated.
"""

import json
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from datarights.enums import RequestStatus, TrailEvent
from datarights.export import member_dir, read_member
from datarights.models import DataRightsRequest
from iris_site.jobs import tasks_recover_stalled
from memory.models import MemoryEntry
from tests.datarights.factories import submit, trail_events
from tests.memory.factories import consenting_member, remember

ENTRIES = 4

# Runs in the worker subprocess: optionally make one step of data-rights processing
# announce itself (a marker file) and hang there, then run the real worker command.
WORKER = """
import os, sys, time
import django
django.setup()
from django.conf import settings
from django.utils import timezone
settings.IRIS_DSAR_EXPORT_DIR = os.environ["IRIS_TEST_EXPORT_DIR"]
block = os.environ.get("IRIS_TEST_BLOCK_AT")
if block:
    from datarights import processing
    original = getattr(processing, block)
    def hang(*args, **kwargs):
        if block == "write_artifact":
            original(*args, **kwargs)  # the partial bundle is on disk, not yet recorded
        open(os.environ["IRIS_TEST_MARKER"], "w").close()
        time.sleep(600)
    setattr(processing, block, hang)
from django.core.management import call_command
call_command("db_worker", "--batch", "--no-reload", "--no-startup-delay", "--interval", "0.1")
"""


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    if connection.vendor == "postgresql":
        auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
        return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    raise AssertionError(f"Iris runs on SQLite or PostgreSQL, not {connection.vendor}")


def _worker(tmp_path: Path, *, block_at: str | None = None) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "iris_site.settings",
        "DATABASE_URL": _database_url(),
        "IRIS_TEST_EXPORT_DIR": settings.IRIS_DSAR_EXPORT_DIR,
        "IRIS_TEST_MARKER": str(tmp_path / "blocked"),
        "IRIS_TASKS_BACKEND": "django_tasks_db.DatabaseBackend",
    }
    env.pop("IRIS_TEST_BLOCK_AT", None)
    if block_at:
        env["IRIS_TEST_BLOCK_AT"] = block_at
    return subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", WORKER],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_for(path: Path, worker: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if worker.poll() is not None:
            pytest.fail(f"the worker exited before blocking:\n{worker.stdout.read()}")
        if time.monotonic() > deadline:
            worker.kill()
            pytest.fail(f"the worker never reached the block:\n{worker.stdout.read()}")
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def _export_dir(settings, tmp_path):
    settings.IRIS_DSAR_EXPORT_DIR = str(tmp_path / "exports")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("kind", "block_at"),
    [
        ("export", "write_artifact"),  # the bundle is written, its recording never happens
        ("delete", "memory_purge_entries"),  # the snapshot and the sealed text recorded
    ],
)
def test_a_job_whose_worker_is_killed_resumes_and_completes_exactly_once(kind, block_at, tmp_path):
    # given: a verified request whose job row is queued
    member = consenting_member()
    entry_ids = {
        str(remember(member, subject=f"fact-{i}", body=f"fact worth keeping {i}").entry.pk)
        for i in range(ENTRIES)
    }
    request = submit(member, kind)
    [job] = DBTaskResult.objects.filter(args_kwargs__args=[str(request.pk)])
    assert job.status == TaskResultStatus.READY

    # when: a worker takes it, blocks mid-job and is killed without a chance to clean up
    first = _worker(tmp_path, block_at=block_at)
    try:
        _wait_for(tmp_path / "blocked", first)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    job.refresh_from_db()
    assert job.status == TaskResultStatus.RUNNING  # the library would leave it so for ever
    request.refresh_from_db()
    assert request.status == RequestStatus.IN_PROGRESS
    done_before = list(request.progress.get("done", []))
    if kind == "delete":
        assert "collect-text" in done_before and "erase-entries" not in done_before
    else:
        assert done_before == [] and list(member_dir(member.pk).glob("*.partial"))

    # a recovery inside the lease leaves a (possibly live) worker's task alone
    assert tasks_recover_stalled()["requeued"] == 0
    # past the lease it goes back to the queue, once
    assert tasks_recover_stalled(lease=timedelta(0)) == {"requeued": 1, "failed": 0, "skipped": 0}
    assert tasks_recover_stalled(lease=timedelta(0))["requeued"] == 0
    job.refresh_from_db()
    assert job.status == TaskResultStatus.READY
    assert "WorkerLost" in job.traceback

    # and a new worker finishes it
    second = _worker(tmp_path)
    output, _ = second.communicate(timeout=60)
    assert second.returncode == 0, output

    # then: the same task row completed, after two claims; no copy of it was made
    job.refresh_from_db()
    assert job.status == TaskResultStatus.SUCCESSFUL, (job.traceback, output)
    assert len(job.worker_ids) == 2
    assert DBTaskResult.objects.count() == 1
    request.refresh_from_db()
    assert request.status == RequestStatus.COMPLETED
    trail = trail_events(request)
    assert trail.count(RequestStatus.IN_PROGRESS) == 1
    assert trail.count(RequestStatus.COMPLETED) == 1
    steps = [e.detail["step"] for e in request.trail.filter(event=TrailEvent.STEP_COMPLETED)]
    assert len(steps) == len(set(steps)), steps  # no step recorded twice
    assert set(done_before) <= set(steps)
    assert "run" not in request.progress

    if kind == "export":
        files = sorted(p.name for p in member_dir(member.pk).iterdir())
        assert files == [request.artifact_name]  # the killed run's partial is gone
        bundle = json.loads(read_member(member_dir(member.pk) / request.artifact_name))
        exported = [item["id"] for item in bundle["entries"]]
        assert len(exported) == len(set(exported)) == ENTRIES
        assert set(exported) == entry_ids
    else:
        assert not MemoryEntry.objects.filter(member=member).exists()
        assert request.result_fingerprint
    assert DataRightsRequest.objects.filter(member=member).count() == 1


@pytest.mark.django_db
def test_a_task_that_keeps_killing_its_worker_is_failed_not_requeued_for_ever():
    member = consenting_member()
    request = submit(member, "access")
    [job] = DBTaskResult.objects.filter(args_kwargs__args=[str(request.pk)])
    now = timezone.now()
    for attempt in range(1, 4):
        job.claim(f"worker-{attempt}")  # what db_worker does; then the worker dies
        later = now + timedelta(hours=attempt)
        counts = tasks_recover_stalled(now=later)
        job.refresh_from_db()
        if attempt < 3:
            assert counts["requeued"] == 1 and job.status == TaskResultStatus.READY
    assert counts == {"requeued": 0, "failed": 1, "skipped": 0}
    assert job.status == TaskResultStatus.FAILED
    assert job.exception_class_path == "iris_site.jobs.WorkerLost"
    assert job.task_result.attempts == 3
