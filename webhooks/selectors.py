"""What the console shows of webhooks: per service client, its endpoint and how many of
its deliveries are pending and dead. Counts only: no event, member or content."""

from django.db.models import Count, Q, QuerySet

from iris_site.models import ServiceClient
from webhooks.enums import DeliveryState
from webhooks.models import WebhookEndpoint


def webhook_clients() -> QuerySet[ServiceClient]:
    return ServiceClient.objects.select_related("webhook_endpoint").order_by("consumer", "label")


def webhook_endpoint_counts() -> dict:
    """endpoint id → {"pending": n, "dead": n}."""
    rows = WebhookEndpoint.objects.annotate(
        pending=Count("deliveries", filter=Q(deliveries__state=DeliveryState.PENDING)),
        dead=Count("deliveries", filter=Q(deliveries__state=DeliveryState.DEAD)),
    ).values_list("pk", "pending", "dead")
    return {pk: {"pending": pending, "dead": dead} for pk, pending, dead in rows}
