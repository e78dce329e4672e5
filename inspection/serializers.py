"""The inspection API's output shapes that more than its views need: a request as its
operator sees it, for the endpoints and for opening's idempotent replay
(`inspection.replays`)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inspection.enums import InspectionState, ReasonCode
from inspection.models import InspectionRequest
from inspection.policy import ENTRY_PATHS, needs_second_approver
from iris_site.audit.enums import ActorType
from iris_site.enums import OperatorRole
from memory.enums import ScopeKind
from memory.http.serializers import MemoryScopeSerializer

PATH_CHOICES = [(p, p) for p in ENTRY_PATHS]


@extend_schema_field({"type": "string"})
class PlainChoiceField(serializers.ChoiceField):
    """A choice field documented as a plain string, its values in the help text.

    The schema gives each choice set one enum name; where a set appears under a second
    field name (the states as `to`, `from_state`, `to_state`) it is described instead.
    """

    def __init__(self, **kwargs):
        values = ", ".join(str(value) for value in dict(kwargs["choices"]))
        help_text = kwargs.pop("help_text", "")
        kwargs["help_text"] = f"{help_text} One of: {values}.".strip()
        super().__init__(**kwargs)


class InspectionScopeSerializer(MemoryScopeSerializer):
    """A memory scope key: `kind` plus exactly the identifiers that kind needs."""

    # The identifiers are memory's (`MemoryScopeSerializer`); here `kind` is documented
    # as a plain string and `user_id` as the target member.
    kind = PlainChoiceField(choices=ScopeKind.choices)
    user_id = serializers.UUIDField(
        required=False, help_text="The target member; filled in when left out."
    )


class InspectionEventOutputSerializer(serializers.Serializer):
    sequence = serializers.IntegerField()
    from_state = PlainChoiceField(choices=InspectionState.choices, allow_null=True)
    to_state = PlainChoiceField(choices=InspectionState.choices)
    reason_code = serializers.ChoiceField(choices=ReasonCode.choices, allow_null=True)
    actor_type = serializers.ChoiceField(choices=ActorType.choices)
    actor_id = serializers.UUIDField(allow_null=True)
    actor_role = serializers.CharField(allow_blank=True)
    seen_count = serializers.IntegerField(allow_null=True)
    audit_event_id = serializers.UUIDField()
    occurred_at = serializers.DateTimeField()


class InspectionOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    state = serializers.ChoiceField(choices=InspectionState.choices)
    path = serializers.ChoiceField(choices=PATH_CHOICES, allow_null=True)
    operator_id = serializers.UUIDField()
    operator_role = serializers.ChoiceField(
        choices=OperatorRole.choices, help_text="The role when the request was opened."
    )
    target_user_id = serializers.UUIDField()
    target_tenant_id = serializers.UUIDField(allow_null=True)
    scope = InspectionScopeSerializer()
    include_sensitive = serializers.BooleanField()
    justification = serializers.CharField()
    signed_incident_ref = serializers.CharField(allow_null=True)
    dsar_request_id = serializers.UUIDField(
        allow_null=True, help_text="The data-rights request a DSAR fulfilment serves."
    )
    needs_second_approver = serializers.BooleanField(
        help_text="Granted by a second operator with the path's approving role, never the "
        "requester."
    )
    granted_by = serializers.UUIDField(allow_null=True, help_text="Who made the grant.")
    reason_code = serializers.ChoiceField(choices=ReasonCode.choices, allow_null=True)
    investigation_carveout = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    decide_by = serializers.DateTimeField(help_text="Undecided after this: denied (expired).")
    granted_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(
        allow_null=True, help_text="When the grant closes by itself."
    )
    closed_at = serializers.DateTimeField(allow_null=True)
    seen_entry_ids = serializers.ListField(
        child=serializers.UUIDField(),
        help_text="The entries the grant pinned (empty until granted).",
    )
    events = InspectionEventOutputSerializer(
        many=True, required=False, help_text="The request's steps (detail only)."
    )
    gate_explanation = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Why the policy gate granted or denied (transition responses only).",
    )


def inspection_data(inspection: InspectionRequest, *, seen_entry_ids=None) -> dict:
    if seen_entry_ids is None:
        seen_entry_ids = [item.entry_id for item in inspection.snapshot_items.all()]
    return {
        "id": inspection.pk,
        "state": inspection.state,
        "path": inspection.path or None,
        "operator_id": inspection.operator_id,
        "operator_role": inspection.operator_role,
        "target_user_id": inspection.member_id,
        "target_tenant_id": inspection.target_tenant_id,
        "scope": inspection.scope,
        "include_sensitive": inspection.include_sensitive,
        "justification": inspection.justification,
        "signed_incident_ref": inspection.signed_incident_ref or None,
        "dsar_request_id": inspection.dsar_request_id,
        "needs_second_approver": needs_second_approver(
            path=inspection.path, include_sensitive=inspection.include_sensitive
        ),
        "granted_by": inspection.granted_by_id,
        "reason_code": inspection.reason_code or None,
        "investigation_carveout": inspection.investigation_carveout,
        "created_at": inspection.created_at,
        "decide_by": inspection.decide_by,
        "granted_at": inspection.granted_at,
        "expires_at": inspection.expires_at,
        "closed_at": inspection.closed_at,
        "seen_entry_ids": list(seen_entry_ids),
    }
