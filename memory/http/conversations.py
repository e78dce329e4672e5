"""The member's conversations over HTTP: `GET /api/v1/me/conversations/` lists them (ids,
turn counts, first and last turn times: no turn text), and
`POST /api/v1/me/conversations/{session_id}/forget/` forgets one everywhere
(`memory.forgetting.conversations`).
"""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Count, Max, Min
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, generics, pagination, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import content_free
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.permissions import IsMember
from iris_site.stepup import require_api_step_up, step_up_responses
from memory.forgetting.conversations import memory_forget_conversation
from memory.http.apis import session_id_of
from memory.models import ConversationTurn


def member_conversations(*, member_id):
    """The member's conversations, one row per session: `session_id`, `turn_count`,
    `first_turn_at`, `last_turn_at` (no turn text). The API and the member's page
    (`memory.http.conversation_pages`) list the same rows."""
    return (
        # A turn held for a pending deletion is not listed (it is going).
        ConversationTurn.objects.filter(member_id=member_id, deletion_hold__isnull=True)
        .values("session_id")
        .annotate(
            turn_count=Count("id"),
            first_turn_at=Min("created_at"),
            last_turn_at=Max("created_at"),
        )
    )


class ConversationSerializer(serializers.Serializer):
    session_id = serializers.CharField()
    turn_count = serializers.IntegerField()
    first_turn_at = serializers.DateTimeField()
    last_turn_at = serializers.DateTimeField()


class ConversationForgottenSerializer(serializers.Serializer):
    session_id = serializers.CharField()
    turns_erased = serializers.IntegerField(help_text="Turns of the conversation deleted.")
    short_term_rows_erased = serializers.IntegerField(
        help_text="Short-term memory rows of the conversation deleted."
    )
    entries_erased = serializers.IntegerField(
        help_text="Memories whose provenance was only this conversation, now tombstones "
        "(ids and times kept, no text)."
    )


class _LastTurnCursor(CursorPagination):
    """Newest conversation first; the cursor's position is a time, checked as one."""

    ordering = ("-last_turn_at", "session_id")

    def decode_cursor(self, request):
        try:
            cursor = pagination.CursorPagination.decode_cursor(self, request)
        except exceptions.NotFound as exc:
            raise self._invalid() from exc
        if cursor is not None and cursor.position is not None:
            try:
                serializers.DateTimeField().to_internal_value(cursor.position)
            except (serializers.ValidationError, DjangoValidationError) as exc:
                raise self._invalid() from exc
        return cursor


@content_free
class MyConversationListApi(generics.ListAPIView):
    """My conversations (the sessions my turns were logged in), most recent first: the
    session id, how many turns it holds, its first and last turn's time."""

    permission_classes = [IsMember]
    serializer_class = ConversationSerializer
    pagination_class = _LastTurnCursor

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ConversationTurn.objects.none()
        return member_conversations(member_id=self.request.user.pk)

    @extend_schema(responses={200: ConversationSerializer(many=True), **error_responses(400)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


@content_free
class MyConversationForgetApi(APIView):
    """Forget one of my conversations: its turns and short-term rows are deleted, and the
    memories that came only from it (its session memory, summaries of it, facts drawn from
    its turns alone) become tombstones. A memory that also cites another conversation, or
    that I stated in my profile, stays. 404: no such conversation of mine, including one
    forgotten already (nothing is left of it)."""

    permission_classes = [IsMember]

    @extend_schema(
        request=None,
        responses={200: ConversationForgottenSerializer, **step_up_responses(400, 404)},
    )
    def post(self, request, session_id):
        require_api_step_up(request)
        session_id = session_id_of(session_id)
        result = memory_forget_conversation(
            member=request.user, session_id=session_id, actor=Actor.of(request.user)
        )
        return Response(
            ConversationForgottenSerializer(
                {
                    "session_id": result.session_id,
                    "turns_erased": result.turns,
                    "short_term_rows_erased": result.short_term_rows,
                    "entries_erased": result.entries,
                }
            ).data
        )
