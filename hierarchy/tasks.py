"""Scheduled hierarchy work: thin wrappers over idempotent plain functions.

Each also runs by hand: `manage.py stm_expire`, `stm_consolidate_due`,
`freshness_confidence`, `audit_checkpoint`.
"""

from crontask import cron
from django.tasks import task

from hierarchy.consolidation import stm_age_consolidation_run
from hierarchy.freshness_job import freshness_confidence_run
from hierarchy.stm import stm_expire_due


@cron("*/5 * * * *")
@task
def expire_short_term_memory() -> dict[str, int]:
    """D1 + D2: hard-delete expired ordinary rows, anonymize expired sensitive rows."""
    return stm_expire_due().as_dict()


@cron("7 * * * *")
@task
def consolidate_short_term_memory() -> dict[str, int]:
    """The hourly age-triggered scan (v1 policy: drop)."""
    return stm_age_consolidation_run().as_dict()


@cron("41 3 * * *")
@task
def queue_stale_inferences() -> dict[str, int]:
    """Queue stale low-confidence inferences for member re-confirmation."""
    return freshness_confidence_run().as_dict()
