from django.urls import path

from webhooks import apis

operator_api_urlpatterns = [
    path("webhooks/", apis.WebhookEndpointListApi.as_view(), name="webhook-endpoints"),
    path("webhooks/<uuid:client_id>/", apis.WebhookEndpointApi.as_view(), name="webhook-endpoint"),
    path(
        "webhooks/<uuid:client_id>/rotate/",
        apis.WebhookSecretRotateApi.as_view(),
        name="webhook-rotate",
    ),
    path("webhooks/<uuid:client_id>/retry/", apis.WebhookRetryApi.as_view(), name="webhook-retry"),
]
