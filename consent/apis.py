"""The member's consent API: active consents, the ledger, appends, verification, and the
opt-out ledger (categories of memory scope the member turned off)."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from consent.enums import (
    CATEGORY_PREFIX,
    CONSENT_TYPES,
    BaseConsentType,
    CaptureMethod,
    ConsentEventKind,
    ConsentStatus,
    LegalBasis,
    SensitiveCategory,
)
from consent.filters import ConsentEventFilter
from consent.models import ConsentEvent
from consent.policy import is_in_force
from consent.replays import consent_event_replay
from consent.selectors import (
    consent_event_list,
    consent_states,
)
from consent.serializers import ConsentEventOutputSerializer
from consent.services import consent_event_append, consent_ledger_check
from consent.terms import CURRENT_TERMS_VERSION, TERMS_HASHES
from iris_site.api.gated import content_free
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.idempotency import Scope, idempotent
from iris_site.models import ApiToken
from iris_site.permissions import IsMember
from iris_site.stepup import require_api_step_up, step_up_responses

# Consent types whose withdrawal forgets memory (memory's consent cascade): a sensitive
# category's, and multi-actor-sensitive. Over the API, withdrawing one is an
# irreversible forgetting and needs a step-up token, as every other forgetting door does
# (the consent app cannot count the memory that goes, so it always asks).
FORGETTING_CONSENT_TYPES = frozenset(
    {
        *(CATEGORY_PREFIX + c for c in SensitiveCategory.values),
        BaseConsentType.MULTI_ACTOR_SENSITIVE,
    }
)


class ActiveConsentOutputSerializer(serializers.Serializer):
    consent_type = serializers.ChoiceField(choices=CONSENT_TYPES)
    status = serializers.ChoiceField(choices=ConsentStatus.choices)
    in_force = serializers.BooleanField(help_text="Granted and not past its end date.")
    event_id = serializers.UUIDField()
    valid_until = serializers.DateTimeField(allow_null=True)


def witness_for(request) -> str:
    """How this capture was witnessed: the bearer token's id, or the signed-in session."""
    return f"token:{request.auth.id}" if isinstance(request.auth, ApiToken) else "session"


@content_free
class ActiveConsentListApi(APIView):
    """The member's consents now: the latest event per consent type."""

    permission_classes = [IsMember]

    @extend_schema(
        responses={
            200: inline_serializer(
                "ActiveConsentList", {"results": ActiveConsentOutputSerializer(many=True)}
            ),
            **error_responses(),
        }
    )
    def get(self, request):
        now = timezone.now()
        states = sorted(
            consent_states(member_id=request.user.pk).values(), key=lambda s: s.consent_type
        )
        results = [
            {
                "consent_type": state.consent_type,
                "status": state.status,
                "in_force": is_in_force(state, now),
                "event_id": state.event_id,
                "valid_until": state.valid_until,
            }
            for state in states
        ]
        return Response({"results": ActiveConsentOutputSerializer(results, many=True).data})


@content_free
class ConsentEventListCreateApi(generics.ListAPIView):
    """GET: the member's ledger, newest first. POST: append a grant, withdrawal or denial.

    Granting what is already granted (or denying what is denied) returns the event in
    force with 200 and writes nothing; withdrawing what is not granted is a 409.
    """

    class InputSerializer(serializers.Serializer):
        consent_type = serializers.ChoiceField(choices=CONSENT_TYPES)
        kind = serializers.ChoiceField(
            choices=[
                ConsentEventKind.GRANT,
                ConsentEventKind.WITHDRAWAL,
                ConsentEventKind.DENIAL,
            ],
            help_text="Expiry events are written by Iris when a grant's end date passes.",
        )
        legal_basis = serializers.ChoiceField(
            choices=LegalBasis.choices,
            default=LegalBasis.CONSENT,
            help_text="A member records `consent` only; any other basis is a 403 "
            "`consent-provenance-not-permitted` (operator and data-rights paths only).",
        )
        capture_method = serializers.ChoiceField(
            choices=CaptureMethod.choices,
            default=CaptureMethod.API,
            help_text="A member records `inline-prompt`, `settings-toggle` or `api`; "
            "`operator-recorded` and `dsar-import` are a 403 "
            "`consent-provenance-not-permitted`.",
        )
        terms_version = serializers.ChoiceField(
            choices=sorted(TERMS_HASHES), default=CURRENT_TERMS_VERSION
        )
        valid_until = serializers.DateTimeField(required=False, allow_null=True, default=None)

    class Pagination(CursorPagination):
        ordering = "-sequence"

    permission_classes = [IsMember]
    serializer_class = ConsentEventOutputSerializer
    pagination_class = Pagination
    filterset_class = ConsentEventFilter

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ConsentEvent.objects.none()
        return consent_event_list(member_id=self.request.user.pk)

    @extend_schema(
        summary="My consent ledger, newest first",
        responses={200: ConsentEventOutputSerializer(many=True), **error_responses(400)},
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @idempotent(Scope.CONSENT_EVENT, replay=consent_event_replay)
    @extend_schema(
        summary="Grant, withdraw or deny a consent",
        request=InputSerializer,
        responses={
            201: ConsentEventOutputSerializer,
            200: ConsentEventOutputSerializer,
            **step_up_responses(400, 409, 413),
        },
    )
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if (
            data["kind"] == ConsentEventKind.WITHDRAWAL
            and data["consent_type"] in FORGETTING_CONSENT_TYPES
        ):
            require_api_step_up(request)  # the withdrawal forgets that memory
        result = consent_event_append(
            member=request.user,
            witness=witness_for(request),
            actor=Actor.of(request.user),
            **serializer.validated_data,
        )
        return Response(
            ConsentEventOutputSerializer(result.event).data,
            status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
        )


@content_free
class ConsentEventDetailApi(generics.RetrieveAPIView):
    """One event of the member's own ledger; anyone else's is a 404."""

    permission_classes = [IsMember]
    serializer_class = ConsentEventOutputSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ConsentEvent.objects.none()
        return consent_event_list(member_id=self.request.user.pk)

    @extend_schema(responses={200: ConsentEventOutputSerializer, **error_responses(404)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


@content_free
class ConsentLedgerVerifyApi(APIView):
    """Recompute every fingerprint and hash of the member's ledger; a break closes the
    member's consent gates until the ledger is repaired."""

    permission_classes = [IsMember]

    @extend_schema(
        responses={
            200: inline_serializer(
                "ConsentLedgerVerification",
                {
                    "valid": serializers.BooleanField(),
                    "first_invalid_event_id": serializers.UUIDField(allow_null=True),
                    "reason": serializers.CharField(allow_null=True),
                },
            ),
            **error_responses(),
        }
    )
    def get(self, request):
        broken = consent_ledger_check(member_id=request.user.pk)
        return Response(
            {
                "valid": broken is None,
                "first_invalid_event_id": broken.event_id if broken else None,
                "reason": broken.reason if broken else None,
            }
        )
