"""Operator API over the episodic chain: list, filter, verify."""

from django.db.models import Q
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import content_free
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.audit.filters import AuditEventFilter
from iris_site.audit.listing import Listing, role_events
from iris_site.audit.sealing import Cover, cover_resolve
from iris_site.audit.selectors import audit_chain_verify, audit_event_list
from iris_site.errors import NotPermitted
from iris_site.models import AuditEvent
from iris_site.permissions import IsOperator, IsPlatformOperator
from iris_site.selectors import operator_tenant_id


@content_free
class AuditEventListApi(generics.ListAPIView):
    """Episodic audit events, newest first. Tenant-bound operators see their tenant only.

    A special-category value in a payload (a sensitive category, a consent type naming
    one) shows as `special-category`, unless the listing is covered: `inspection=<id>`
    (a granted inspection of the caller's that includes sensitive categories) or
    `data_rights_request=<id>` (an open request, for legal or admin) lists that member's
    events only, with their values. Support lists data-rights, inspection and webhook
    events only, with counts only. Every member whose events a page shows gets an
    `iris_site.audit_events.listed` event (`iris_site.audit.listing`)."""

    class AuditEventOutputSerializer(serializers.ModelSerializer):
        payload = serializers.SerializerMethodField(
            help_text="Identifiers, enums and numbers; special-category values as "
            "`special-category` outside a cover; support: counts only."
        )

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

        @extend_schema_field(serializers.JSONField())  # as the model's JSON field was
        def get_payload(self, event: AuditEvent) -> dict:
            return self.context["listing"].payload(event)

    class CoverQuerySerializer(serializers.Serializer):
        inspection = serializers.UUIDField(
            required=False, help_text="A granted inspection of yours: list its member."
        )
        data_rights_request = serializers.UUIDField(
            required=False, help_text="An open data-rights request (legal, admin)."
        )

        def validate(self, attrs):
            if len(attrs) > 1:
                raise serializers.ValidationError("Name one cover at most.")
            return attrs

    class Pagination(CursorPagination):
        ordering = "-sequence"

    permission_classes = [IsOperator]
    serializer_class = AuditEventOutputSerializer
    pagination_class = Pagination
    filterset_class = AuditEventFilter

    def _cover(self) -> Cover | None:
        serializer = self.CoverQuerySerializer(
            data={
                k: v
                for k, v in self.request.query_params.items()
                if k in ("inspection", "data_rights_request")
            }
        )
        serializer.is_valid(raise_exception=True)
        if not serializer.validated_data:
            return None
        [(name, cover_id)] = serializer.validated_data.items()
        kind = "inspection" if name == "inspection" else "data-rights-request"
        cover = cover_resolve(kind=kind, cover_id=cover_id, operator=self.request.user)
        if cover is None:
            raise NotPermitted(
                "That cover does not hold for you now: no granted inspection of yours, "
                "or open data-rights request you handle, by that id.",
                code="audit_cover_refused",
            )
        return cover

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return AuditEvent.objects.none()
        tenant_id = operator_tenant_id(self.request.user)
        cover = getattr(self, "listing", None) and self.listing.cover
        if cover is not None:
            events = AuditEvent.objects.filter(target_member_id=cover.member_id)
            if tenant_id is not None:
                events = events.filter(Q(target_tenant_id=None) | Q(target_tenant_id=tenant_id))
        else:
            events = audit_event_list(tenant_id=tenant_id)
        return role_events(events, role=self.request.user.operator_profile.role)

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "listing": getattr(self, "listing", None)}

    @extend_schema(
        parameters=[CoverQuerySerializer],
        responses={200: AuditEventOutputSerializer(many=True), **error_responses(400)},
    )
    def get(self, request, *args, **kwargs):
        self.listing = Listing(role=request.user.operator_profile.role, cover=self._cover())
        response = super().get(request, *args, **kwargs)
        self.listing.record(
            actor=Actor.of(request.user),
            surface="api",
            tenant_id=operator_tenant_id(request.user),
        )
        return response


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
