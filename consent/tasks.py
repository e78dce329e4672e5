"""Scheduled consent work: thin wrappers over idempotent service functions."""

from crontask import cron
from django.tasks import task

from consent.services import consent_expire_due


@cron("*/10 * * * *")
@task
def expire_lapsed_consents() -> int:
    return consent_expire_due()
