"""Admin for append-only and service-owned tables: shown to operators, never changed."""

from django.contrib import admin


class NoWritesMixin:
    """No add, change or delete from the console: services are the only writers."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyModelAdmin(NoWritesMixin, admin.ModelAdmin):
    """Every field read-only; a subclass that lists `fields` shows exactly those."""

    def get_readonly_fields(self, request, obj=None):
        return self.fields or [field.name for field in self.model._meta.fields]
