"""Operator API over the episodic chain: list, filter, verify."""

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import content_free
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import error_responses
from iris_site.audit.filters import AuditEventFilter
from iris_site.audit.selectors import audit_chain_verify, audit_event_list
from iris_site.models import AuditEvent
from iris_site.permissions import IsOperator, IsPlatformOperator
from iris_site.selectors import operator_tenant_id


@content_free
class AuditEventListApi(generics.ListAPIView):
    """Episodic audit events, newest first. Tenant-bound operators see their tenant only."""

    class AuditEventOutputSerializer(serializers.ModelSerializer):
        class Meta:
            model = AuditEvent
            fields = [
                "id",
                "sequence",
                "chain_key",
                "chain_sequence",
                "action",
                "policy_id",
                "severity",
                "actor_type",
                "actor_id",
                "actor_role",
                "target_member_id",
                "target_tenant_id",
                "payload",
                "occurred_at",
                "previous_hash",
                "hash",
            ]

    class Pagination(CursorPagination):
        ordering = "-sequence"

    permission_classes = [IsOperator]
    serializer_class = AuditEventOutputSerializer
    pagination_class = Pagination
    filterset_class = AuditEventFilter

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return AuditEvent.objects.none()
        return audit_event_list(tenant_id=operator_tenant_id(self.request.user))

    @extend_schema(responses={200: AuditEventOutputSerializer(many=True), **error_responses(400)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


@content_free
class AuditChainVerifyApi(APIView):
    """Check every chain against the latest signed checkpoint; report the first event
    that fails (chains in key order) and any checkpoint that does not hold.

    The chains span every tenant, so only platform operators (bound to no tenant) may.
    """

    class ChainReportOutputSerializer(serializers.Serializer):
        valid = serializers.BooleanField()
        checked_count = serializers.IntegerField()
        chain_count = serializers.IntegerField()
        broken_chains = serializers.IntegerField()
        checkpoint = serializers.IntegerField(allow_null=True)
        checkpoint_problem = serializers.CharField(allow_null=True)
        first_invalid_event_id = serializers.UUIDField(allow_null=True)
        first_invalid_chain = serializers.CharField(allow_null=True)
        first_invalid_sequence = serializers.IntegerField(allow_null=True)
        reason = serializers.CharField(allow_null=True)

    permission_classes = [IsPlatformOperator]

    @extend_schema(responses={200: ChainReportOutputSerializer, **error_responses()})
    def get(self, request):
        report = audit_chain_verify()
        broken = report.first_break
        return Response(
            self.ChainReportOutputSerializer(
                {
                    "valid": report.valid,
                    "checked_count": report.checked_count,
                    "chain_count": report.chain_count,
                    "broken_chains": report.broken_chains,
                    "checkpoint": report.checkpoint,
                    "checkpoint_problem": report.checkpoint_problem,
                    "first_invalid_event_id": broken.event_id if broken else None,
                    "first_invalid_chain": broken.chain if broken else None,
                    "first_invalid_sequence": broken.sequence if broken else None,
                    "reason": broken.reason if broken else None,
                }
            ).data
        )
