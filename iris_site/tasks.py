"""Platform jobs: recovering stalled tasks (`iris_site.jobs`, also `manage.py
recover_stalled_tasks`), sealing audit checkpoints (`manage.py audit_checkpoint`) and
forgetting expired idempotency keys."""

from crontask import cron
from django.tasks import task

from iris_site.audit.checkpoint import audit_checkpoint_seal
from iris_site.idempotency import idempotency_purge_expired
from iris_site.jobs import tasks_recover_stalled


@cron("*/5 * * * *")
@task
def recover_stalled_tasks() -> dict[str, int]:
    """Requeue tasks left RUNNING by a worker that died mid-job."""
    return tasks_recover_stalled()


@cron("*/10 * * * *")
@task
def seal_audit_checkpoint() -> dict[str, int]:
    """Sign a checkpoint over every audit chain's head; the window in which a rewrite
    that recomputes every later hash goes unnoticed is the events since the last one."""
    checkpoint = audit_checkpoint_seal()
    return {"number": checkpoint.number if checkpoint else 0}


@cron("17 * * * *")
@task
def purge_expired_idempotency_keys() -> dict[str, int]:
    """Forget `Idempotency-Key` records past their 24 hours (every endpoint's)."""
    return idempotency_purge_expired()
