"""`POST /api/v1/me/tokens/step-up/`: a member re-enters their password and gets a
short-lived step-up token, the only member token the forgetting endpoints accept
(`iris_site.stepup`)."""

from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import content_free
from iris_site.api.schema import error_responses
from iris_site.api.serializers import StrictInputSerializer
from iris_site.api.throttles import LoginRateThrottle, WriteRateThrottle
from iris_site.errors import InvalidInput
from iris_site.models import ApiToken
from iris_site.permissions import IsMember
from iris_site.services import token_issue
from iris_site.stepup import PasswordConfirmForm, step_up_window

STEP_UP_LABEL = "step-up"


@transaction.atomic
def token_issue_step_up(*, member) -> tuple[ApiToken, str]:
    """A member token that says its owner re-authenticated now; it authenticates nothing
    once the step-up window has passed (`iris_site.auth.bearer_principal`)."""
    token, raw = token_issue(owner=member, label=STEP_UP_LABEL)
    token.reauthenticated_at = timezone.now()
    ApiToken.objects.filter(pk=token.pk).update(reauthenticated_at=token.reauthenticated_at)
    return token, raw


class StepUpInputSerializer(StrictInputSerializer):
    password = serializers.CharField(trim_whitespace=False, write_only=True)


class StepUpTokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="The bearer token; shown once, never stored.")
    prefix = serializers.CharField()
    reauthenticated_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(
        help_text="After this the token authenticates nothing: mint another."
    )


@content_free
class StepUpTokenApi(APIView):
    """Mint a step-up token: re-enter your password to get a token that may forget
    (one memory, a category, a person, a conversation, a notebook) and ask for the full
    clear, for the next few minutes (`expires_at`, `IRIS_STEP_UP_SECONDS`). Every
    attempt counts against the sign-in budget of your address; a wrong password is 400
    with `fields.password`."""

    permission_classes = [IsMember]
    throttle_classes = [WriteRateThrottle, LoginRateThrottle]

    @extend_schema(
        request=StepUpInputSerializer,
        responses={
            201: OpenApiResponse(StepUpTokenSerializer, description="The step-up token."),
            **error_responses(400),
        },
    )
    def post(self, request):
        serializer = StepUpInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        form = PasswordConfirmForm(serializer.validated_data, user=request.user)
        if not form.is_valid():
            raise InvalidInput(fields={"password": form.errors["password"]})
        token, raw = token_issue_step_up(member=request.user)
        expires_at = token.reauthenticated_at + step_up_window()
        body = {
            "token": raw,
            "prefix": token.prefix,
            "reauthenticated_at": token.reauthenticated_at,
            "expires_at": expires_at,
        }
        return Response(StepUpTokenSerializer(body).data, status=status.HTTP_201_CREATED)
