"""The surfaces' short-term memory, consolidation and context-bundle endpoints.

Service-client tokens only; `{member_id}` is the member's UUID and every read names the
member's scope. Views are thin: parse, call one service or selector, shape the answer.
"""

import dataclasses

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from hierarchy.access import justification_clean
from hierarchy.bundle import get_context_bundle
from hierarchy.consolidation import ConsolidationInput, stm_consolidate
from hierarchy.contracts import (
    SCOPE_ID_REGEX,
    ContextBundleRequest,
    ShortTermConsolidate,
    ShortTermListQuery,
    ShortTermReadQuery,
    ShortTermRefresh,
    ShortTermWrite,
)
from hierarchy.enums import StmScopeKind
from hierarchy.models import ShortTermMemory
from hierarchy.replays import consolidate_reference, consolidate_replay, stm_write_replay
from hierarchy.stm import (
    StmView,
    stm_content,
    stm_gate,
    stm_gate_kind,
    stm_member_state,
    stm_read_record,
    stm_reader,
    stm_refresh,
    stm_rescope,
    stm_row_get,
    stm_rows_for_scope,
    stm_view,
    stm_write,
)
from hierarchy.stm_serializers import ShortTermOutputSerializer, StmScopeKindField, stm_output
from iris_site.api.contracts import contract
from iris_site.api.gated import READ_GATE, content_free, content_view
from iris_site.api.members import member_or_404
from iris_site.api.pagination import CursorPagination
from iris_site.api.schema import error_responses
from iris_site.api.serializers import StrictInputSerializer
from iris_site.audit.events import Actor
from iris_site.enums import OperatorRole
from iris_site.errors import NotFound
from iris_site.idempotency import Scope, idempotent
from iris_site.permissions import IsServiceClient, operator_with_roles
from iris_site.selectors import operator_tenant_id
from memory.access.capabilities import capability_table_markdown
from memory.access.gate import ContentKind
from memory.http.replays import kept_entry_visible
from memory.selectors import principal_capabilities

CAPABILITIES_NOTE = (
    "\n\nWhat each service client may claim comes from its consumer (narrowed per client by "
    "a platform operator); a `surface`, `context` or scope kind outside it is **403** with "
    "`error.code` `surface-not-allowed`, `context-not-allowed` or "
    "`consumer-not-allowed-for-scope`, never silently changed.\n\n" + capability_table_markdown()
)

GATE_NOTE = (
    "Every row passes the read gate for the calling client: the member's consents "
    "(`data_processing`; a sensitive category needs its own consent and a `context` in "
    "which it may surface, e.g. `mental_health` only in `health`, `safety` or `crisis`), "
    "a pending full clear and off the record."
)


def _reader(request, member_id, context: str):
    return stm_reader(
        member_id=member_id,
        capabilities=principal_capabilities(request.user),
        client_id=request.user.pk,
        context=context,
    )


class ShortTermPagination(CursorPagination):
    """The cursor pages of a scope's rows, plus what the read gate withheld from this page:
    `withheld` counts them by reason (never naming them). Rows are gated after the page
    is cut, so a page may hold fewer rows than `page_size`; `next` still walks the rest."""

    ordering = ("created_at", "id")

    def get_paginated_response(self, data, withheld: dict[str, int]):
        response = super().get_paginated_response(data)
        response.data["withheld"] = withheld
        return response

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["withheld"] = {
            "type": "object",
            "additionalProperties": {"type": "integer", "minimum": 1},
            "description": "Rows of this page the read gate withheld, by reason.",
        }
        paginated["required"] = [*paginated.get("required", []), "withheld"]
        return paginated


