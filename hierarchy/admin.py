from django.contrib import admin

from hierarchy.models import OperatorAccessRecord, ShortTermMemory
from iris_site.admin_readonly import ListedLookupsOnly, PlatformOnlyMixin
from memory.admin import by_category, category_shown


@admin.register(ShortTermMemory)
class ShortTermMemoryAdmin(PlatformOnlyMixin, ListedLookupsOnly, admin.ModelAdmin):
    """Metadata only: content (encrypted or not) never appears in the console, nor a
    special category (`special-category`); no list filters or sorts by category or by
    sensitivity, which would say which members confide what (issue 42)."""

    fields = [
        "id",
        "member",
        "scope_kind",
        "scope_id",
        "category_shown",
        "sensitive",
        "related_entry_ids",
        "consolidate_on_critic_promote",
        "consolidated_to",
        "consolidation_trigger",
        "consolidated_at",
        "written_by",
        "ttl_seconds",
        "created_at",
        "refreshed_at",
        "ttl_expires",
        "warn_emitted_at",
        "anonymized_at",
    ]
    readonly_fields = fields
    list_display = [
        "id",
        "scope_kind",
        "category_shown",
        "sensitive_shown",
        "ttl_expires",
        "consolidated_to",
    ]
    list_filter = ["scope_kind", "consolidation_trigger"]
    search_fields = ["=id", "=member__id", "=scope_id"]
    ordering = ["-created_at"]
    list_select_related = False

    def get_queryset(self, request):
        return super().get_queryset(request).defer("content", "content_digest")

    @admin.display(description="category")
    def category_shown(self, obj: ShortTermMemory) -> str:
        return category_shown(obj.category)

    @admin.display(boolean=True, description="sensitive")
    def sensitive_shown(self, obj: ShortTermMemory) -> bool:
        return obj.sensitive

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        return not by_category(lookup) and super().lookup_allowed(lookup, value, request)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(OperatorAccessRecord)
class OperatorAccessRecordAdmin(PlatformOnlyMixin, admin.ModelAdmin):
    """Read-only: why member data was read through the hierarchy tools."""

    list_display = ["created_at", "action", "actor_type", "actor_role", "target_member_id"]
    list_filter = ["action", "actor_type"]
    search_fields = ["=id", "=target_member_id", "=actor_id"]
    ordering = ["-created_at"]
