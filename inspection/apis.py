"""The operator inspection API and the member's inspection notices.

Operators: open a request, move it along its path, read the pinned snapshot while
granted, replay it. Requests are visible to their operator (and to `admin` oversight);
a tenant-bound operator gets 404 for anything about a member outside its tenant.
"""

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from consent.enums import SensitiveCategory
from inspection.enums import (
    InspectionState,
    NoticeState,
    ReadKind,
    ReplayItemStatus,
)
from inspection.filters import InspectionRequestFilter
from inspection.models import InspectionNotice, InspectionRequest
from inspection.replays import inspection_open_member, inspection_open_replay
from inspection.selectors import (
    inspection_event_list,
    inspection_get,
    inspection_list,
    inspection_notice_summary,
    inspection_notices_for_member,
    inspection_snapshot_items,
)
from inspection.serializers import (
    PATH_CHOICES,
    InspectionOutputSerializer,
    InspectionScopeSerializer,
    PlainChoiceField,
    inspection_data,
)
from inspection.services import (
    MAX_INCIDENT_REF_LENGTH,
    MAX_JUSTIFICATION_LENGTH,
    SnapshotItemView,
    inspection_copilot_note_add,
    inspection_open,
    inspection_read,
    inspection_transition,
)
from iris_site.api.gated import INSPECTION, content_free, content_view
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import error_responses
from iris_site.enums import OperatorRole
from iris_site.idempotency import Scope, idempotent
from iris_site.permissions import IsMember, IsOperator
from memory.access.gate import ContentKind
from memory.enums import Lifecycle, MemoryCategory, Origin, ScopeKind


