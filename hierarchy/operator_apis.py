"""Operator API of the memory hierarchy (`/api/v1/operator/memory-hierarchy/…`).

Counts and the replay timeline are metadata (ids and numbers) and need any operator;
short-term rows and long-term entries are member data: they need an admin, t&s or legal
operator and a justification, are audited, and never show content (no body, content or
subject field at all; the member-consented inspection workflow is the way to read it).
A tenant-bound operator sees its own tenant's rows only.
"""

from datetime import datetime

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from hierarchy.access import justification_clean, operator_read_audit
from hierarchy.enums import StmScopeKind
from hierarchy.operator import (
    LTM_DEFAULT_LIMIT,
    LTM_MAX_LIMIT,
    REPLAY_DEFAULT_LIMIT,
    REPLAY_MAX_LIMIT,
    LtmLookup,
    LtmLookupKind,
    hierarchy_counts,
    ltm_entity_read,
    ltm_history,
    stm_reconstruct,
    stm_replay,
)
from hierarchy.stm import scope_digest, stm_admin_read
from hierarchy.stm_serializers import StmScopeKindField
from iris_site.api.gated import content_free
from iris_site.api.schema import error_responses
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor
from iris_site.audit.listing import Listing, category_listed, role_may_list
from iris_site.enums import OperatorRole
from iris_site.permissions import IsOperator, operator_with_roles
from iris_site.selectors import operator_tenant_id
from memory.enums import EntityKind, EntityState, Lifecycle, is_sensitive_category
from memory.policy.freshness import freshness

# Member data: never support (ARCHITECTURE.md: support never sees sensitive memory).
MemberDataOperator = operator_with_roles(
    OperatorRole.ADMIN, OperatorRole.TRUST_AND_SAFETY, OperatorRole.LEGAL
)


class QuerySerializer(serializers.Serializer):
    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown parameter."] for name in unknown})
        return attrs


def _query(serializer_class, request) -> dict:
    serializer = serializer_class(data=request.query_params.dict())
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _justified(serializer_class, request) -> dict:
    """A read of member data: its justification (and what narrows it) travels in the
    JSON body, never the URL, so it stays out of access logs, proxies and history."""
    if request.query_params:
        raise serializers.ValidationError(
            {name: ["Send this in the JSON body."] for name in sorted(request.query_params)}
        )
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class CountsOutputSerializer(serializers.Serializer):
    stm = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True, help_text="null: the query failed."
    )
    ltm = serializers.DictField(child=serializers.IntegerField(), allow_null=True)
    episodic_24h = serializers.IntegerField(allow_null=True)
    generated_at = serializers.DateTimeField()


@content_free
class HierarchyCountsApi(APIView):
    """STM rows by scope_kind, LTM entries by lifecycle, episodic events of the last 24 h.
    A part whose query fails is null. Tenant-bound operators count their tenant only."""

    permission_classes = [IsOperator]

    @extend_schema(responses={200: CountsOutputSerializer, **error_responses()})
    def get(self, request):
        counts = hierarchy_counts(tenant_id=operator_tenant_id(request.user))
        operator_read_audit(
            action=AuditAction.HIERARCHY_COUNTS_READ,
            actor=Actor.of(request.user),
            payload={"surface": "api", "failed_parts": _failed(counts)},
        )
        return Response(CountsOutputSerializer(counts.as_dict()).data)


def _failed(counts) -> list[str]:
    return [
        name
        for name, value in (
            ("stm", counts.stm),
            ("ltm", counts.ltm),
            ("episodic", counts.episodic_24h),
        )
        if value is None
    ]


class ReplayEventOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    sequence = serializers.IntegerField()
    action = serializers.CharField()
    occurred_at = serializers.DateTimeField()
    target_member_id = serializers.UUIDField(allow_null=True)
    payload = serializers.DictField()


class ReconstructedRowSerializer(serializers.Serializer):
    stm_id = serializers.UUIDField()
    member_id = serializers.UUIDField(allow_null=True)
    scope_kind = serializers.CharField(allow_null=True)
    category = serializers.CharField(allow_null=True)
    state = serializers.CharField()
    consolidated_to = serializers.UUIDField(allow_null=True)
    first_seen_at = serializers.DateTimeField()
    last_event_at = serializers.DateTimeField()
    last_sequence = serializers.IntegerField()


class ReplayOutputSerializer(serializers.Serializer):
    scope_id_digest = serializers.CharField()
    events = ReplayEventOutputSerializer(many=True)
    reconstructed = ReconstructedRowSerializer(
        many=True, allow_null=True, help_text="RC1: derived from the events, never stored."
    )


