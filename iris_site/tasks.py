"""Platform jobs: thin wrappers over `iris_site.jobs` (also `manage.py recover_stalled_tasks`)."""

from crontask import cron
from django.tasks import task

from iris_site.jobs import tasks_recover_stalled


@cron("*/5 * * * *")
@task
def recover_stalled_tasks() -> dict[str, int]:
    """Requeue tasks left RUNNING by a worker that died mid-job."""
    return tasks_recover_stalled()
