"""The data-rights HTTP API: the member's own requests (`/api/v1/me/data-rights/…`) and
the operators' work queue (`/api/v1/operator/data-rights/…`).

A request submitted from a signed-in browser session is verified by that session; one
submitted with a bearer token waits for the one-time code mailed to the account.
"""

import django_filters
from django.http import FileResponse, StreamingHttpResponse
from django.utils import timezone
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from datarights.enums import RequestKind, RequestStatus
from datarights.export import open_sealed_chunks
from datarights.models import DataRightsRequest
from datarights.replays import datarights_submit_replay
from datarights.selectors import (
    datarights_queue,
    datarights_queue_get,
    datarights_request_get,
    datarights_request_list,
)
from datarights.serializers import (
    OperatorVerificationMethodField,
    QueueItemSerializer,
    ReceiptSerializer,
    RequestKindField,
    RequestStatusField,
)
from datarights.services import (
    datarights_appeal,
    datarights_cancel,
    datarights_code_resend,
    datarights_download_open,
    datarights_extend,
    datarights_fail,
    datarights_operator_transition,
    datarights_request_submit_or_join,
    datarights_verify_code,
    datarights_verify_session,
)
from iris_site.api.gated import MEMBER_OWN, content_free, content_view
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import ErrorEnvelopeSerializer, error_responses
from iris_site.audit.events import Actor
from iris_site.enums import OperatorRole
from iris_site.errors import NotFound
from iris_site.idempotency import Scope, body_without, idempotent
from iris_site.permissions import IsMember, operator_with_roles
from iris_site.selectors import operator_tenant_id
from iris_site.stepup import require_api_step_up
from memory.access.gate import ContentKind

IsDataRightsOperator = operator_with_roles(OperatorRole.LEGAL, OperatorRole.ADMIN)


def signed_in_session(request) -> bool:
    """Did a browser session (not a bearer token) authenticate this call?"""
    return isinstance(request.successful_authenticator, SessionAuthentication)


def _session_erasure_stepped_up(request, kind: str) -> None:
    """A signed-in session verifies a request at once; for an erasure that would let a
    stolen session erase for good, so it needs the session's recent step-up, as the
    page's delete form asks for the password (issue 42). A bearer caller verifies with
    the mailed code instead."""
    if kind == RequestKind.DELETE and signed_in_session(request):
        require_api_step_up(request)


def _own(request, pk) -> DataRightsRequest:
    found = datarights_request_get(member_id=request.user.pk, request_id=pk)
    if found is None:
        raise NotFound()
    return found


def _receipt(obj, *, code=status.HTTP_200_OK) -> Response:
    # Re-read: with an immediate task backend the job may already have moved it on.
    obj.refresh_from_db()
    return Response(ReceiptSerializer(obj).data, status=code)


