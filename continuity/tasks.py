"""Scheduled continuity work: thin wrappers over idempotent service functions."""

from crontask import cron
from django.tasks import task

from continuity.services import continuity_purge_expired


@cron("17 * * * *")
@task
def purge_expired_continuity_records() -> dict[str, int]:
    return continuity_purge_expired()