@content_view(reads=[ContentKind.STM], through=READ_GATE)
class ShortTermListCreateApi(generics.GenericAPIView):
    """GET: the live rows of one scope of a member (`scope_id` required: reads are always
    member-scoped), through the read gate. POST: write a row; its TTL defaults to the
    scope kind's, and the answer echoes the row just written."""

    permission_classes = [IsServiceClient]
    pagination_class = ShortTermPagination
    serializer_class = ShortTermOutputSerializer
    # The schema's model only: rows come from the selector, and through the read gate.
    queryset = ShortTermMemory.objects.none()

    @contract(query=ShortTermListQuery)
    @extend_schema(
        operation_id="list_short_term",
        summary="List a scope's short-term rows",
        description=GATE_NOTE
        + " A row it withholds is absent; the page's `withheld` object counts the rows "
        "withheld from it by reason (e.g. `sensitive-category-outside-relevant-context`), "
        "so a page may be shorter than `page_size` while `next` still leads on."
        + CAPABILITIES_NOTE,
        responses={200: ShortTermOutputSerializer(many=True), **error_responses(400, 403, 404)},
    )
    def get(self, request, member_id, query: ShortTermListQuery):
        member = member_or_404(member_id)
        scope_kind = query.scope_kind
        reader = _reader(request, member.pk, query.context)
        if scope_kind is not None:
            reader.capabilities.require_read_kind(stm_gate_kind(scope_kind))
        now = timezone.now()
        rows = stm_rows_for_scope(
            member_id=member.pk, scope_id=query.scope_id, scope_kind=scope_kind, now=now
        )
        state = stm_member_state(
            member_id=member.pk, scope_id=query.scope_id, scope_kind=scope_kind, now=now
        )
        read = stm_gate(self.paginate_queryset(rows), reader=reader, state=state, now=now)
        stm_read_record(
            member_id=member.pk,
            scope_id=query.scope_id,
            read=read,
            actor=Actor.of(request.user),
            scope_kind=scope_kind,
            now=now,
        )
        return self.paginator.get_paginated_response(
            [stm_output(view) for view in read.views], read.withheld
        )

    @idempotent(Scope.SHORT_TERM_WRITE, replay=stm_write_replay)
    @contract(body=ShortTermWrite)
    @extend_schema(
        operation_id="write_short_term",
        summary="Write a short-term row",
        description="Write a row of working memory; the answer echoes it. A `user_session` "
        "row is session memory, the others profile memory: a kind outside the client's "
        "write kinds is 403 `consumer-not-allowed-for-scope`." + CAPABILITIES_NOTE,
        responses={201: ShortTermOutputSerializer, **error_responses(400, 403, 404, 409, 413, 422)},
    )
    def post(self, request, member_id, body: ShortTermWrite):
        member = member_or_404(member_id)
        principal_capabilities(request.user).require_write_kind(stm_gate_kind(body.scope_kind))
        row = stm_write(member=member, actor=Actor.of(request.user), **body.model_dump())
        # A row just written: consolidated into nothing yet.
        view = StmView(row, stm_content(row))
        return Response(stm_output(view), status=status.HTTP_201_CREATED)


