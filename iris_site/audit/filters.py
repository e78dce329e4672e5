import django_filters

from iris_site.audit.selectors import action_prefix_q, action_q
from iris_site.models import AuditEvent


class AuditEventFilter(django_filters.FilterSet):
    """`action` and `action_prefix` take an action's current name
    (`iris_site.audit.actions`, `<app>.<entity>.<verb>`) or the name it had before; either
    finds the events stored under both."""

    action = django_filters.CharFilter(
        method="action_filter",
        help_text="Exact action, e.g. memory.recall.resolved; an action's former name "
        "(e.g. memory.stm.write for hierarchy.stm.written) finds the same events",
    )
    action_prefix = django_filters.CharFilter(
        method="action_prefix_filter",
        help_text="e.g. consent.; former prefixes (memory.stm., admin.memory_hierarchy., "
        "iris.admin_inspection., research.) find the renamed actions' events too",
    )
    occurred_after = django_filters.IsoDateTimeFilter(field_name="occurred_at", lookup_expr="gte")
    occurred_before = django_filters.IsoDateTimeFilter(field_name="occurred_at", lookup_expr="lt")

    class Meta:
        model = AuditEvent
        fields = ["action", "severity", "actor_type", "target_member_id", "target_tenant_id"]

    def action_filter(self, queryset, name, value):
        return queryset.filter(action_q(value)) if value else queryset

    def action_prefix_filter(self, queryset, name, value):
        return queryset.filter(action_prefix_q(value)) if value else queryset
