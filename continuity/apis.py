"""Continuation tokens over HTTP: surfaces write and read a member's tokens
(`/api/v1/members/{member_id}/continuation-tokens/`), members read their own
(`/api/v1/me/continuation-tokens/`), and both resume a card by its id.

Views are thin: write bodies are validated by the strict pydantic contract
(`continuity.contracts`), everything else is one selector or service call.
"""

import pydantic
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from consent.enums import SensitiveCategory
from continuity.contracts import (
    REFERENCE_PATTERN,
    ContinuationListQuery,
    ContinuationReadQuery,
    contract_error_fields,
    token_parse,
)
from continuity.contracts import ContinuationToken as TokenContract
from continuity.enums import NoticeKind, Posture, Surface, WriteOutcome
from continuity.models import ContinuationToken
from continuity.policy import readable_surfaces
from continuity.selectors import (
    continuation_resume,
    continuation_token_recent,
    continuation_token_withheld,
    member_token_reader,
)
from continuity.services import (
    continuation_token_write,
    continuity_notices_deliver,
    write_answer,
)
from iris_site.api.contracts import contract
from iris_site.api.gated import MEMBER_OWN, READ_GATE, content_view
from iris_site.api.members import member_or_404
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.errors import InvalidInput, NotPermitted
from iris_site.idempotency import Scope, idempotent, key_problem
from iris_site.permissions import IsMember, IsServiceClient
from memory.access.gate import ContentKind, Reader, ReaderKind
from memory.controls import surface_pause_check
from memory.selectors import principal_capabilities

# DRF's RegexField uses Python's `re`; the contract's pattern is valid there too.
_REFERENCE = REFERENCE_PATTERN


def _body_key(request) -> str | None:
    """A token's idempotency key is its body's `idempotency_key` (the header, when sent,
    must equal it). A key the contract would refuse, or a header that disagrees, is left
    to the view's own 400."""
    data = request.data if isinstance(request.data, dict) else {}
    body_key = data.get("idempotency_key")
    header = request.headers.get("Idempotency-Key")
    if not isinstance(body_key, str) or key_problem(body_key) is not None:
        return None
    if header is not None and header != body_key:
        return None
    return body_key


def _token_wire(request):
    """The token as the contract reads it, so a retry that spells it differently (key
    order, UUID case, a time zone offset) is the same request."""
    try:
        return token_parse(request.data).wire()
    except (pydantic.ValidationError, TypeError, ValueError):
        return request.data


def _write_reference(response) -> dict:
    return {name: response.data[name] for name in ("id", "recorded_at", "revision", "outcome")}


def _write_replay(request, reference, *, member_id) -> dict | None:
    """The first answer again: the token the retry sends (the same, by fingerprint) where
    and how it landed, while its slot exists (an erasure took it: gone). A surface the
    member paused since is refused as its write would be (422 `surface-paused`)."""
    surface_pause_check(member_id=member_id, consumer=getattr(request.user, "consumer", None))
    if not ContinuationToken.objects.filter(member_id=member_id, pk=reference["id"]).exists():
        return None
    return write_answer(
        token_parse(request.data),
        slot_id=reference["id"],
        recorded_at=reference["recorded_at"],
        revision=reference["revision"],
        outcome=reference["outcome"],
    )


# --- Shapes ------------------------------------------------------------------------------


class ContinuationSurfaceContextOutputSerializer(serializers.Serializer):
    surface = serializers.ChoiceField(choices=Surface.choices)
    session_id = serializers.CharField(allow_null=True)
    tenant_id = serializers.UUIDField(allow_null=True)


class ContinuationAnchorRefOutputSerializer(serializers.Serializer):
    surface = serializers.ChoiceField(choices=Surface.choices)
    anchor_id = serializers.CharField()
    cursor = serializers.CharField()


class ContinuationTokenOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField(help_text="The slot (card) id: stable across writes.")
    token_id = serializers.UUIDField()
    user_id = serializers.UUIDField(source="member_id")
    scope_key = serializers.CharField()
    device_id = serializers.CharField()
    surface_context = ContinuationSurfaceContextOutputSerializer(source="*")
    anchor_ref = ContinuationAnchorRefOutputSerializer(source="*")
    posture = serializers.ChoiceField(choices=Posture.choices)
    sensitive_categories = serializers.ListField(
        child=serializers.ChoiceField(choices=SensitiveCategory.choices)
    )
    cross_device_consent_id = serializers.UUIDField(allow_null=True)
    idempotency_key = serializers.CharField()
    last_updated_at = serializers.DateTimeField(help_text="As the device sent it.")
    recorded_at = serializers.DateTimeField(help_text="Server time of the winning write.")
    revision = serializers.IntegerField(help_text="Writes applied to this slot so far.")


class ContinuationTokenWriteOutputSerializer(ContinuationTokenOutputSerializer):
    outcome = serializers.ChoiceField(
        choices=WriteOutcome.choices,
        help_text="created / replaced: this write is the slot's token; superseded: the "
        "slot holds a more recent write (by server time) and this device gets a notice.",
    )


class ContinuitySupersededPlaceOutputSerializer(serializers.Serializer):
    """The losing device's own write, kept so nothing it sent is lost."""

    token_id = serializers.UUIDField(source="superseded_token_id")
    anchor_ref = serializers.SerializerMethodField()
    posture = serializers.ChoiceField(choices=Posture.choices, source="superseded_posture")

    @extend_schema_field(ContinuationAnchorRefOutputSerializer)
    def get_anchor_ref(self, notice) -> dict:
        return {
            "surface": notice.token.surface,
            "anchor_id": notice.superseded_anchor_id,
            "cursor": notice.superseded_cursor,
        }


class ContinuityWinningWriteOutputSerializer(serializers.Serializer):
    """Who won: a device and a time. Its place is read through the consent guard."""

    token_id = serializers.UUIDField(source="winning_token_id")
    device_id = serializers.CharField(source="winning_device_id")
    recorded_at = serializers.DateTimeField(source="winning_recorded_at")


class ContinuityNoticeOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=NoticeKind.choices)
    message = serializers.SerializerMethodField()
    token = serializers.UUIDField(source="token_id", help_text="The slot (card) to resume.")
    surface = serializers.ChoiceField(choices=Surface.choices, source="token.surface")
    scope_key = serializers.CharField(source="token.scope_key")
    superseded = ContinuitySupersededPlaceOutputSerializer(source="*")
    winning = ContinuityWinningWriteOutputSerializer(source="*")
    created_at = serializers.DateTimeField()

    def get_message(self, notice) -> str:
        return f"{NoticeKind(notice.kind).label}."


class ContinuationTokenListOutputSerializer(serializers.Serializer):
    results = ContinuationTokenOutputSerializer(many=True)
    withheld = serializers.DictField(
        child=serializers.IntegerField(min_value=1),
        help_text="The member's tokens (of these surfaces) the read gate withholds from "
        "this reader, by reason (`cross-device-consent-required`); never named.",
    )
    notices = ContinuityNoticeOutputSerializer(
        many=True, help_text="Pending notices for `device_id`, delivered once."
    )


class ContinuationResumeOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    token_id = serializers.UUIDField()
    surface = serializers.ChoiceField(choices=Surface.choices)
    scope_key = serializers.CharField()
    session_id = serializers.CharField(allow_null=True)
    anchor_ref = serializers.SerializerMethodField()
    posture = serializers.ChoiceField(choices=Posture.choices)
    device_id = serializers.CharField()
    recorded_at = serializers.DateTimeField()
    mid_segment = serializers.BooleanField(
        help_text="True where the surface resumes inside the segment at `cursor`."
    )

    @extend_schema_field(ContinuationAnchorRefOutputSerializer)
    def get_anchor_ref(self, resume) -> dict:
        return {"surface": resume.surface, "anchor_id": resume.anchor_id, "cursor": resume.cursor}


# --- Queries -----------------------------------------------------------------------------


