"""Recall over HTTP: surfaces ask what they may say back; members see what was recalled."""

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from iris_site.api.contracts import contract
from iris_site.api.gated import MEMBER_OWN, READ_GATE, content_view
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import ErrorEnvelopeSerializer, error_responses
from iris_site.audit.events import Actor
from iris_site.permissions import IsMember, IsServiceClient
from memory.access.capabilities import (
    CONTEXT_NOT_ALLOWED,
    KIND_NOT_ALLOWED,
    SURFACE_NOT_ALLOWED,
    capability_table_markdown,
)
from memory.access.gate import ContentKind
from memory.contracts import parse_scope_key
from memory.entities.selectors import recalled_graph
from memory.enums import EntityKind, EntityState
from memory.models import RecallRecord
from memory.policy.freshness import freshness
from memory.recall.contracts import RecallRequest
from memory.recall.pipeline import ENVELOPE_REASONS
from memory.recall.service import recall_request_build, recall_run
from memory.selectors import memory_recall_list, principal_capabilities


class ProvenanceOutputSerializer(serializers.Serializer):
    kind = serializers.CharField()
    ref = serializers.CharField()
    captured_at = serializers.DateTimeField()


class RecalledEntryOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    revision_id = serializers.UUIDField()
    body = serializers.CharField()
    category = serializers.CharField()
    subject = serializers.CharField(allow_blank=True)
    origin = serializers.CharField()
    scope = serializers.DictField()
    score = serializers.FloatField()
    rationale = serializers.CharField(
        required=False, help_text="Present only where the surface's budget shows it."
    )
    provenance_chain = ProvenanceOutputSerializer(many=True)
    multi_actor = serializers.DictField(allow_null=True)
    freshness = serializers.FloatField(
        help_text="0.5 ** (age / half-life) of its source tier (`memory.policy.freshness`), the "
        "age counted from its last revision: 1.0 just asserted, 0.5 one half-life ago."
    )
    entity_ids = serializers.ListField(
        child=serializers.UUIDField(),
        help_text="The ids of the entities it is about (listed under entities).",
    )
    valid_from = serializers.DateTimeField(
        allow_null=True,
        help_text='When it became true, as the member\'s words said ("since 2019"); null '
        "when they did not say. The first instant of the year, month or day they named.",
    )
    valid_from_precision = serializers.CharField(
        allow_blank=True,
        help_text="What `valid_from` was said to: `year`, `month` or `day`; empty when unsaid.",
    )
    valid_to = serializers.DateTimeField(
        allow_null=True,
        help_text='When it stopped being true, as the member said ("until March"); null '
        "when they did not say.",
    )
    valid_to_precision = serializers.CharField(
        allow_blank=True,
        help_text="What `valid_to` was said to; empty when unsaid.",
    )
    learned_at = serializers.DateTimeField(
        help_text="When Iris first learned it (for audit); `as_of` answers by the valid "
        "times where the member said them, else by this."
    )


class RecalledEntityOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=EntityKind.choices)
    state = serializers.ChoiceField(choices=EntityState.choices)


class RecalledRelationshipOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    from_entity_id = serializers.UUIDField()
    to_entity_id = serializers.UUIDField()
    type = serializers.CharField(allow_blank=True)
    note = serializers.CharField(allow_blank=True)
    valid_from = serializers.DateTimeField(
        allow_null=True,
        help_text="When it became true, as the member said (else when Iris learned it); "
        "null when they told only of its end.",
    )
    valid_to = serializers.DateTimeField(allow_null=True, help_text="When it stopped being true.")
    learned_at = serializers.DateTimeField(help_text="When Iris learned it (for audit).")
    source_entry_id = serializers.UUIDField()


class AuditEnvelopeOutputSerializer(serializers.Serializer):
    scope_key = serializers.CharField()
    returned_ids = serializers.ListField(child=serializers.UUIDField())
    suppression_counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text=(
            "How many entries the read gate withheld, by the first check each failed; keys "
            "(in the order of the checks): "
            + ", ".join(f"`{key}`" for key in ENVELOPE_REASONS)
            + ". Exact for the kinds withheld as a whole (allow-list, base consents, full "
            "clear pending, off the record: every entry of the kind in reach); otherwise "
            "over the entries the recall weighed, which include the query's matches it read "
            "whatever their lifecycle or hold."
        ),
    )
    evaluated_count = serializers.IntegerField(
        help_text="Entries the recall weighed: those counted by kind plus those it read."
    )


class RecallOutputSerializer(serializers.Serializer):
    entries = RecalledEntryOutputSerializer(many=True)
    entities = RecalledEntityOutputSerializer(
        many=True, help_text="The entities the returned entries are about (never a retired one)."
    )
    relationships = RecalledRelationshipOutputSerializer(
        many=True,
        help_text="The relationships the returned entries state that held then (`as_of`, "
        "else now).",
    )
    audit_envelope = AuditEnvelopeOutputSerializer()


