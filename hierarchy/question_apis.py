"""The surfaces' view of the member's open questions (`hierarchy.questions`)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from hierarchy.contracts import OpenQuestionsQuery
from hierarchy.questions import MAX_QUESTIONS, open_questions_read
from hierarchy.stm_apis import CAPABILITIES_NOTE
from iris_site.api.contracts import contract
from iris_site.api.gated import READ_GATE, content_view
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.enums import UserKind
from iris_site.models import User
from iris_site.permissions import IsServiceClient
from memory.access.gate import ContentKind
from memory.http.serializers import MemoryNoticeSerializer
from memory.selectors import principal_capabilities


class OpenQuestionsOutputSerializer(serializers.Serializer):
    questions = MemoryNoticeSerializer(many=True)
    withheld = serializers.DictField(
        child=serializers.IntegerField(min_value=1),
        help_text="Open questions the read gate withheld from this client, by reason.",
    )


@content_view(reads=[ContentKind.ENTRY], through=READ_GATE)
class MemberOpenQuestionsApi(APIView):
    """The member's open questions a surface may ask them: conflict questions ("you
    mentioned X earlier — should I update?") and re-confirmations, newest first."""

    permission_classes = [IsServiceClient]

    @contract(query=OpenQuestionsQuery)
    @extend_schema(
        operation_id="list_open_questions",
        summary="List the member's open questions",
        description=f"At most {MAX_QUESTIONS}, newest first. A question is listed only when "
        "the read gate lets the calling client see the memory it is about and its proposal "
        "(as the entry it would become), for this member and `context`; the others are "
        "counted by reason in `withheld`. The member answers in their own memory pages."
        + CAPABILITIES_NOTE,
        responses={200: OpenQuestionsOutputSerializer, **error_responses(400, 403, 404)},
    )
    def get(self, request, member_id, query: OpenQuestionsQuery):
        member = get_object_or_404(User, pk=member_id, kind=UserKind.MEMBER, is_active=True)
        capabilities = principal_capabilities(request.user)
        context = capabilities.require_context(query.context)
        read = open_questions_read(
            member_id=member.pk,
            capabilities=capabilities,
            context=context,
            actor=Actor.of(request.user),
        )
        return Response(
            OpenQuestionsOutputSerializer(
                {"questions": read.questions, "withheld": read.withheld}
            ).data
        )