@extend_schema_field(InspectionScopeSerializer)
class InspectionScopeField(serializers.JSONField):
    """Validated strictly by the memory scope-key contract in the service."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("A scope is an object with a `kind`.")
        return super().to_internal_value(data)


def _event_data(event) -> dict:
    return {
        "sequence": event.sequence,
        "from_state": event.from_state or None,
        "to_state": event.to_state,
        "reason_code": event.reason_code or None,
        "actor_type": event.actor_type,
        "actor_id": event.actor_id,
        "actor_role": event.actor_role,
        "seen_count": event.seen_count,
        "audit_event_id": event.audit_event_id,
        "occurred_at": event.occurred_at,
    }


@content_free
class InspectionListCreateApi(generics.ListAPIView):
    """GET: the requests this operator may see, newest first. POST: open a request."""

    class InspectionOpenInputSerializer(serializers.Serializer):
        target_user_id = serializers.UUIDField()
        scope = InspectionScopeField()
        justification = serializers.CharField(
            max_length=MAX_JUSTIFICATION_LENGTH,
            help_text="Why this look is needed. Stored on the request, never in audit events.",
        )
        include_sensitive = serializers.BooleanField(
            default=False, help_text="Whether the request covers sensitive categories."
        )
        signed_incident_ref = serializers.CharField(
            required=False,
            allow_null=True,
            allow_blank=True,
            max_length=MAX_INCIDENT_REF_LENGTH,
            help_text="The incident system's signed reference, `<incident id>.<HMAC>` "
            "(needed on incident-escalation).",
        )
        dsar_request_id = serializers.UUIDField(
            required=False,
            allow_null=True,
            help_text="The member's open data-rights request (needed on dsar-fulfillment).",
        )

    permission_classes = [IsOperator]
    # What OPTIONS describes as the POST body (DRF's metadata asks the view for it).
    serializer_class = InspectionOpenInputSerializer
    filterset_class = InspectionRequestFilter

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return InspectionRequest.objects.none()
        return inspection_list(operator=self.request.user).prefetch_related("snapshot_items")

    def list(self, request, *args, **kwargs):
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        data = InspectionOutputSerializer([inspection_data(i) for i in page], many=True).data
        return self.get_paginated_response(data)

    @extend_schema(
        summary="The inspection requests I may see, newest first",
        responses={200: InspectionOutputSerializer(many=True), **error_responses(400)},
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @idempotent(Scope.INSPECTION_OPEN, replay=inspection_open_replay, member=inspection_open_member)
    @extend_schema(
        summary="Open an inspection request",
        request=InspectionOpenInputSerializer,
        responses={201: InspectionOutputSerializer, **error_responses(400, 404)},
    )
    def post(self, request):
        serializer = self.InspectionOpenInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        inspection = inspection_open(
            operator=request.user,
            member_id=data["target_user_id"],
            scope=data["scope"],
            justification=data["justification"],
            include_sensitive=data["include_sensitive"],
            signed_incident_ref=data.get("signed_incident_ref"),
            dsar_request_id=data.get("dsar_request_id"),
        )
        return Response(
            InspectionOutputSerializer(inspection_data(inspection, seen_entry_ids=[])).data,
            status=status.HTTP_201_CREATED,
        )


@content_free
class InspectionDetailApi(APIView):
    """One inspection request with its steps; 404 when it is not visible to this operator."""

    permission_classes = [IsOperator]

    @extend_schema(responses={200: InspectionOutputSerializer, **error_responses(404)})
    def get(self, request, pk):
        inspection = inspection_get(operator=request.user, inspection_id=pk)
        data = inspection_data(inspection) | {
            "events": [_event_data(e) for e in inspection_event_list(inspection_id=pk)]
        }
        return Response(InspectionOutputSerializer(data).data)


@content_free
class InspectionTransitionApi(APIView):
    """Move an inspection request one step: `{"to": state, ...}`.

    `→ granted` runs the policy gate: 200 with `state: granted` and the pinned
    `seen_entry_ids`, or 200 with `state: denied` and the gate's `reason_code`. An illegal
    step is 409 `illegal-transition`; another operator's request is 403 (admin oversight
    may deny or close it); a four-eyes grant by its own requester is 403
    `second-approver-required` (a second operator with the path's approving role grants
    it). Refusals are recorded in the audit chain.
    """

    permission_classes = [IsOperator]

    class InspectionTransitionInputSerializer(serializers.Serializer):
        to = PlainChoiceField(choices=InspectionState.choices)
        signed_incident_ref = serializers.CharField(
            required=False,
            allow_null=True,
            allow_blank=True,
            max_length=MAX_INCIDENT_REF_LENGTH,
            help_text="Only when routing to incident-escalation: `<incident id>.<HMAC>`.",
        )
        dsar_request_id = serializers.UUIDField(
            required=False,
            allow_null=True,
            help_text="When routing to dsar-fulfillment: the member's open request (unless "
            "named at opening).",
        )
        investigation_carveout = serializers.BooleanField(
            required=False,
            help_text="Incident path only, on → granted or → closed: no member notice.",
        )

    @extend_schema(
        request=InspectionTransitionInputSerializer,
        responses={200: InspectionOutputSerializer, **error_responses(400, 404, 409)},
    )
    def post(self, request, pk):
        inspection = inspection_get(operator=request.user, inspection_id=pk)
        serializer = self.InspectionTransitionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = inspection_transition(
            inspection=inspection,
            to=data["to"],
            operator=request.user,
            signed_incident_ref=data.get("signed_incident_ref"),
            dsar_request_id=data.get("dsar_request_id"),
            investigation_carveout=data.get("investigation_carveout"),
        )
        seen = [
            item.entry_id for item in inspection_snapshot_items(inspection_id=result.inspection.pk)
        ]
        payload = inspection_data(result.inspection, seen_entry_ids=seen) | {
            "gate_explanation": result.gate_explanation
        }
        return Response(InspectionOutputSerializer(payload).data)


class InspectionEntryOutputSerializer(serializers.Serializer):
    """One pinned entry exactly as it was at grant time (multi-actor redacted unless DSAR)."""

    entry_id = serializers.UUIDField()
    revision_id = serializers.UUIDField()
    revision_number = serializers.IntegerField()
    recorded_at = serializers.DateTimeField(help_text="When this revision was written.")
    sensitive = serializers.BooleanField()
    scope = InspectionScopeSerializer()
    category = serializers.ChoiceField(choices=MemoryCategory.choices)
    subject = serializers.CharField(allow_blank=True)
    body = serializers.CharField()
    origin = serializers.ChoiceField(choices=Origin.choices)
    lifecycle = serializers.ChoiceField(choices=Lifecycle.choices)
    confidence = serializers.FloatField()
    suppression = serializers.JSONField(allow_null=True)
    multi_actor = serializers.JSONField(
        allow_null=True, help_text="null on every path but dsar-fulfillment."
    )
    provenance_chain = serializers.ListField(child=serializers.JSONField())


def _entry_data(item: SnapshotItemView) -> dict | None:
    if item.content is None:
        return None
    content = item.content
    return {
        "entry_id": item.entry_id,
        "revision_id": item.revision_id,
        "revision_number": item.revision_number,
        "recorded_at": item.recorded_at,
        "sensitive": item.sensitive,
        "scope": content.get("scope"),
        "category": content.get("category"),
        "subject": content.get("subject") or "",
        "body": content.get("body"),
        "origin": content.get("origin"),
        "lifecycle": content.get("lifecycle"),
        "confidence": content.get("confidence"),
        "suppression": content.get("suppression"),
        "multi_actor": content.get("multi_actor"),
        "provenance_chain": content.get("provenance_chain") or [],
    }


class InspectionSnapshotOutputSerializer(serializers.Serializer):
    inspection_id = serializers.UUIDField()
    path = serializers.ChoiceField(choices=PATH_CHOICES)
    granted_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    multi_actor_redacted = serializers.BooleanField()
    entries = InspectionEntryOutputSerializer(many=True)
    purged_entry_ids = serializers.ListField(
        child=serializers.UUIDField(), help_text="Pinned, then erased by a hard delete."
    )


@content_view(reads=[ContentKind.ENTRY], through=INSPECTION)
class InspectionSnapshotApi(APIView):
    """The entries the grant pinned, for the requesting operator, only while granted.

    Outside `granted` (or past the time box) it is 409 `inspection-not-granted` /
    `grant-expired`; for anyone but the requester 403 `not-request-owner`. Every read and
    every refusal is recorded.
    """

    permission_classes = [IsOperator]

    @extend_schema(responses={200: InspectionSnapshotOutputSerializer, **error_responses(404, 409)})
    def get(self, request, pk):
        inspection = inspection_get(operator=request.user, inspection_id=pk)
        view = inspection_read(inspection=inspection, operator=request.user)
        current = view.inspection
        data = {
            "inspection_id": current.pk,
            "path": current.path,
            "granted_at": current.granted_at,
            "expires_at": current.expires_at,
            "multi_actor_redacted": current.path != InspectionState.DSAR_FULFILLMENT,
            "entries": [_entry_data(i) for i in view.items if i.content is not None],
            "purged_entry_ids": view.purged_entry_ids,
        }
        return Response(InspectionSnapshotOutputSerializer(data).data)


class InspectionReplayItemOutputSerializer(serializers.Serializer):
    entry_id = serializers.UUIDField()
    revision_id = serializers.UUIDField()
    status = PlainChoiceField(choices=ReplayItemStatus.choices)
    sensitive = serializers.BooleanField()
    category = serializers.ChoiceField(choices=MemoryCategory.choices)
    entry = InspectionEntryOutputSerializer(allow_null=True)


class InspectionReplayOutputSerializer(serializers.Serializer):
    inspection_id = serializers.UUIDField()
    path = serializers.ChoiceField(choices=PATH_CHOICES)
    granted_at = serializers.DateTimeField()
    snapshot_fingerprint = serializers.CharField(help_text="Recorded at grant (SHA-256).")
    replay_fingerprint = serializers.CharField(help_text="Recomputed from the revisions now.")
    matches_grant = serializers.BooleanField(
        help_text="True when every pinned revision still exists unchanged."
    )
    items = InspectionReplayItemOutputSerializer(many=True)


@content_view(reads=[ContentKind.ENTRY], through=INSPECTION)
class InspectionReplayApi(APIView):
    """The pinned snapshot rebuilt from the revisions by id, exactly as granted, even after
    later edits or tombstones; a revision purged by a hard delete is reported as `purged`
    (erasure wins). Same access rule as the snapshot: requester only, only while granted."""

    permission_classes = [IsOperator]

    @extend_schema(
        summary="The granted snapshot rebuilt from its revisions",
        responses={200: InspectionReplayOutputSerializer, **error_responses(404, 409)},
    )
    def get(self, request, pk):
        inspection = inspection_get(operator=request.user, inspection_id=pk)
        view = inspection_read(inspection=inspection, operator=request.user, kind=ReadKind.REPLAY)
        current = view.inspection
        data = {
            "inspection_id": current.pk,
            "path": current.path,
            "granted_at": current.granted_at,
            "snapshot_fingerprint": current.snapshot_fingerprint,
            "replay_fingerprint": view.replay_fingerprint,
            "matches_grant": view.matches_grant,
            "items": [
                {
                    "entry_id": i.entry_id,
                    "revision_id": i.revision_id,
                    "status": i.status,
                    "sensitive": i.sensitive,
                    "category": i.category,
                    "entry": _entry_data(i),
                }
                for i in view.items
            ],
        }
        return Response(InspectionReplayOutputSerializer(data).data)


class CopilotNoteOutputSerializer(serializers.Serializer):
    """The stored note by id: the answer carries no content (the operator just sent it)."""

    entry_id = serializers.UUIDField()
    inspection_id = serializers.UUIDField()
    scope = InspectionScopeSerializer()
    category = serializers.ChoiceField(choices=MemoryCategory.choices)
    origin = serializers.ChoiceField(choices=Origin.choices)
    lifecycle = serializers.ChoiceField(choices=Lifecycle.choices)
    created = serializers.BooleanField(
        help_text="False when the conflict ladder kept an existing note instead."
    )


@content_free
class InspectionCopilotNoteCreateApi(APIView):
    """Add an `operator-copilot` note about the inspected member: only the operator the
    inspection was granted to, only while it is granted and inside its time box.

    Stored through memory's write path as that operator, origin `operator-copilot`, in
    the member's operator-copilot scope for this operator; recalled only by the operator
    consumers that scope's blueprint allows, never by a member-facing surface. Someone
    else's inspection is 403 `not-request-owner` (404 when it is not visible at all);
    outside the grant 409 `inspection-not-granted` / `grant-expired`; a memory policy's
    refusal keeps its own code. Audited with ids only; refusals too.
    """

    permission_classes = [IsOperator]

    class CopilotNoteInputSerializer(serializers.Serializer):
        body = serializers.CharField(
            trim_whitespace=False, help_text="The note. Stored as memory, never audited."
        )
        category = serializers.ChoiceField(choices=MemoryCategory.choices)
        subject = serializers.CharField(required=False, allow_null=True, default=None)

    serializer_class = CopilotNoteInputSerializer

    @extend_schema(
        request=CopilotNoteInputSerializer,
        responses={
            201: CopilotNoteOutputSerializer,
            200: CopilotNoteOutputSerializer,
            **error_responses(400, 404, 409, 422),
        },
    )
    def post(self, request, pk):
        inspection = inspection_get(operator=request.user, inspection_id=pk)
        serializer = self.CopilotNoteInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = inspection_copilot_note_add(
            inspection=inspection,
            operator=request.user,
            body=data["body"],
            category=data["category"],
            subject=data.get("subject"),
        )
        entry = result.entry
        payload = {
            "entry_id": entry.pk,
            "inspection_id": inspection.pk,
            "scope": {
                "kind": entry.scope_kind,
                "user_id": entry.member_id,
                "operator_id": entry.operator_id,
            },
            "category": entry.category,
            "origin": entry.origin,
            "lifecycle": entry.lifecycle,
            "created": result.created,
        }
        return Response(
            CopilotNoteOutputSerializer(payload).data,
            status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
        )


# --- Member ---------------------------------------------------------------------------------


class InspectionNoticeOutputSerializer(serializers.Serializer):
    """Told to the member: who (by role) looked at which of their memories, why, and when."""

    id = serializers.UUIDField()
    inspection_id = serializers.UUIDField()
    state = serializers.ChoiceField(choices=NoticeState.choices)
    path = serializers.ChoiceField(choices=PATH_CHOICES)
    operator_role = serializers.ChoiceField(choices=OperatorRole.choices)
    scope_kind = PlainChoiceField(choices=ScopeKind.choices)
    entry_ids = serializers.ListField(child=serializers.UUIDField())
    sensitive_categories = serializers.ListField(
        child=serializers.ChoiceField(choices=SensitiveCategory.choices)
    )
    granted_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField()
    queued_at = serializers.DateTimeField()
    due_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField()
    summary = serializers.CharField()


@content_free
class MemberInspectionNoticeListApi(generics.ListAPIView):
    """The signed-in member's delivered inspection notices, newest first."""

    class Pagination(CursorPagination):
        ordering = "-queued_at"

    permission_classes = [IsMember]
    pagination_class = Pagination
    filter_backends = []

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return InspectionNotice.objects.none()
        return inspection_notices_for_member(self.request.user.pk)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        data = [inspection_notice_summary(n) for n in page]
        return self.get_paginated_response(InspectionNoticeOutputSerializer(data, many=True).data)

    @extend_schema(
        responses={200: InspectionNoticeOutputSerializer(many=True), **error_responses(400)}
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
