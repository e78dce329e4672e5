"""Webhook endpoints over the operator API (the console's pages call the same services):
platform admins set, rotate, disable and retry a service client's endpoint. Secrets are
shown once, in the answer that made them (`Cache-Control: no-store`), never again; the
list shows counts of pending and dead deliveries, no event, member or content."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import content_free
from iris_site.api.schema import error_responses
from iris_site.api.serializers import StrictInputSerializer
from iris_site.audit.events import Actor
from iris_site.enums import OperatorRole
from iris_site.models import ServiceClient
from iris_site.permissions import IsPlatformOperator
from webhooks.models import WebhookEndpoint
from webhooks.selectors import webhook_clients, webhook_endpoint_counts
from webhooks.services import (
    webhook_dead_retry,
    webhook_endpoint_disable,
    webhook_endpoint_set,
    webhook_secret_rotate,
)


class IsPlatformAdmin(IsPlatformOperator):
    roles = frozenset({OperatorRole.ADMIN})


class EndpointSerializer(serializers.Serializer):
    service_client_id = serializers.UUIDField(source="pk")
    consumer = serializers.CharField()
    label = serializers.CharField()
    url = serializers.SerializerMethodField()
    active = serializers.SerializerMethodField()
    pending_count = serializers.SerializerMethodField()
    dead_count = serializers.SerializerMethodField()

    def _endpoint(self, client) -> WebhookEndpoint | None:
        return getattr(client, "webhook_endpoint", None)

    def _counts(self, client) -> dict:
        endpoint = self._endpoint(client)
        counts = self.context.get("counts", {})
        return counts.get(endpoint.pk, {}) if endpoint else {}

    def get_url(self, client) -> str | None:
        endpoint = self._endpoint(client)
        return endpoint.url if endpoint else None

    def get_active(self, client) -> bool:
        endpoint = self._endpoint(client)
        return bool(endpoint and endpoint.is_active)

    def get_pending_count(self, client) -> int:
        return self._counts(client).get("pending", 0)

    def get_dead_count(self, client) -> int:
        return self._counts(client).get("dead", 0)


class EndpointInputSerializer(StrictInputSerializer):
    url = serializers.URLField(max_length=500, help_text="HTTPS (HTTP only under DEBUG).")


class SecretSerializer(serializers.Serializer):
    secret = serializers.CharField(
        allow_null=True, help_text="`whsec_…`: shown once; null when the URL was replaced."
    )


class RetrySerializer(serializers.Serializer):
    retried_count = serializers.IntegerField()


def _client(client_id) -> ServiceClient:
    return get_object_or_404(ServiceClient, pk=client_id)


def _endpoint(client_id) -> WebhookEndpoint:
    return get_object_or_404(WebhookEndpoint, service_client_id=client_id)


def _once(data: dict, code: int) -> Response:
    response = Response(data, status=code)
    response["Cache-Control"] = "no-store"
    return response


@content_free
class WebhookEndpointListApi(APIView):
    """Every service client with its endpoint and its pending and dead delivery counts."""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(responses={200: EndpointSerializer(many=True), **error_responses()})
    def get(self, request):
        clients = webhook_clients()
        context = {"counts": webhook_endpoint_counts()}
        return Response(EndpointSerializer(clients, many=True, context=context).data)


@content_free
class WebhookEndpointApi(APIView):
    """Set (or replace) a service client's endpoint; disable it."""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(
        summary="Set (or replace) a service client's endpoint",
        request=EndpointInputSerializer,
        responses={200: SecretSerializer, 201: SecretSerializer, **error_responses(400, 404)},
    )
    def put(self, request, client_id):
        client = _client(client_id)
        data = EndpointInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        _, secret = webhook_endpoint_set(
            service_client=client, url=data.validated_data["url"], actor=Actor.of(request.user)
        )
        return _once({"secret": secret}, status.HTTP_201_CREATED if secret else status.HTTP_200_OK)

    @extend_schema(
        summary="Disable a service client's endpoint", responses={204: None, **error_responses(404)}
    )
    def delete(self, request, client_id):
        webhook_endpoint_disable(endpoint=_endpoint(client_id), actor=Actor.of(request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


@content_free
class WebhookSecretRotateApi(APIView):
    """Rotate the endpoint's secret. The new one is shown once; the current one keeps
    signing beside it for 24 hours."""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(request=None, responses={200: SecretSerializer, **error_responses(404)})
    def post(self, request, client_id):
        secret = webhook_secret_rotate(endpoint=_endpoint(client_id), actor=Actor.of(request.user))
        return _once({"secret": secret}, status.HTTP_200_OK)


@content_free
class WebhookRetryApi(APIView):
    """Every dead delivery of the endpoint is sent again (a fresh 24-hour window)."""

    permission_classes = [IsPlatformAdmin]

    @extend_schema(request=None, responses={200: RetrySerializer, **error_responses(404)})
    def post(self, request, client_id):
        count = webhook_dead_retry(endpoint=_endpoint(client_id), actor=Actor.of(request.user))
        return Response({"retried_count": count})
