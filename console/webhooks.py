"""Webhook endpoints in the console (/console/webhooks/), for platform admins (the admin
role, bound to no tenant: service clients serve every tenant). Per service client: its
endpoint's URL, set or replaced here; its secret, rotated here (a new secret is shown
once, on the answer to the POST, never stored in the clear or put in a message; the old
one keeps signing for 24 hours); its pending and dead deliveries as counts, and a retry
of the dead ones. No event, member id or content is shown.

The services audit every change with ids, the URL's host and counts.
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from console.access import console_page
from iris_site.api.gated import content_free
from iris_site.audit.events import Actor
from iris_site.enums import OperatorRole
from iris_site.errors import DomainError
from iris_site.models import ServiceClient
from iris_site.selectors import operator_tenant_id
from webhooks.models import WebhookEndpoint
from webhooks.selectors import change_events_recent, webhook_clients, webhook_endpoint_counts
from webhooks.services import (
    ROTATION_OVERLAP,
    webhook_dead_retry,
    webhook_endpoint_disable,
    webhook_endpoint_set,
    webhook_secret_rotate,
)

WEBHOOK_ROLES = (OperatorRole.ADMIN,)


class EndpointForm(forms.Form):
    url = forms.URLField(label="Endpoint URL (HTTPS)", max_length=500, assume_scheme="https")


def _platform_only(request) -> None:
    if operator_tenant_id(request.user) is not None:
        raise PermissionDenied


def _secret_page(request, client: ServiceClient, secret: str, *, rotated: bool):
    response = render(
        request,
        "console/webhooks/secret.html",
        {
            "console_section": "webhooks",
            "client": client,
            "secret": secret,
            "rotated": rotated,
            "overlap_hours": int(ROTATION_OVERLAP.total_seconds() // 3600),
        },
    )
    response["Cache-Control"] = "no-store"
    return response


@content_free
@require_GET
@console_page(roles=WEBHOOK_ROLES)
def webhook_list(request):
    _platform_only(request)
    counts = webhook_endpoint_counts()
    rows = []
    for client in webhook_clients():
        endpoint = getattr(client, "webhook_endpoint", None)
        rows.append(
            {
                "client": client,
                "endpoint": endpoint,
                "counts": counts.get(endpoint.pk) if endpoint else None,
                "form": EndpointForm(
                    initial={"url": endpoint.url if endpoint else ""},
                    auto_id=f"id_{client.pk}_%s",
                ),
            }
        )
    return render(
        request,
        "console/webhooks/list.html",
        {"console_section": "webhooks", "rows": rows, "changes": change_events_recent()},
    )


@content_free
@never_cache
@require_POST
@console_page(roles=WEBHOOK_ROLES)
def webhook_url_set(request, client_id):
    _platform_only(request)
    client = get_object_or_404(ServiceClient, pk=client_id)
    form = EndpointForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Enter a valid HTTPS URL.")
        return redirect("console:webhooks")
    try:
        _, secret = webhook_endpoint_set(
            service_client=client, url=form.cleaned_data["url"], actor=Actor.of(request.user)
        )
    except DomainError as exc:
        details = [m for msgs in exc.fields.values() for m in msgs]
        messages.error(request, " ".join([exc.message, *details]))
        return redirect("console:webhooks")
    if secret is not None:
        return _secret_page(request, client, secret, rotated=False)
    messages.success(request, f"Endpoint of {client.label} updated; its secret is unchanged.")
    return redirect("console:webhooks")


@content_free
@never_cache
@require_POST
@console_page(roles=WEBHOOK_ROLES)
def webhook_rotate(request, pk):
    _platform_only(request)
    endpoint = get_object_or_404(WebhookEndpoint.objects.select_related("service_client"), pk=pk)
    secret = webhook_secret_rotate(endpoint=endpoint, actor=Actor.of(request.user))
    return _secret_page(request, endpoint.service_client, secret, rotated=True)


@content_free
@require_POST
@console_page(roles=WEBHOOK_ROLES)
def webhook_disable(request, pk):
    _platform_only(request)
    endpoint = get_object_or_404(WebhookEndpoint, pk=pk)
    webhook_endpoint_disable(endpoint=endpoint, actor=Actor.of(request.user))
    messages.success(request, "Endpoint disabled; its deliveries wait until a URL is set.")
    return redirect("console:webhooks")


@content_free
@require_POST
@console_page(roles=WEBHOOK_ROLES)
def webhook_retry(request, pk):
    _platform_only(request)
    endpoint = get_object_or_404(WebhookEndpoint, pk=pk)
    count = webhook_dead_retry(endpoint=endpoint, actor=Actor.of(request.user))
    messages.success(request, f"{count} dead deliveries will be sent again on the next run.")
    return redirect("console:webhooks")
