from django.contrib import admin

from hierarchy.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only: the chain is append-only and only services write to it."""

    list_display = ["sequence", "action", "severity", "actor_type", "actor_role", "occurred_at"]
    list_filter = ["severity", "actor_type", "action"]
    search_fields = ["=id", "=target_member_id", "=target_tenant_id", "action"]
    ordering = ["-sequence"]
    date_hierarchy = "occurred_at"

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