def _entry_output(entry, *, now, graph) -> dict:
    output = {
        "id": entry.entry_id,
        "revision_id": entry.revision_id,
        "body": entry.body,
        "category": entry.category,
        "subject": entry.subject,
        "origin": entry.origin,
        "scope": parse_scope_key(entry.scope_key).model_dump(mode="json"),
        "score": round(entry.score, 6),
        "provenance_chain": [
            {"kind": p.kind, "ref": p.ref, "captured_at": p.captured_at}
            for p in entry.provenance_chain
        ],
        "multi_actor": {
            "actor_handle": entry.multi_actor.actor_handle,
            "relationship_note": entry.multi_actor.relationship_note,
            "sensitive_interaction": entry.multi_actor.sensitive_interaction,
        }
        if entry.multi_actor
        else None,
        "freshness": freshness(origin=entry.origin, asserted_at=entry.updated_at, now=now),
        "entity_ids": graph.entry_entities.get(str(entry.entry_id), []),
        "valid_from": entry.valid_from,
        "valid_from_precision": entry.valid_from_precision,
        "valid_to": entry.valid_to,
        "valid_to_precision": entry.valid_to_precision,
        "learned_at": entry.learned_at,
    }
    if entry.rationale is not None:
        output["rationale"] = entry.rationale
    return output


@content_view(reads=[ContentKind.ENTRY], through=READ_GATE)
class RecallApi(APIView):
    """Run the recall pipeline for a member. Consented categories come from the member's
    consent ledger; `consented_categories` may only narrow them. `surface`, `context` and
    the scope's `kind` must lie within the calling client's capabilities (403 otherwise)."""

    DESCRIPTION = (
        "What the assistant may say back about a member now, through the read gate. "
        "Consented categories come from the member's consent ledger; "
        "`consented_categories` and `budget` may only narrow.\n\n"
        "The calling service client's consumer decides which `surface` budgets it may use, "
        "which `context` it may claim and which scope kinds it may read (a platform "
        "operator may narrow one client further). A request outside them is 403 with "
        f"`{SURFACE_NOT_ALLOWED}`, `{CONTEXT_NOT_ALLOWED}` or `{KIND_NOT_ALLOWED}`, never "
        "silently up- or downgraded. Every kind the recall *reaches* (not only the one it "
        "names) must be on the consumer's allow-list, or its entries are withheld and "
        f"counted as `{KIND_NOT_ALLOWED}` in `audit_envelope.suppression_counts`.\n\n"
        + capability_table_markdown()
    )

    permission_classes = [IsServiceClient]

    @contract(body=RecallRequest)
    @extend_schema(
        operation_id="recall",
        summary="Recall what may be said back about a member",
        description=DESCRIPTION,
        responses={
            200: RecallOutputSerializer,
            **error_responses(400, 403, 404, 413),
            403: OpenApiResponse(
                ErrorEnvelopeSerializer,
                description=(
                    "Not a service client, or a surface, context or scope kind outside its "
                    f"capabilities: `{SURFACE_NOT_ALLOWED}`, `{CONTEXT_NOT_ALLOWED}`, "
                    f"`{KIND_NOT_ALLOWED}`."
                ),
            ),
        },
    )
    def post(self, request, member_id, body: RecallRequest):
        scope = body.scope
        # Another member's or tenant's: 404, decided with the member's read state.
        tenant_id = body.tenant_id or getattr(scope, "tenant_id", None)
        recall_request = recall_request_build(
            member_id=member_id,
            capabilities=principal_capabilities(request.user),
            surface=body.surface,
            scope={k: str(v) for k, v in scope.model_dump().items() if k != "user_id"},
            query=body.query,
            context=body.context,
            crisis_frame=body.crisis_frame,
            safety_critical_context=body.safety_critical_context,
            narrow_categories=body.consented_categories,
            tenant_id=tenant_id,
            budget=body.budget,
        )
        now = timezone.now()
        result = recall_run(
            request=recall_request,
            actor=Actor.of(request.user),
            now=now,
            entity_id=body.entity,
            as_of=body.as_of,
        )
        graph = recalled_graph(
            member_id=member_id,
            entry_ids=result.audit_envelope.returned_ids,
            as_of=body.as_of,
        )
        return Response(
            {
                "entries": [_entry_output(e, now=now, graph=graph) for e in result.entries],
                **graph.as_output(),
                "audit_envelope": result.audit_envelope.as_dict(),
            }
        )


@content_view(reads=[ContentKind.ENTRY], through=MEMBER_OWN)
class MemberRecallListApi(generics.ListAPIView):
    """Recent recalls of my memory: which surface, when, what it returned and why."""

    class RecallRecordOutputSerializer(serializers.ModelSerializer):
        at = serializers.DateTimeField(source="created_at")

        class Meta:
            model = RecallRecord
            fields = [
                "id",
                "surface",
                "consumer",
                "context",
                "at",
                "returned_ids",
                "rationales",
                "suppression_counts",
                "evaluated_count",
            ]

    class Pagination(CursorPagination):
        ordering = "-created_at"

    permission_classes = [IsMember]
    serializer_class = RecallRecordOutputSerializer
    pagination_class = Pagination

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return RecallRecord.objects.none()
        return memory_recall_list(member_id=self.request.user.pk)

    @extend_schema(responses={200: RecallRecordOutputSerializer(many=True), **error_responses(400)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
