"""Delivering change events to webhooks, every minute (`webhooks.delivery`)."""

from crontask import cron
from django.tasks import task

from webhooks.delivery import webhook_deliveries_drain


@cron("* * * * *")
@task
def deliver_webhooks() -> dict[str, int]:
    return webhook_deliveries_drain()
