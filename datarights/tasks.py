"""Data-rights jobs: thin wrappers over the idempotent functions in
`datarights.processing` (a decorated task is not callable; call those instead)."""

from crontask import cron
from django.tasks import task

from datarights.processing import datarights_process, datarights_run_due


@task
def process_data_rights_request(request_id: str) -> str:
    """Run or resume one verified request; enqueued with the state change that needs it."""
    return datarights_process(request_id=request_id)


@cron("*/10 * * * *")
@task
def run_due_data_rights_work() -> dict[str, int]:
    """Expire unverified requests, finish soft deletes whose grace ended, remove expired
    downloads and resume stalled jobs."""
    return datarights_run_due()
