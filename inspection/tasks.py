"""Scheduled inspection work: thin wrappers over idempotent service functions."""

from crontask import cron
from django.tasks import task

from inspection.services import (
    inspection_close_expired_grants,
    inspection_expire_undecided,
    inspection_notices_deliver,
)


@cron("*/5 * * * *")
@task
def expire_undecided_inspections() -> int:
    return inspection_expire_undecided()


@cron("*/5 * * * *")
@task
def close_expired_inspection_grants() -> int:
    return inspection_close_expired_grants()


@cron("*/5 * * * *")
@task
def deliver_inspection_notices() -> int:
    return inspection_notices_deliver()
