"""Scheduled memory work: thin wrappers over idempotent service functions."""

from crontask import cron
from django.tasks import task

from memory.forgetting.services import memory_clear_purge_due, memory_tombstone_purge_due
from memory.pauses import memory_pause_expire_due
from memory.sweeps.retention import retention_sweep


@cron("17 * * * *")
@task
def sweep_memory_retention() -> dict[str, int]:
    return retention_sweep().as_dict()


@cron("*/15 * * * *")
@task
def purge_cleared_memory() -> int:
    return memory_clear_purge_due()


@cron("41 * * * *")
@task
def purge_forgotten_memory() -> int:
    return memory_tombstone_purge_due()


# Recall treats an ended pause as over at once (the read gate); this writes the
# resumption, so the member's page and lists show those memories active again.
@cron("*/5 * * * *")
@task
def expire_memory_pauses() -> int:
    return memory_pause_expire_due()
