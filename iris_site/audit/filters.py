import django_filters

from iris_site.models import AuditEvent


class AuditEventFilter(django_filters.FilterSet):
    action = django_filters.CharFilter(help_text="Exact action, e.g. memory.recall.resolved")
    action_prefix = django_filters.CharFilter(
        field_name="action", lookup_expr="startswith", help_text="e.g. consent."
    )
    occurred_after = django_filters.IsoDateTimeFilter(field_name="occurred_at", lookup_expr="gte")
    occurred_before = django_filters.IsoDateTimeFilter(field_name="occurred_at", lookup_expr="lt")

    class Meta:
        model = AuditEvent
        fields = ["action", "severity", "actor_type", "target_member_id", "target_tenant_id"]