@content_free
class DataRightsListCreateApi(generics.ListAPIView):
    """GET: my requests, newest first. POST: submit a delete, export or access request.

    One request of each kind is open at a time: a POST while one of its kind is open
    (submitted, verified or in progress) makes nothing and answers 200 with that open
    request, whatever its payload (a retry or a double-click gets the running request).
    A new request is a 201."""

    class DataRightsSubmitInputSerializer(serializers.Serializer):
        kind = RequestKindField()
        payload = serializers.DictField(
            help_text="The kind's payload (delete: mode, scopes, categories, "
            "purge_consent_ledger, retention_grace_ms; export: scopes, format, include_* "
            "flags, delivery_channel, encrypted; access: include_operator_actions)."
        )
        passphrase = serializers.CharField(
            required=False,
            allow_blank=False,
            write_only=True,
            trim_whitespace=False,
            max_length=1024,
            help_text="For an encrypted export only; never stored.",
        )

    class Pagination(CursorPagination):
        ordering = ("-received_at", "id")

    permission_classes = [IsMember]
    serializer_class = ReceiptSerializer
    pagination_class = Pagination
    filter_backends = []

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return DataRightsRequest.objects.none()
        return datarights_request_list(member_id=self.request.user.pk)

    @extend_schema(
        summary="My data-rights requests, newest first",
        responses={200: ReceiptSerializer(many=True), **error_responses(400)},
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @idempotent(
        Scope.DATA_RIGHTS_REQUEST, replay=datarights_submit_replay, body=body_without("passphrase")
    )
    @extend_schema(
        summary="Ask for a deletion, an export or an access report",
        request=DataRightsSubmitInputSerializer,
        responses={
            201: OpenApiResponse(ReceiptSerializer, description="The request, made now."),
            200: OpenApiResponse(
                ReceiptSerializer,
                description="Nothing new was made: the member's request of this kind that "
                "is still open (submitted, verified or in progress), as it is now, "
                "whatever this call's payload. Its payload says what it covers; submit "
                "again once it has finished.",
            ),
            **error_responses(400, 409, 413),
        },
    )
    def post(self, request):
        serializer = self.DataRightsSubmitInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        _session_erasure_stepped_up(request, data["kind"])
        submitted = datarights_request_submit_or_join(
            member=request.user,
            kind=data["kind"],
            payload=data["payload"],
            passphrase=data.get("passphrase"),
            actor=Actor.of(request.user),
            signed_in_session=signed_in_session(request),
        )
        code = status.HTTP_201_CREATED if submitted.created else status.HTTP_200_OK
        return _receipt(submitted.request, code=code)


@content_free
class DataRightsReceiptApi(APIView):
    """The receipt of one of my requests: status, deadlines, proof, trail."""

    permission_classes = [IsMember]

    @extend_schema(responses={200: ReceiptSerializer, **error_responses(404)})
    def get(self, request, pk):
        return _receipt(_own(request, pk))


@content_free
class DataRightsVerifyApi(APIView):
    """Verify my request: a signed-in session verifies at once; otherwise send the
    one-time code from the mail (`{"code": "123456"}`), or `{"resend": true}` for a new
    one. A wrong code is a 403; after five, the code is destroyed."""

    class DataRightsVerifyInputSerializer(serializers.Serializer):
        code = serializers.RegexField(r"^\s*\d{6}\s*$", required=False)
        resend = serializers.BooleanField(required=False, default=False)

    permission_classes = [IsMember]

    @extend_schema(
        request=DataRightsVerifyInputSerializer,
        responses={
            200: ReceiptSerializer,
            202: OpenApiResponse(ReceiptSerializer, description="A new code was sent."),
            **error_responses(400, 404, 409),
        },
    )
    def post(self, request, pk):
        own = _own(request, pk)
        serializer = self.DataRightsVerifyInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        actor = Actor.of(request.user)
        if signed_in_session(request):
            _session_erasure_stepped_up(request, own.kind)
            return _receipt(datarights_verify_session(request=own, actor=actor))
        if serializer.validated_data["resend"]:
            datarights_code_resend(request=own, actor=actor)
            return _receipt(_own(request, pk), code=status.HTTP_202_ACCEPTED)
        code = serializer.validated_data.get("code")
        if not code:
            raise serializers.ValidationError({"code": ["Enter the code from the mail."]})
        return _receipt(datarights_verify_code(request=own, code=code.strip(), actor=actor))


@content_free
class DataRightsCancelApi(APIView):
    """Withdraw my request; inside a soft delete's grace window this re-activates the
    held memories."""

    permission_classes = [IsMember]

    @extend_schema(request=None, responses={200: ReceiptSerializer, **error_responses(404, 409)})
    def post(self, request, pk):
        return _receipt(datarights_cancel(request=_own(request, pk), actor=Actor.of(request.user)))


@content_free
class DataRightsAppealApi(APIView):
    """Contest the outcome of a completed or failed request; an operator decides."""

    class DataRightsAppealInputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=2000)

    permission_classes = [IsMember]

    @extend_schema(
        request=DataRightsAppealInputSerializer,
        responses={200: ReceiptSerializer, **error_responses(400, 404, 409)},
    )
    def post(self, request, pk):
        own = _own(request, pk)
        serializer = self.DataRightsAppealInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _receipt(
            datarights_appeal(
                request=own,
                reason=serializer.validated_data["reason"],
                actor=Actor.of(request.user),
            )
        )


def download_response(download) -> FileResponse | StreamingHttpResponse:
    """The export as the member gets it: a file sealed at rest under their key is
    decrypted as it streams (the plain zip); anything else is sent as stored."""
    content_type = "application/octet-stream" if download.encrypted else "application/zip"
    if download.sealed:
        response = StreamingHttpResponse(
            open_sealed_chunks(download.path, member_id=download.member_id),
            content_type=content_type,
        )
        response["Content-Disposition"] = content_disposition_header(
            as_attachment=True, filename=download.filename
        )
    else:
        response = FileResponse(
            open(download.path, "rb"),  # noqa: SIM115 - FileResponse closes it
            as_attachment=True,
            filename=download.filename,
            content_type=content_type,
        )
    response["Cache-Control"] = "no-store"
    return response


@content_view(reads=[ContentKind.ENTRY, ContentKind.STM, ContentKind.TOKEN], through=MEMBER_OWN)
class DataRightsDownloadApi(APIView):
    """My export bundle, while its download window lasts (410 after)."""

    permission_classes = [IsMember]

    @extend_schema(
        responses={
            # The bundle is a zip (data.json, summary.html, README.txt), or opaque bytes
            # when it was sealed (decrypted, the same zip).
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The bundle: a zip of data.json (the machine-readable "
                "export), summary.html (a self-contained page to read offline) and "
                "README.txt. The receipt's result_fingerprint is the zip's SHA-256.",
            ),
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The bundle zip, encrypted with the passphrase.",
            ),
            **error_responses(404, 409),
            410: OpenApiResponse(ErrorEnvelopeSerializer, description="The download expired."),
        }
    )
    def get(self, request, pk):
        download = datarights_download_open(request=_own(request, pk), actor=Actor.of(request.user))
        return download_response(download)