def _consumer_surfaces(request, wanted: str | None) -> frozenset[str]:
    consumer = request.user.consumer
    surfaces = readable_surfaces(consumer)
    if not surfaces:
        raise NotPermitted(
            f"Consumer `{consumer}` is not a continuity surface.",
            code="not-a-continuity-surface",
        )
    if wanted is not None:
        if wanted not in surfaces:
            raise NotPermitted(
                f"Consumer `{consumer}` may not read `{wanted}` tokens.",
                code="surface-not-yours",
            )
        surfaces = frozenset({wanted})
    return surfaces


def _reader(request, member_id, device_id: str | None) -> Reader:
    """The read gate's reader: an authenticated service client reading on `device_id`,
    or the member's own browser (never "the device that wrote" a token)."""
    if not getattr(request.user, "is_service", False):
        return member_token_reader(member_id)
    return Reader(
        kind=ReaderKind.SERVICE,
        member_id=str(member_id),
        capabilities=principal_capabilities(request.user),
        client_id=str(request.user.pk),
        device_id=device_id,
    )


def _list_answer(request, *, member_id, query: ContinuationListQuery, surfaces) -> Response:
    device_id = query.device_id
    reader = _reader(request, member_id, device_id)
    tokens = continuation_token_recent(
        member_id=member_id, reader=reader, limit=query.limit, surfaces=surfaces
    )
    withheld = continuation_token_withheld(member_id=member_id, reader=reader, surfaces=surfaces)
    # Only surfaces write tokens, so only a surface's device ever loses a write: its notice
    # goes back to the client that made it. The member's browser naming that device gets
    # none: it would see the lost (perhaps sensitive) place away from its device, and take
    # the notice from the device it is for.
    notices = (
        continuity_notices_deliver(
            member_id=member_id,
            device_id=device_id,
            reader_client_id=reader.client_id,
            surfaces=surfaces,
            actor=Actor.of(request.user),
        )
        if device_id is not None and reader.client_id is not None
        else []
    )
    return Response(
        {
            "results": ContinuationTokenOutputSerializer(tokens, many=True).data,
            "withheld": withheld,
            "notices": ContinuityNoticeOutputSerializer(notices, many=True).data,
        }
    )


LIST_DESCRIPTION = (
    "The most recent tokens (by server time), `limit` 1..50 (default 5). Tokens naming "
    "sensitive categories leave the device that wrote them only while the `cross_device` "
    'grant they name is in force; "the device that wrote them" is what the server '
    "recorded at write (the authenticated client and its `device_id`), so naming a "
    "`device_id` alone never makes another client that device, and the member's browser "
    "is never it. `withheld` counts the tokens kept from this reader. With `device_id`, "
    "the device's pending \"also playing on your other "
    'device" notices are delivered (once) to the service client whose writes lost; the '
    "member's browser is never that device and gets none."
)


# --- Views -------------------------------------------------------------------------------


