"""The member's people and topics: what Iris holds about each, and "forget everything
about them" (`memory.entities.services`)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.gated import MEMBER_OWN, content_free, content_view
from iris_site.api.schema import error_responses
from iris_site.audit.events import Actor
from iris_site.errors import InvalidInput
from iris_site.idempotency import Scope, idempotent
from iris_site.permissions import IsMember
from iris_site.stepup import require_api_step_up, step_up_responses
from memory.access.gate import ContentKind
from memory.entities.selectors import entity_detail, member_entities
from memory.entities.services import RetireResult, entity_retire
from memory.enums import EntityKind, EntityState
from memory.http.serializers import MemoryEntrySerializer
from memory.selectors import consent_ledger_view, entry_contract


class EntityOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=EntityKind.choices)
    state = serializers.ChoiceField(choices=EntityState.choices)
    label = serializers.CharField(
        allow_null=True,
        help_text="The name you gave (a person) or the topic; null when there is none.",
    )
    entry_count = serializers.IntegerField()
    relationship_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    state_changed_at = serializers.DateTimeField()


class RelationshipOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    from_entity_id = serializers.UUIDField()
    to_entity_id = serializers.UUIDField()
    type = serializers.CharField(
        allow_blank=True,
        help_text="`sister`, `colleague` … as the note says; `about` (a person and a "
        'topic); "" when unknown.',
    )
    note = serializers.CharField(allow_blank=True)
    state = serializers.ChoiceField(choices=EntityState.choices)
    valid_from = serializers.DateTimeField(
        allow_null=True,
        help_text='When it became true, as you said it ("since 2019"), else when Iris '
        "learned it; null when you told only of its end.",
    )
    valid_from_precision = serializers.CharField(
        allow_blank=True,
        help_text='What `valid_from` is known to: `year`, `month` or `day`, as you said it; "" '
        "when you said no time (it is when Iris learned it).",
    )
    valid_to = serializers.DateTimeField(
        allow_null=True,
        help_text='When it stopped being true: as you said ("we broke up in March"), else '
        "when its fact was superseded; null: holds.",
    )
    valid_to_precision = serializers.CharField(
        allow_blank=True, help_text="What `valid_to` is known to, as `valid_from_precision`."
    )
    learned_at = serializers.DateTimeField(help_text="When Iris first learned it (for audit).")
    end_learned_at = serializers.DateTimeField(
        allow_null=True, help_text="When Iris learned it had ended (for audit)."
    )
    decay_at = serializers.DateTimeField(allow_null=True)
    source_entry_id = serializers.UUIDField(allow_null=True)


class EntityEventOutputSerializer(serializers.Serializer):
    action = serializers.CharField()
    from_state = serializers.CharField(allow_null=True)
    to_state = serializers.CharField(allow_null=True)
    occurred_at = serializers.DateTimeField()


class EntityDetailOutputSerializer(serializers.Serializer):
    entity = EntityOutputSerializer()
    entries = MemoryEntrySerializer(many=True)
    relationships = RelationshipOutputSerializer(many=True)
    history = EntityEventOutputSerializer(many=True)


class EntityRetireOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    outcome = serializers.ChoiceField(choices=["retired", "already-retired"])
    erased_count = serializers.IntegerField()


def _retire_output(result: RetireResult) -> dict:
    return {
        "id": str(result.entity_id),
        "outcome": result.outcome,
        "erased_count": result.erased_count,
    }


def retire_reference(response) -> dict:
    return dict(response.data)


def retire_replay(request, reference: dict, **kwargs) -> dict:
    return reference


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemberEntityListApi(APIView):
    """The people and topics Iris holds memories about (not the ones you had it forget)."""

    permission_classes = [IsMember]

    @extend_schema(
        parameters=[
            OpenApiParameter("kind", str, enum=EntityKind.values, required=False),
            OpenApiParameter(
                "state", str, enum=[EntityState.ACTIVE, EntityState.ARCHIVED], required=False
            ),
        ],
        responses={200: EntityOutputSerializer(many=True), **error_responses(400)},
    )
    def get(self, request):
        kind = request.query_params.get("kind") or None
        state = request.query_params.get("state") or None
        fields = {}
        if kind is not None and kind not in EntityKind.values:
            fields["kind"] = ["Unknown entity kind."]
        if state is not None and state not in (EntityState.ACTIVE, EntityState.ARCHIVED):
            fields["state"] = ["One of active, archived."]
        if fields:
            raise InvalidInput(fields=fields)
        entities = member_entities(request.user, kind=kind, state=state)
        return Response(EntityOutputSerializer(entities, many=True).data)


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemberEntityDetailApi(APIView):
    """What Iris holds about one person or topic: the memories about it, its
    relationships with when each held, and its history. One you had Iris forget: 404."""

    permission_classes = [IsMember]

    @extend_schema(responses={200: EntityDetailOutputSerializer, **error_responses(404)})
    def get(self, request, pk):
        detail = entity_detail(request.user, pk)
        consents = consent_ledger_view(member_id=request.user.pk)
        return Response(
            {
                "entity": EntityOutputSerializer(detail.entity).data,
                "entries": [
                    entry_contract(e, consents=consents).model_dump(mode="json")
                    for e in detail.entries
                ],
                "relationships": RelationshipOutputSerializer(detail.relationships, many=True).data,
                "history": EntityEventOutputSerializer(detail.history, many=True).data,
            }
        )


@content_free
class MemberEntityRetireApi(APIView):
    """Forget everything about them: every memory about this person or topic is erased,
    with its relationships and name, and nothing brings them back by itself; only you,
    stating it again, re-introduce them. Yourself: 409 `entity-self` (clear all memory)."""

    permission_classes = [IsMember]

    @idempotent(Scope.MEMORY_ENTITY_RETIRE, replay=retire_replay, reference=retire_reference)
    @extend_schema(
        request=None,
        responses={200: EntityRetireOutputSerializer, **step_up_responses(404, 409)},
    )
    def post(self, request, pk):
        require_api_step_up(request)
        result = entity_retire(member=request.user, entity_id=pk, actor=Actor.of(request.user))
        return Response(_retire_output(result))
