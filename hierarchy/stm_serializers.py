"""The short-term endpoints' output shapes that more than their views need: a row as a
surface sees it, for the endpoints and for a write's idempotent replay
(`hierarchy.replays`), and the short-term scope kind (`hierarchy.operator_apis`)."""

from rest_framework import serializers

from hierarchy.enums import StmScopeKind
from hierarchy.stm import StmView


class StmScopeKindField(serializers.ChoiceField):
    """A short-term scope kind (its own enum, apart from memory's scope kinds)."""


class ShortTermOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    member_id = serializers.UUIDField()
    scope_kind = StmScopeKindField(choices=StmScopeKind.choices)
    scope_id = serializers.CharField()
    category = serializers.CharField()
    sensitive = serializers.BooleanField(help_text="Encrypted at rest.")
    content = serializers.CharField()
    related_entry_ids = serializers.ListField(child=serializers.UUIDField())
    consolidate_on_critic_promote = serializers.BooleanField()
    consolidated_to = serializers.UUIDField(
        allow_null=True,
        help_text="The memory this row was consolidated into, named only while the read "
        "gate shows that memory to this client (else null, as for a row not consolidated).",
    )
    consolidation_trigger = serializers.CharField(allow_blank=True)
    consolidated_at = serializers.DateTimeField(allow_null=True)
    ttl_seconds = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    refreshed_at = serializers.DateTimeField(allow_null=True)
    ttl_expires = serializers.DateTimeField()
    warn_emitted_at = serializers.DateTimeField(allow_null=True)


def stm_output(view: StmView) -> dict:
    row = view.row
    return ShortTermOutputSerializer(
        {
            **{f: getattr(row, f) for f in ShortTermOutputSerializer().fields if hasattr(row, f)},
            "content": view.content,
            "consolidated_to": view.consolidated_to,
        }
    ).data
