"""The receipt: how a request looks to its member and in the operators' queue."""

from django.urls import reverse
from django.utils import timezone
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from datarights.enums import RequestKind, RequestStatus, TrailEvent, VerificationMethod
from datarights.models import DataRightsRequest, VerificationCode
from datarights.policy import masked_email, receipt_timing
from datarights.selectors import (
    FULFILLABLE_STATUSES,
    datarights_active_code,
    datarights_notified,
    datarights_trail,
)
from iris_site.audit.sealing import payload_listed


def _enum_field(name: str, component: str, values: list[str]) -> type[serializers.ChoiceField]:
    """A choice field documented as its own named enum component (`DataRights…Enum`):
    other apps have a `status` or a `kind` with other values, and enums named after the
    field would collide."""
    field = type(
        name,
        (serializers.ChoiceField,),
        {
            "__init__": lambda self, **kw: serializers.ChoiceField.__init__(
                self, choices=[(v, v) for v in values], **kw
            )
        },
    )
    field.__module__ = __name__

    def map_serializer_field(self, auto_schema, direction):
        resolved = ResolvedComponent(
            name=component,
            type=ResolvedComponent.SCHEMA,
            object=component,
            schema={"type": "string", "enum": list(values)},
        )
        auto_schema.registry.register_on_missing(resolved)
        return resolved.ref

    type(
        f"{name}Extension",
        (OpenApiSerializerFieldExtension,),
        {"target_class": field, "map_serializer_field": map_serializer_field},
    )
    return field


RequestStatusField = _enum_field("RequestStatusField", "DataRightsStatusEnum", RequestStatus.values)
RequestKindField = _enum_field("RequestKindField", "DataRightsKindEnum", RequestKind.values)
TrailEventField = _enum_field("TrailEventField", "DataRightsTrailEventEnum", TrailEvent.values)
VerificationMethodField = _enum_field(
    "VerificationMethodField", "DataRightsVerificationMethodEnum", VerificationMethod.values
)
OperatorVerificationMethodField = _enum_field(
    "OperatorVerificationMethodField",
    "DataRightsOperatorVerificationMethodEnum",
    [VerificationMethod.OPERATOR_SIGNOFF, VerificationMethod.COURT_ORDER],
)


class TrailRowSerializer(serializers.Serializer):
    status = RequestStatusField()
    event = TrailEventField()
    at = serializers.DateTimeField()


class ExtensionSerializer(serializers.Serializer):
    extended_deadline_at = serializers.DateTimeField()
    reason = serializers.CharField()
    extended_at = serializers.DateTimeField()


class NotifiedSurfaceSerializer(serializers.Serializer):
    """One surface told of the member's changes, by name (never its endpoint)."""

    consumer = serializers.CharField(help_text="The surface's consumer, e.g. `tara`.")
    name = serializers.CharField(help_text="The surface's name in words, e.g. `Tara`.")
    type = serializers.CharField(help_text="What it was told: `memory.forgotten`, ...")
    event_count = serializers.IntegerField()
    first_notified_at = serializers.DateTimeField()
    last_notified_at = serializers.DateTimeField()
    acknowledged = serializers.BooleanField(help_text="It acknowledged every one of them.")
    acknowledged_count = serializers.IntegerField()
    acknowledged_at = serializers.DateTimeField(
        allow_null=True, help_text="When the last was acknowledged; null until all are."
    )


class CodeDeliverySerializer(serializers.Serializer):
    """Where the request's one-time code went, while it waits to be verified."""

    method = serializers.CharField(help_text="`email-link`: a six-digit code by mail.")
    sent_to = serializers.CharField(help_text="The account's address, masked.")
    delivery = serializers.ChoiceField(
        choices=VerificationCode.Delivery.choices,
        help_text="`sent`: the mail left Iris; `failed`: it could not be sent — ask for a "
        'new code (`{"resend": true}`); `pending`: not tried yet.',
    )
    expires_at = serializers.DateTimeField()
    verify_url = serializers.CharField(
        help_text='Where to send the code: POST `{"code": "123456"}`.'
    )