@content_free
class ReplayApi(APIView):
    """R1 (+ RC1 with `reconstruct=true`): the `memory.stm.*` timeline of a scope, ids
    and counts only, e.g. to see what an agent saw before it crashed mid-tick."""

    class ReplayQuerySerializer(QuerySerializer):
        since = serializers.DateTimeField(required=False)
        limit = serializers.IntegerField(
            required=False, min_value=1, max_value=REPLAY_MAX_LIMIT, default=REPLAY_DEFAULT_LIMIT
        )
        member_id = serializers.UUIDField(required=False)
        reconstruct = serializers.BooleanField(required=False, default=False)

    permission_classes = [IsOperator]

    @extend_schema(
        summary="Replay the short-term timeline of a scope",
        parameters=[ReplayQuerySerializer],
        responses={200: ReplayOutputSerializer, **error_responses(400, 404)},
    )
    def get(self, request, scope_id):
        params = _query(self.ReplayQuerySerializer, request)
        role = request.user.operator_profile.role
        events = [
            event
            for event in stm_replay(
                scope_id=scope_id,
                since=params.get("since"),
                limit=params["limit"],
                member_id=params.get("member_id"),
                tenant_id=operator_tenant_id(request.user),
            )
            if role_may_list(event.action, role=role)
        ]
        # An audit listing like any other (`iris_site.audit.listing`): special categories
        # as the marker, support's counts only, and a record in each member's chain.
        listing = Listing(role=role)
        shown = [
            {
                "id": e.pk,
                "sequence": e.sequence,
                "action": e.action,
                "occurred_at": e.occurred_at,
                "target_member_id": e.target_member_id,
                "payload": listing.payload(e),
            }
            for e in events
        ]
        reconstructed = None
        if params["reconstruct"]:
            reconstructed = [
                {**row, "category": category_listed(row["category"])}
                for row in stm_reconstruct(events)
            ]
        listing.record(
            actor=Actor.of(request.user),
            surface="replay",
            tenant_id=operator_tenant_id(request.user),
        )
        operator_read_audit(
            action=AuditAction.HIERARCHY_REPLAY_RECONSTRUCTED
            if params["reconstruct"]
            else AuditAction.HIERARCHY_REPLAY_READ,
            actor=Actor.of(request.user),
            payload={
                "scope_id_digest": scope_digest(scope_id),
                "event_count": len(events),
                "transition": "rc1" if params["reconstruct"] else "r1",
            },
        )
        return Response(
            ReplayOutputSerializer(
                {
                    "scope_id_digest": scope_digest(scope_id),
                    "events": shown,
                    "reconstructed": reconstructed,
                }
            ).data
        )


class AdminStmRowSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    member_id = serializers.UUIDField()
    scope_kind = StmScopeKindField(choices=StmScopeKind.choices)
    category = serializers.CharField()
    sensitive = serializers.BooleanField(help_text="Its content is encrypted at rest.")
    content_length = serializers.IntegerField(
        allow_null=True, help_text="null for a sensitive row."
    )
    related_entry_ids = serializers.ListField(child=serializers.UUIDField())
    consolidated_to = serializers.UUIDField(allow_null=True)
    written_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    ttl_expires = serializers.DateTimeField()
    warn_emitted_at = serializers.DateTimeField(allow_null=True)


def admin_stm_row(row) -> dict:
    return {
        "id": row.pk,
        "member_id": row.member_id,
        "scope_kind": row.scope_kind,
        "category": category_listed(row.category),  # a special one as the marker
        "sensitive": row.sensitive,
        "content_length": None if row.sensitive else len(row.content),
        "related_entry_ids": row.related_entry_ids,
        "consolidated_to": row.consolidated_to,
        "written_by": row.written_by,
        "created_at": row.created_at,
        "ttl_expires": row.ttl_expires,
        "warn_emitted_at": row.warn_emitted_at,
    }


@content_free
class AdminStmApi(APIView):
    """The live short-term rows of a scope, across members unless `member_id` narrows it.
    Metadata and identifiers only. `justification` (in the JSON body, as everything
    here) is required and audited."""

    class StmReadInputSerializer(QuerySerializer):
        justification = serializers.CharField(max_length=1000)
        member_id = serializers.UUIDField(required=False)

        def validate_justification(self, value):
            return justification_clean(value)

    permission_classes = [MemberDataOperator]

    @extend_schema(
        request=StmReadInputSerializer,
        responses={200: AdminStmRowSerializer(many=True), **error_responses(400, 404)},
    )
    def post(self, request, scope_id):
        params = _justified(self.StmReadInputSerializer, request)
        rows = stm_admin_read(
            scope_id=scope_id,
            actor=Actor.of(request.user),
            justification=params["justification"],
            member_id=params.get("member_id"),
            tenant_id=operator_tenant_id(request.user),
        )
        return Response(AdminStmRowSerializer([admin_stm_row(r) for r in rows], many=True).data)


class RevisionMetadataSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    action = serializers.CharField()
    actor = serializers.CharField()
    created_at = serializers.DateTimeField()


class AdminLtmEntrySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    member_id = serializers.UUIDField()
    scope_kind = serializers.CharField()
    category = serializers.CharField()
    sensitive = serializers.BooleanField(help_text="A sensitive category.")
    origin = serializers.CharField()
    lifecycle = serializers.CharField()
    confidence = serializers.FloatField()
    freshness = serializers.FloatField()
    revision_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    history = RevisionMetadataSerializer(
        many=True, required=False, help_text="RC2, with `include_history`."
    )


