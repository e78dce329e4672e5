from django.contrib import admin

from consent.models import ConsentEvent


@admin.register(ConsentEvent)
class ConsentEventAdmin(admin.ModelAdmin):
    """The ledger, read-only: filter by member to see one member's history in order."""

    list_display = ["member", "sequence", "consent_type", "kind", "legal_basis", "occurred_at"]
    list_filter = ["kind", "consent_type", "capture_method", "legal_basis"]
    search_fields = ["=member__id", "member__email", "=id"]
    ordering = ["member", "-sequence"]
    list_select_related = ["member"]

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
