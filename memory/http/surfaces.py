"""The surfaces' memory endpoints (`/api/v1/members/{member_id}/…`): a service client
remembers for the member it serves, and appends the conversation turns a
`session-turn` provenance cites.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.contracts import contract
from iris_site.api.gated import WRITE_ECHO, content_view
from iris_site.api.members import member_or_404
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.idempotency import Scope, idempotent
from iris_site.permissions import IsServiceClient
from memory.access.gate import ContentKind
from memory.contracts import (
    MemoryWriteRequest,
)
from memory.http.apis import REMEMBER_RESPONSES, remember_response, session_id_of
from memory.http.replays import (
    kept_entry_visible,
    remember_reference,
    surface_remember_replay,
    turn_replay,
)
from memory.http.serializers import ConversationTurnOutputSerializer
from memory.http.surface_contracts import RememberQuery, TurnAppend
from memory.selectors import (
    principal_capabilities,
)
from memory.services import (
    memory_remember,
)
from memory.turns import conversation_turn_append

# --- Surfaces (service clients) -----------------------------------------------------------


@content_view(reads=[ContentKind.ENTRY], through=WRITE_ECHO)
class MemberMemoryRememberApi(APIView):
    """Remember on a member's behalf through the consent-checked write path.

    201: stored (possibly superseding an older fact). 200 `kept-existing`: the conflict
    ladder kept what was there (with a notice when the member's own word was at stake);
    `entry` is that memory only if the read gate would show it to this surface (a paused
    memory, another scope's or an opted-out one is kept in silence: `entry` is null).
    422: refused with the seed's reason (`sensitive-category-without-consent`,
    `sensitive-inference-requires-confirmation`, `paused`, `scope-suppressed`,
    `user-stated-needs-member-turn`, `provenance-turn-not-found`, ...).
    403: this surface may not write the scope or assert the origin (`origin-not-allowed`:
    `user-confirmed` comes only from the member's confirmation, `operator-copilot` only
    from operators), or the member is not in that tenant, or the write carries a
    suppression (`suppression-reason-not-allowed`: only the member pauses, only a
    tenant's operator quarantines, and Iris sets the rest; a surface writes none).

    The origin is bound to the writer: `user-stated` needs a `session-turn` provenance
    link naming a turn the member spoke; anything else is an inference. A write into the
    profile comes from a conversation (`session_id`, or the quoted turns' session; else
    400 `session-required`) and is a session → profile promotion: the member's quoted
    words, or the fact's third occurrence in session memory, promote it; otherwise it is
    stored as session memory of that conversation. Either way the response says so in
    `Iris-Promotion` (the rule's reason code) and `Iris-Stored-As` (`profile` or
    `session`). Off the record holds for every conversation the write comes from.
    """

    permission_classes = [IsServiceClient]

    @idempotent(
        Scope.MEMORY_SURFACE_REMEMBER, replay=surface_remember_replay, reference=remember_reference
    )
    @contract(query=RememberQuery, body=MemoryWriteRequest)
    @extend_schema(
        operation_id="remember",
        summary="Remember a fact for a member",
        responses={**REMEMBER_RESPONSES, **error_responses(400, 404, 409, 413, 422)},
    )
    def post(self, request, member_id, query: RememberQuery, body: MemoryWriteRequest):
        member = member_or_404(member_id)
        write = body
        # The client's write kinds (the blueprints' allow-lists, narrowed per client by a
        # platform operator); the service re-checks the blueprint itself.
        principal_capabilities(request.user).require_write_kind(write.scope.kind)
        session_id = query.session_id or ""
        result = memory_remember(
            member=member,
            write=write,
            actor=Actor.of(request.user),
            consumer=request.user.consumer,
            session_id=session_id,
        )
        # The answer to a write echoes what this surface sent; a memory the ladder kept
        # instead is shown only if the read gate would show it to this surface.
        echo = result.created or kept_entry_visible(
            request.user, member_id=member.pk, entry_id=result.entry.pk, session_id=session_id
        )
        return remember_response(result, echo_kept=echo)


@content_view(reads=[ContentKind.TURN], through=WRITE_ECHO)
class ConversationTurnAppendApi(APIView):
    """Append one turn to a member's session log (what `session-turn` provenance names).
    With `redact_pii`, emails, phones, cards and addresses become tokens before storage."""

    permission_classes = [IsServiceClient]

    @idempotent(Scope.MEMORY_TURN, replay=turn_replay)
    @contract(body=TurnAppend)
    @extend_schema(
        operation_id="append_turn",
        summary="Append a conversation turn",
        responses={
            201: ConversationTurnOutputSerializer,
            **error_responses(400, 404, 409, 413, 422),
        },
    )
    def post(self, request, member_id, session_id, body: TurnAppend):
        member = member_or_404(member_id)
        session_id = session_id_of(session_id)
        turn = conversation_turn_append(
            member=member,
            session_id=session_id,
            consumer=request.user.consumer,
            actor=Actor.of(request.user),
            **body.model_dump(),
        )
        return Response(ConversationTurnOutputSerializer(turn).data, status=status.HTTP_201_CREATED)