@content_view(reads=[ContentKind.STM], through=READ_GATE)
class ShortTermRefreshApi(APIView):
    """T3: keep a row alive for another TTL (capped by the scope's maximum lifetime). A row
    the read gate withholds from the caller is 404, exactly as one that is not there."""

    permission_classes = [IsServiceClient]

    @contract(query=ShortTermReadQuery, body=ShortTermRefresh)
    @extend_schema(
        operation_id="refresh_short_term",
        summary="Refresh a short-term row's TTL",
        description=GATE_NOTE
        + " A row it withholds is 404, as one that is not there; refreshing is a write, "
        "so the row's kind must also be one the client may write (else 403)." + CAPABILITIES_NOTE,
        responses={200: ShortTermOutputSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request, member_id, stm_id, query: ShortTermReadQuery, body: ShortTermRefresh):
        member = member_or_404(member_id)
        reader = _reader(request, member.pk, query.context)
        row = stm_row_get(member_id=member.pk, stm_id=stm_id)
        view = None if row is None else stm_view(row, reader=reader)
        if view is None:
            raise NotFound()
        reader.capabilities.require_write_kind(stm_gate_kind(row.scope_kind))
        row = stm_refresh(row=row, actor=Actor.of(request.user), ttl_seconds=body.ttl_seconds)
        return Response(stm_output(dataclasses.replace(view, row=row)))


class ConsolidateOutputSerializer(serializers.Serializer):
    stm_id = serializers.UUIDField()
    entry_id = serializers.UUIDField(
        allow_null=True,
        help_text="The entry made, or the one the conflict ladder kept; null when the kept "
        "one is withheld from this surface (a memory the member paused, say): it is never "
        "named.",
    )
    created = serializers.BooleanField(
        help_text="False when the conflict ladder kept an existing entry (then 200)."
    )
    conflict_rule = serializers.CharField(allow_null=True)
    promotion_reason = serializers.CharField(allow_null=True)
    trigger = serializers.CharField()
    consolidated_at = serializers.DateTimeField()


@content_free
class ShortTermConsolidateApi(APIView):
    """T5, explicit: the row becomes long-term memory through the consent-checked write
    path and the session → profile promotion rule. 409 when already consolidated; 422
    with the policy's reason when refused (the row stays as it was). A row the read gate
    withholds from the caller is 404, as one that is not there, and nothing is recorded:
    a client never turns into long-term memory what it may not read."""

    permission_classes = [IsServiceClient]

    @idempotent(
        Scope.SHORT_TERM_CONSOLIDATE, replay=consolidate_replay, reference=consolidate_reference
    )
    @contract(query=ShortTermReadQuery, body=ShortTermConsolidate)
    @extend_schema(
        operation_id="consolidate_short_term",
        summary="Consolidate a short-term row into long-term memory",
        description=GATE_NOTE
        + " A row it withholds is 404, as one that is not there, and nothing is recorded."
        + CAPABILITIES_NOTE,
        responses={
            201: ConsolidateOutputSerializer,
            200: ConsolidateOutputSerializer,
            **error_responses(400, 403, 404, 409, 422),
        },
    )
    def post(
        self, request, member_id, stm_id, query: ShortTermReadQuery, body: ShortTermConsolidate
    ):
        # Refused before any row is looked up, so a 403 never tells that a row exists.
        principal_capabilities(request.user).require_context(query.context)
        data = body.model_dump(mode="json")
        data["turns"] = tuple(data["turns"])
        member = member_or_404(member_id)
        # The row is looked up inside the member named by the path only: another member's
        # row id is 404, as one that is not there.
        result = stm_consolidate(
            stm_id=stm_id,
            actor=Actor.of(request.user),
            given=ConsolidationInput(**data),
            consumer=request.user.consumer,
            member_id=member.pk,
            reader=_reader(request, member.pk, query.context),
        )
        # As a write's answer: a memory the ladder kept instead is named only if the read
        # gate would show it to this surface (`memory.http.replays.kept_entry_visible`).
        named = result.created or kept_entry_visible(
            request.user, member_id=member.pk, entry_id=result.entry_id
        )
        output = ConsolidateOutputSerializer(
            {
                "stm_id": result.row.pk,
                "entry_id": result.entry_id if named else None,
                "created": result.created,
                "conflict_rule": result.conflict_rule,
                "promotion_reason": result.promotion_reason,
                "trigger": result.row.consolidation_trigger,
                "consolidated_at": result.row.consolidated_at,
            }
        ).data
        response = Response(
            output, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK
        )
        response.made_or_kept = result.entry_id  # for the idempotency reference only
        return response


class ContextBundleOutputSerializer(serializers.Serializer):
    scope_id = serializers.CharField()
    stm = serializers.ListField(child=serializers.DictField())
    stm_withheld = serializers.DictField(
        child=serializers.IntegerField(min_value=1),
        help_text="Short-term rows the read gate withheld, by reason (never named).",
    )
    ltm = serializers.DictField(
        help_text='{"entries": [...], "entities": [...], "relationships": [...], '
        '"audit_envelope": {...}}: each entry has its `freshness` and `entity_ids`, when '
        "it was true as the member said it (`valid_from`, `valid_to`, null when unsaid, "
        "with what each was said to in `valid_from_precision`, `valid_to_precision`) and "
        "when Iris learned it (`learned_at`), as recall gives them; the "
        "entities and relationships are those of the returned entries; the envelope's "
        "`suppression_counts` count the withheld entries by reason."
    )
    episodic = serializers.ListField(child=serializers.DictField())
    resolved_at = serializers.DateTimeField()
    cached = serializers.BooleanField(help_text="Served from the 30-second bundle cache.")


@content_view(reads=[ContentKind.ENTRY, ContentKind.STM], through=READ_GATE)
class ContextBundleApi(APIView):
    """R4: a scope's working memory + long-term recall for the query + the episodic
    events about what was returned, for composing a prompt, each through the read gate
    for the calling client. Cached 30 s; every call is audited with counts only."""

    permission_classes = [IsServiceClient]

    @contract(body=ContextBundleRequest)
    @extend_schema(
        operation_id="get_context_bundle",
        summary="Compose a context bundle",
        description="Short-term rows, long-term recall and the episodic events about "
        "what was returned, each through the read gate for the calling client: a row or "
        "entry it withholds (base consents withdrawn, a sensitive category outside the "
        "`context`, a pending full clear, off the record, ...) is absent, counted by "
        "reason in `stm_withheld` and in `ltm.audit_envelope.suppression_counts`, and no "
        "event about it is listed. Cached 30 s on everything that changes the answer "
        "(the client's capabilities and the member's consents included)." + CAPABILITIES_NOTE,
        responses={200: ContextBundleOutputSerializer, **error_responses(400, 403, 404, 413)},
    )
    def post(self, request, member_id, body: ContextBundleRequest):
        member = member_or_404(member_id)
        bundle = get_context_bundle(
            member=member,
            actor=Actor.of(request.user),
            capabilities=principal_capabilities(request.user),
            **body.model_dump(),
        )
        return Response(bundle)


@content_free
class AdminStmRescopeApi(APIView):
    """The admin-only override of `stm-cross-scope`: move one live short-term row to
    another scope. Operators with the admin role only (any other caller: 403); the
    `justification` is required, kept, and the move audited
    (`hierarchy.stm.admin_rescoped` + `hierarchy.stm.rescoped`, ids only). Nothing else
    moves a short-term row across scopes. A row of another tenant's member, or none: 404."""

    class StmRescopeInputSerializer(StrictInputSerializer):
        scope_kind = StmScopeKindField(choices=StmScopeKind.choices)
        scope_id = serializers.RegexField(SCOPE_ID_REGEX)
        justification = serializers.CharField(max_length=1000)

        def validate_justification(self, value):
            return justification_clean(value)

    class StmRescopeOutputSerializer(serializers.Serializer):
        id = serializers.UUIDField()
        member_id = serializers.UUIDField()
        scope_kind = StmScopeKindField(choices=StmScopeKind.choices)
        ttl_expires = serializers.DateTimeField()

    permission_classes = [operator_with_roles(OperatorRole.ADMIN)]

    @extend_schema(
        request=StmRescopeInputSerializer,
        responses={200: StmRescopeOutputSerializer, **error_responses(400, 404, 409)},
    )
    def post(self, request, stm_id):
        serializer = self.StmRescopeInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        row = ShortTermMemory.objects.filter(pk=stm_id).first()
        if row is None:
            raise NotFound()
        data = serializer.validated_data
        moved = stm_rescope(
            row=row,
            scope_kind=data["scope_kind"],
            scope_id=data["scope_id"],
            actor=Actor.of(request.user),
            admin_override=True,
            justification=data["justification"],
            tenant_id=operator_tenant_id(request.user),
        )
        return Response(
            {
                "id": moved.pk,
                "member_id": moved.member_id,
                "scope_kind": moved.scope_kind,
                "ttl_expires": moved.ttl_expires,
            }
        )