# Matching entries by lifecycle state (every state present) and in total.
LtmCountsSerializer = type(
    "LtmCountsSerializer",
    (serializers.Serializer,),
    {name: serializers.IntegerField() for name in [*Lifecycle.values, "total"]},
)


class AdminLtmEntitySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=EntityKind.choices)
    state = serializers.ChoiceField(choices=EntityState.choices)


class AdminLtmLookupSerializer(serializers.Serializer):
    lookup = serializers.ChoiceField(
        choices=LtmLookupKind.CHOICES, help_text="What the entity named, from its shape."
    )
    counts = LtmCountsSerializer()
    entity = AdminLtmEntitySerializer(
        allow_null=True,
        help_text="A lookup by entity id: the entity (never its label), in any state; a "
        "retired entity's entries were erased with it. Null otherwise.",
    )
    entries = AdminLtmEntrySerializer(
        many=True,
        allow_null=True,
        help_text="The entries' metadata (newest first, at most `limit`); null for a "
        "lookup by subject, which answers counts only.",
    )


def admin_ltm_entry(entry, *, now: datetime, history: bool) -> dict:
    output = {
        "id": entry.pk,
        "member_id": entry.member_id,
        "scope_kind": entry.scope_kind,
        # A special category as `special-category` (issue 42): this is no inspection.
        "category": category_listed(entry.category),
        "sensitive": is_sensitive_category(entry.category),
        "origin": entry.origin,
        "lifecycle": entry.lifecycle,
        "confidence": entry.confidence,
        "freshness": freshness(origin=entry.origin, asserted_at=entry.updated_at, now=now),
        "revision_count": entry.revision_count,
        "created_at": entry.created_at,
        "updated_at": entry.updated_at,
    }
    if history:
        output["history"] = ltm_history(entry)
    return output


def admin_ltm_lookup(lookup: LtmLookup, *, now: datetime, history: bool) -> dict:
    return {
        "lookup": lookup.kind,
        "counts": {**lookup.counts, "total": lookup.total},
        "entity": None
        if lookup.entity is None
        else {"id": lookup.entity.pk, "kind": lookup.entity.kind, "state": lookup.entity.state},
        "entries": None
        if lookup.entries is None
        else [admin_ltm_entry(e, now=now, history=history) for e in lookup.entries],
    }


@content_free
class AdminLtmApi(APIView):
    """Long-term entries about one entity, in every lifecycle state unless `state`
    narrows it, inside the operator's tenant (a tenant-bound operator never sees another
    tenant's entries). `justification` is required and kept (it and the other fields go
    in the JSON body, never the URL); the read is audited with ids and counts only.

    What the entity names is read from its shape, and each kind matches its own column:

    - an **entry id** (a UUID) or an **actor handle** (`actor_` + 32 hex digits, keyed to
      one member's namespace): the entries' metadata — ids, member, scope kind, category,
      origin, lifecycle, confidence, freshness — never a body or subject;
      `include_history` adds each revision chain's metadata (RC2);
    - anything else is a **subject**, which is member content: the answer is counts only
      (how many entries, in which lifecycle; `entries` is null), never which members,
      entries or categories, and `member_id` or `include_history` are refused (400,
      `subject-lookup-counts-only`). Reading a member's memory about a subject needs a
      granted inspection."""

    class LtmReadInputSerializer(QuerySerializer):
        justification = serializers.CharField(max_length=1000)
        state = serializers.ChoiceField(choices=Lifecycle.choices, required=False)
        member_id = serializers.UUIDField(required=False)
        limit = serializers.IntegerField(
            required=False, min_value=1, max_value=LTM_MAX_LIMIT, default=LTM_DEFAULT_LIMIT
        )
        include_history = serializers.BooleanField(required=False, default=False)

        def validate_justification(self, value):
            return justification_clean(value)

    permission_classes = [MemberDataOperator]

    @extend_schema(
        summary="Long-term entries about one entity, justified and audited",
        request=LtmReadInputSerializer,
        parameters=[
            OpenApiParameter(
                "entity_id",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                description="An entry id, an actor handle, or a subject (counts only).",
            ),
        ],
        responses={200: AdminLtmLookupSerializer, **error_responses(400, 404)},
    )
    def post(self, request, entity_id):
        params = _justified(self.LtmReadInputSerializer, request)
        history = params["include_history"]
        lookup = ltm_entity_read(
            entity=entity_id,
            actor=Actor.of(request.user),
            justification=params["justification"],
            state=params.get("state"),
            member_id=params.get("member_id"),
            tenant_id=operator_tenant_id(request.user),
            limit=params["limit"],
            with_history=history,
        )
        return Response(
            AdminLtmLookupSerializer(
                admin_ltm_lookup(lookup, now=timezone.now(), history=history)
            ).data
        )
