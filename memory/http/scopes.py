"""Scope policy over HTTP: which memory scopes are on for a member, in which mode, and why
not (the notes name the missing consents and the member's opt-outs).

`GET /api/v1/me/scope-policies/` is the member's own view; a surface asks
`GET /api/v1/members/{member_id}/scope-policies/` for the member it serves and gets the
same scopes as its own consumer may use them. Both evaluate the blueprints with the
inputs the write path and the read gate use, so what they say is what a write or a
recall will meet.
"""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from consent.enums import OptOutCategory
from iris_site.api.contracts import contract
from iris_site.api.gated import content_free
from iris_site.api.schema import error_responses
from iris_site.enums import UserKind
from iris_site.errors import NotFound
from iris_site.models import User
from iris_site.permissions import IsMember, IsServiceClient
from memory.enums import AdapterScope, ScopeKind, ScopeMode
from memory.http.surface_contracts import ScopePoliciesQuery
from memory.policy.scopes import SCOPE_BLUEPRINTS, ScopePolicy
from memory.scopes import member_scope_policies


class ScopePolicyOutputSerializer(serializers.Serializer):
    scope = serializers.ChoiceField(choices=AdapterScope.choices)
    kind = serializers.ChoiceField(
        choices=ScopeKind.choices, help_text="The contract's scope kind it maps onto."
    )
    label = serializers.CharField()
    enabled = serializers.BooleanField()
    mode = serializers.ChoiceField(
        choices=ScopeMode.choices, help_text="`suppressed` whenever the scope is off."
    )
    policy_notes = serializers.ListField(
        child=serializers.CharField(),
        help_text="The blueprint's notes on why the scope is off: every missing consent, "
        "opt-out and allow-list that stands in the way (empty when it is on).",
    )
    missing_consents = serializers.ListField(child=serializers.CharField())
    opted_out = serializers.ListField(
        child=serializers.ChoiceField(choices=OptOutCategory.choices),
        help_text="The member's opt-outs that suppress this scope.",
    )
    consumer_allowed = serializers.BooleanField(help_text="Always true in the member's own view.")


def _results(policies: dict[str, ScopePolicy]) -> list[dict]:
    return ScopePolicyOutputSerializer(
        [
            {
                "scope": policy.scope,
                "kind": policy.kind,
                "label": SCOPE_BLUEPRINTS[scope].label,
                "enabled": policy.enabled,
                "mode": policy.mode,
                "policy_notes": list(policy.notes),
                "missing_consents": list(policy.missing_consents),
                "opted_out": list(policy.opted_out),
                "consumer_allowed": policy.consumer_allowed,
            }
            for scope, policy in policies.items()
        ],
        many=True,
    ).data


@content_free
class MyScopePolicyListApi(APIView):
    """The eleven memory scopes for the signed-in member: on or off, the mode, and the
    notes saying why a scope is off (change them through `/api/v1/me/consents/events/`
    and `/api/v1/me/opt-outs/`)."""

    permission_classes = [IsMember]

    @extend_schema(
        responses={
            200: inline_serializer(
                "MyScopePolicies", {"results": ScopePolicyOutputSerializer(many=True)}
            ),
            **error_responses(),
        }
    )
    def get(self, request):
        policies = member_scope_policies(member_id=request.user.pk)
        return Response({"results": _results(policies)})


@content_free
class MemberScopePolicyListApi(APIView):
    """The memory scopes of the member a surface serves, as the calling client's consumer
    may use them: a scope outside the consumer's allow-list is off with its note, and
    every consent or opt-out that stands in the way is named. A surface asks this before
    writing rather than learning it from a 422 `scope-suppressed`.

    404: no such member, or (with `tenant_id`) the member is not in that tenant.
    """

    permission_classes = [IsServiceClient]

    @contract(query=ScopePoliciesQuery)
    @extend_schema(
        operation_id="list_scope_policies",
        summary="List the member's scope policies for this client",
        responses={
            200: inline_serializer(
                "MemberScopePolicies",
                {
                    "consumer": serializers.CharField(),
                    "results": ScopePolicyOutputSerializer(many=True),
                },
            ),
            **error_responses(404),
        },
    )
    def get(self, request, member_id, query: ScopePoliciesQuery):
        member = User.objects.filter(pk=member_id, kind=UserKind.MEMBER, is_active=True).first()
        if member is None:
            raise NotFound()
        tenant_id = query.tenant_id
        if tenant_id and not member.tenant_memberships.filter(tenant_id=tenant_id).exists():
            raise NotFound()
        consumer = request.user.consumer
        policies = member_scope_policies(member_id=member.pk, consumer=consumer)
        return Response({"consumer": consumer, "results": _results(policies)})
