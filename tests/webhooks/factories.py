from django.utils import timezone

from iris_site.audit.events import Actor
from memory.changes import change_events_write
from memory.enums import ChangeType
from tests.iris_site.factories import OperatorFactory, ServiceClientFactory
from webhooks.services import webhook_endpoint_set


def platform_admin():
    return OperatorFactory(role="admin")


def endpoint_for(url: str, consumer: str = "assistant", client=None):
    """A service client of `consumer` (or `client`) with its endpoint; and its secret."""
    client = client or ServiceClientFactory(consumer=consumer)
    return webhook_endpoint_set(service_client=client, url=url, actor=Actor.of(platform_admin()))


def event_for(member_id, consumer: str = "assistant", entry_id=None):
    """One `memory.forgotten` event for `consumer` (written as the forget writes it)."""
    import uuid

    entry = str(entry_id or uuid.uuid4())
    change_events_write(
        member_id=member_id,
        type=ChangeType.MEMORY_FORGOTTEN,
        received={consumer: {entry}},
        now=timezone.now(),
        revisions={entry: []},
    )