class ReceiptSerializer(serializers.ModelSerializer):
    """The seed's receipt (`toIrisDataRightsReceipt`): status, clocks, proof."""

    is_past_deadline = serializers.SerializerMethodField()
    ms_remaining_to_deadline = serializers.SerializerMethodField()
    extension = serializers.SerializerMethodField()
    audit_trail = serializers.SerializerMethodField()
    download_url = serializers.SerializerMethodField()
    kind = RequestKindField(read_only=True)
    status = RequestStatusField(read_only=True)
    verification_method = serializers.SerializerMethodField()
    verification = serializers.SerializerMethodField()
    result_fingerprint = serializers.SerializerMethodField()
    failure_code = serializers.SerializerMethodField()
    failure_reason = serializers.SerializerMethodField()
    notified_surfaces = serializers.SerializerMethodField()

    class Meta:
        model = DataRightsRequest
        fields = [
            "id",
            "kind",
            "status",
            "payload",
            "received_at",
            "verify_by",
            "verified_at",
            "verification_method",
            "verification",
            "deadline_at",
            "due_at",
            "extension",
            "is_past_deadline",
            "ms_remaining_to_deadline",
            "started_at",
            "finished_at",
            "result_fingerprint",
            "failure_code",
            "failure_reason",
            "grace_ends_at",
            "download_url",
            "download_expires_at",
            "access_report",
            "notified_surfaces",
            "audit_trail",
        ]
        read_only_fields = fields

    @extend_schema_field(VerificationMethodField(allow_null=True))
    def get_verification_method(self, obj) -> str | None:
        return obj.verification_method or None

    @extend_schema_field(
        serializers.CharField(
            allow_null=True,
            help_text="SHA-256 binding the result: of the export bundle, of the sorted "
            "deleted-id set, or of the access report.",
        )
    )
    def get_result_fingerprint(self, obj) -> str | None:
        return obj.result_fingerprint or None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_failure_code(self, obj) -> str | None:
        return obj.failure_code or None

    @extend_schema_field(
        serializers.CharField(
            allow_null=True, help_text="Why an operator failed the request, as they wrote it."
        )
    )
    def get_failure_reason(self, obj) -> str | None:
        return obj.failure_reason or None

    def _timing(self, obj: DataRightsRequest):
        now = self.context.get("now") or timezone.now()
        return receipt_timing(due_at=obj.due_at, now=now, finished_at=obj.finished_at)

    def get_is_past_deadline(self, obj) -> bool:
        return self._timing(obj).is_past_deadline

    def get_ms_remaining_to_deadline(self, obj) -> int:
        return self._timing(obj).ms_remaining_to_deadline

    @extend_schema_field(ExtensionSerializer(allow_null=True))
    def get_extension(self, obj):
        if obj.extended_deadline_at is None:
            return None
        return ExtensionSerializer(
            {
                "extended_deadline_at": obj.extended_deadline_at,
                "reason": obj.extension_reason,
                "extended_at": obj.extended_at,
            }
        ).data

    @extend_schema_field(CodeDeliverySerializer(allow_null=True))
    def get_verification(self, obj):
        code = datarights_active_code(request=obj) if obj.verified_at is None else None
        if code is None:
            return None
        return CodeDeliverySerializer(
            {
                "method": code.method,
                "sent_to": masked_email(obj.member.email),
                "delivery": code.delivery,
                "expires_at": code.expires_at,
                "verify_url": reverse("me:datarights-verify", kwargs={"pk": obj.pk}),
            }
        ).data

    @extend_schema_field(
        NotifiedSurfaceSerializer(
            many=True,
            allow_null=True,
            help_text="A delete's proof of notification: the surfaces its erasure told "
            "(only those that had received the member's memory), when, and whether they "
            "acknowledged. Null for another kind, or before the erasure begins.",
        )
    )
    def get_notified_surfaces(self, obj):
        rows = datarights_notified(request=obj)
        return None if rows is None else NotifiedSurfaceSerializer(rows, many=True).data

    @extend_schema_field(TrailRowSerializer(many=True))
    def get_audit_trail(self, obj):
        return TrailRowSerializer(datarights_trail(request=obj), many=True).data

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_download_url(self, obj):
        available = (
            obj.kind == RequestKind.EXPORT
            and obj.status == RequestStatus.COMPLETED
            and obj.artifact_name
            and obj.artifact_removed_at is None
        )
        if not available:
            return None
        return reverse("me:datarights-download", kwargs={"pk": obj.pk})


class QueueItemSerializer(ReceiptSerializer):
    member_id = serializers.UUIDField(read_only=True)
    appeal_reason = serializers.CharField(read_only=True)

    class Meta(ReceiptSerializer.Meta):
        fields = ["member_id", "appeal_reason", *ReceiptSerializer.Meta.fields]
        read_only_fields = fields

    def to_representation(self, instance):
        """A request an operator is not working on (finished, cancelled, expired, not
        yet verified) names a special category only as `special-category`: "this
        member erased their mental-health memory" is itself one (issue 42); the task
        in hand (`FULFILLABLE_STATUSES`, the audit listing's data-rights cover) shows it."""
        data = super().to_representation(instance)
        if instance.status not in FULFILLABLE_STATUSES:
            data["payload"] = payload_listed(data["payload"])
        return data
