"""Recovery of background tasks whose worker died mid-job.

django-tasks-db claims a task by setting its row to RUNNING in a short transaction and
then runs it outside any lock, with no heartbeat: a worker killed by SIGKILL, the OOM
killer or a lost host leaves the row RUNNING for ever, and nothing runs it again.

`tasks_recover_stalled` hands such rows back to the queue. A row is stalled when it has
been RUNNING for longer than the lease (`IRIS_TASK_LEASE_SECONDS`, default 30 minutes,
longer than any Iris job should take). The row is reset to READY in place, by a
compare-and-set on (status, started_at), so two recoveries never both reset it and a
worker that claimed it again in between is left alone. Why in place and not "fail it and
enqueue a fresh copy": the result id a caller may hold keeps meaning "this job", and the
library already models several attempts of one result (`worker_ids` gains an entry per
claim, `TaskResult.attempts` counts them), so the attempt count doubles as the poison
guard: a task claimed `IRIS_TASK_MAX_CLAIMS` times (default 3) without finishing is
marked FAILED with the reason instead of killing workers for ever.

This is sound because every Iris task is an idempotent, resumable function (STACK-NOTES:
no retries, jobs must be idempotent; data-rights processing records each step in the
transaction that does it, and runs of one request may overlap safely). If a worker was
only slow, not dead, its late `set_successful` lands on a row that is READY or running
again: the job runs twice, which idempotence makes harmless. Tasks that must never run
twice can be listed in `IRIS_TASK_RECOVERY_EXCLUDE` (module paths); they are only logged.
"""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger(__name__)

WORKER_LOST = "iris_site.jobs.WorkerLost"


class WorkerLost(Exception):
    """The worker running a task stopped without recording an outcome."""


def tasks_recover_stalled(
    *, now: datetime | None = None, lease: timedelta | None = None
) -> dict[str, int]:
    """Requeue (or, past the claim limit, fail) tasks left RUNNING by a dead worker.
    Idempotent; safe beside running workers and other recoveries."""
    now = now or timezone.now()
    lease = timedelta(seconds=settings.IRIS_TASK_LEASE_SECONDS) if lease is None else lease
    cutoff = now - lease
    counts = {"requeued": 0, "failed": 0, "skipped": 0}
    stalled = DBTaskResult.objects.running().filter(started_at__lt=cutoff)
    for pk, task_path, started_at, worker_ids in stalled.values_list(
        "pk", "task_path", "started_at", "worker_ids"
    ):
        claims = len(worker_ids or [])
        if task_path in settings.IRIS_TASK_RECOVERY_EXCLUDE:
            logger.error("task %s (%s) stalled; excluded from recovery", pk, task_path)
            counts["skipped"] += 1
            continue
        note = (
            f"{WORKER_LOST}: claimed by {worker_ids[-1] if worker_ids else '?'} at "
            f"{started_at.isoformat()}, still running after the lease; recovered at "
            f"{now.isoformat()} (claim {claims} of {settings.IRIS_TASK_MAX_CLAIMS}).\n"
        )
        # Compare-and-set: only the row exactly as listed (nobody re-claimed or finished it).
        current = DBTaskResult.objects.filter(
            pk=pk, status=TaskResultStatus.RUNNING, started_at=started_at
        )
        with transaction.atomic():
            if claims >= settings.IRIS_TASK_MAX_CLAIMS:
                changed = current.update(
                    status=TaskResultStatus.FAILED,
                    finished_at=now,
                    exception_class_path=WORKER_LOST,
                    traceback=note + "Too many claims without an outcome: not requeued.\n",
                    return_value=None,
                )
                key = "failed"
            else:
                changed = current.update(status=TaskResultStatus.READY, traceback=note)
                key = "requeued"
        if changed:
            counts[key] += 1
            logger.warning("task %s (%s) %s after its worker was lost", pk, task_path, key)
    return counts