@content_view(reads=[ContentKind.TOKEN], through=READ_GATE)
class MemberContinuationTokenApi(APIView):
    """A surface writes (PUT) or reads (GET) a member's continuation tokens."""

    permission_classes = [IsServiceClient]

    @contract(query=ContinuationListQuery)
    @extend_schema(
        operation_id="list_continuations",
        summary="List the member's continuation tokens",
        description=LIST_DESCRIPTION + " The shell reads every surface; a surface its own.",
        responses={200: ContinuationTokenListOutputSerializer, **error_responses(400, 404)},
    )
    def get(self, request, member_id, query: ContinuationListQuery):
        member = member_or_404(member_id)
        surfaces = _consumer_surfaces(request, query.surface)
        return _list_answer(request, member_id=member.pk, query=query, surfaces=surfaces)

    @idempotent(
        Scope.CONTINUITY_WRITE,
        replay=_write_replay,
        reference=_write_reference,
        key=_body_key,
        body=_token_wire,
        field="idempotency_key",
    )
    @contract(
        body=TokenContract,
        invalid="The continuation token is invalid.",
        fields=contract_error_fields,
    )
    @extend_schema(
        operation_id="save_continuation",
        summary="Save the member's continuation token for this surface",
        description=(
            "Write the member's token for the caller's own surface (else 403). Idempotent "
            "by the body's `idempotency_key` (an `Idempotency-Key` header, when sent, must "
            "equal it): the same key and token answer with the first answer, status "
            "included (header `Idempotent-Replayed: true`); the same key with another "
            "token is 409. One token per surface and scope key: the most recent write by "
            "server time wins; a device that loses a close race gets a notice on its next "
            "read. A surface the member paused is refused (422 `surface-paused`)."
        ),
        responses={
            201: OpenApiResponse(
                ContinuationTokenWriteOutputSerializer,
                description="A new slot (also when replayed).",
            ),
            200: OpenApiResponse(
                ContinuationTokenWriteOutputSerializer,
                description="An existing slot (also when replayed).",
            ),
            **error_responses(400, 404, 409, 413, 422),
        },
    )
    def put(self, request, member_id, body: TokenContract):
        member = member_or_404(member_id)
        header = request.headers.get("Idempotency-Key")
        if header is not None and header != body.idempotency_key:
            raise InvalidInput(
                "The Idempotency-Key header and the body disagree.",
                fields={"idempotency_key": ["Must equal the Idempotency-Key header."]},
            )
        result = continuation_token_write(
            member=member,
            contract=body,
            consumer=request.user.consumer,
            actor=Actor.of(request.user),
            client=request.user,
        )
        created = result.outcome == WriteOutcome.CREATED
        return Response(
            result.answer, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


@content_view(reads=[ContentKind.TOKEN], through=READ_GATE)
class MemberContinuationResumeApi(APIView):
    """Where a surface picks a member up: the anchor and the cursor of one card."""

    permission_classes = [IsServiceClient]

    @contract(query=ContinuationReadQuery)
    @extend_schema(
        operation_id="resume_continuation",
        summary="Resume a continuation token",
        description="A token the read gate withholds (a sensitive token read by another "
        "client or device without the `cross_device` grant it names) is 404.",
        responses={200: ContinuationResumeOutputSerializer, **error_responses(400, 404)},
    )
    def get(self, request, member_id, pk, query: ContinuationReadQuery):
        member = member_or_404(member_id)
        resume = continuation_resume(
            member_id=member.pk,
            token_id=pk,
            reader=_reader(request, member.pk, query.device_id),
            surfaces=_consumer_surfaces(request, None),
        )
        return Response(ContinuationResumeOutputSerializer(resume).data)


@content_view(reads=[ContentKind.TOKEN], through=MEMBER_OWN)
class MyContinuationTokenListApi(APIView):
    """The member's own continuation tokens."""

    permission_classes = [IsMember]

    @contract(query=ContinuationListQuery)
    @extend_schema(
        operation_id="me_continuation_tokens_list",
        description=LIST_DESCRIPTION,
        responses={200: ContinuationTokenListOutputSerializer, **error_responses(400)},
    )
    def get(self, request, query: ContinuationListQuery):
        wanted = query.surface
        return _list_answer(
            request,
            member_id=request.user.pk,
            query=query,
            surfaces=None if wanted is None else {wanted},
        )


@content_view(reads=[ContentKind.TOKEN], through=MEMBER_OWN)
class MyContinuationResumeApi(APIView):
    """Resume one of the member's own cards; anyone else's is a 404."""

    permission_classes = [IsMember]

    @extend_schema(
        operation_id="me_continuation_tokens_resume",
        description="The browser is never the device that wrote a token: a sensitive one "
        "resumes here only under the `cross_device` grant it names (else 404).",
        responses={200: ContinuationResumeOutputSerializer, **error_responses(400, 404)},
    )
    def get(self, request, pk):
        resume = continuation_resume(
            member_id=request.user.pk, token_id=pk, reader=member_token_reader(request.user.pk)
        )
        return Response(ContinuationResumeOutputSerializer(resume).data)
