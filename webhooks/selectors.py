"""What the console shows of webhooks: per service client, its endpoint and how many of
its deliveries are pending and dead. Counts only: no event, member or content."""

from django.db.models import Count, Q, QuerySet

from iris_site.models import ServiceClient
from memory.models import ChangeEvent
from webhooks.enums import DeliveryState
from webhooks.models import WebhookEndpoint

RECENT_CHANGES = 20


def change_events_recent(limit: int = RECENT_CHANGES) -> list[dict]:
    """The latest change events told to surfaces, as the console shows them: when, to
    which consumer, what kind of change, how many entries, whether applied. No member,
    no entry id and no consent type (a consent's name can say a member has sensitive
    memory)."""
    rows = ChangeEvent.objects.order_by("-id").values(
        "occurred_at", "consumer", "type", "entry_ids", "acknowledged_at"
    )[:limit]
    return [
        {
            "occurred_at": row["occurred_at"],
            "consumer": row["consumer"],
            "type": row["type"],
            "entry_count": len(row["entry_ids"]),
            "acknowledged": row["acknowledged_at"] is not None,
        }
        for row in rows
    ]


def webhook_clients() -> QuerySet[ServiceClient]:
    return ServiceClient.objects.select_related("webhook_endpoint").order_by("consumer", "label")


def webhook_endpoint_counts() -> dict:
    """endpoint id → {"pending": n, "dead": n}."""
    rows = WebhookEndpoint.objects.annotate(
        pending=Count("deliveries", filter=Q(deliveries__state=DeliveryState.PENDING)),
        dead=Count("deliveries", filter=Q(deliveries__state=DeliveryState.DEAD)),
    ).values_list("pk", "pending", "dead")
    return {pk: {"pending": pending, "dead": dead} for pk, pending, dead in rows}