# --- Operators -----------------------------------------------------------------------------


class QueueFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=RequestStatus.choices)
    kind = django_filters.ChoiceFilter(choices=RequestKind.choices)
    overdue = django_filters.BooleanFilter(method="filter_overdue", label="past its deadline")
    member_id = django_filters.UUIDFilter(field_name="member_id")

    class Meta:
        model = DataRightsRequest
        fields = ["status", "kind", "member_id"]

    def filter_overdue(self, queryset, name, value):
        now = timezone.now()
        open_statuses = [
            RequestStatus.SUBMITTED,
            RequestStatus.VERIFIED,
            RequestStatus.IN_PROGRESS,
            RequestStatus.APPEALED,
        ]
        overdue = queryset.filter(status__in=open_statuses, due_at__lt=now)
        return overdue if value else queryset.exclude(pk__in=overdue.values("pk"))


def _queued(request, pk) -> DataRightsRequest:
    found = datarights_queue_get(tenant_id=operator_tenant_id(request.user), request_id=pk)
    if found is None:
        raise NotFound()
    return found


@content_free
class OperatorQueueApi(generics.ListAPIView):
    """The data-rights work queue, soonest deadline first. For legal and admin operators;
    a tenant-bound operator sees only their tenant's members."""

    class Pagination(CursorPagination):
        ordering = ("due_at", "id")

    permission_classes = [IsDataRightsOperator]
    serializer_class = QueueItemSerializer
    pagination_class = Pagination
    filterset_class = QueueFilter

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return DataRightsRequest.objects.none()
        return datarights_queue(tenant_id=operator_tenant_id(self.request.user))

    @extend_schema(responses={200: QueueItemSerializer(many=True), **error_responses(400)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


@content_free
class OperatorQueueItemApi(APIView):
    """One request of the data-rights work queue, with its deadlines."""

    permission_classes = [IsDataRightsOperator]

    @extend_schema(responses={200: QueueItemSerializer, **error_responses(404)})
    def get(self, request, pk):
        return Response(QueueItemSerializer(_queued(request, pk)).data)


@content_free
class OperatorTransitionApi(APIView):
    """`{"to": state}`: verify out of band (operator-signoff / court-order), (re)start
    processing, fail, decide an appeal (→ completed keeps the original result), cancel.
    409 on an illegal transition."""

    class DataRightsTransitionInputSerializer(serializers.Serializer):
        to = RequestStatusField()
        verification_method = OperatorVerificationMethodField(required=False)
        reason = serializers.CharField(
            required=False,
            max_length=2000,
            help_text="Required to fail a request: the member is shown it (the audit keeps "
            "only its length).",
        )

    permission_classes = [IsDataRightsOperator]

    @extend_schema(
        summary="Move a data-rights request to another status",
        request=DataRightsTransitionInputSerializer,
        responses={200: QueueItemSerializer, **error_responses(400, 404, 409)},
    )
    def post(self, request, pk):
        queued = _queued(request, pk)
        serializer = self.DataRightsTransitionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data["to"] == RequestStatus.FAILED:
            moved = datarights_fail(
                request=queued, reason=data.get("reason", ""), actor=Actor.of(request.user)
            )
        else:
            moved = datarights_operator_transition(
                request=queued,
                to=data["to"],
                verification_method=data.get("verification_method", ""),
                actor=Actor.of(request.user),
            )
        return Response(QueueItemSerializer(moved).data)


@content_free
class OperatorExtendApi(APIView):
    """Extend the deadline once, by at most two further months, with a reason; the member
    is told. Only before the first deadline passes."""

    class DataRightsExtendInputSerializer(serializers.Serializer):
        until = serializers.DateTimeField()
        reason = serializers.CharField(max_length=2000)

    permission_classes = [IsDataRightsOperator]

    @extend_schema(
        request=DataRightsExtendInputSerializer,
        responses={200: QueueItemSerializer, **error_responses(400, 404, 409)},
    )
    def post(self, request, pk):
        queued = _queued(request, pk)
        serializer = self.DataRightsExtendInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        extended = datarights_extend(
            request=queued,
            until=serializer.validated_data["until"],
            reason=serializer.validated_data["reason"],
            actor=Actor.of(request.user),
        )
        return Response(QueueItemSerializer(extended).data)
