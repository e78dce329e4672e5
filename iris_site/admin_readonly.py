"""Admin building blocks: who may see a table, and tables shown but never changed."""

from django.contrib import admin
from django.core.exceptions import ObjectDoesNotExist


def operator_tenant_bound(user) -> bool:
    """An operator bound to one tenant (platform operators and superusers are not)."""
    if not getattr(user, "is_operator", False):
        return False
    try:
        return user.operator_profile.tenant_id is not None
    except ObjectDoesNotExist:
        return False


class PlatformOnlyMixin:
    """A table that spans every tenant: never shown to an operator bound to one tenant,
    whatever permissions they were given. An admin that scopes its rows to the
    operator's tenant itself declares `scopes_by_tenant = True` instead."""

    def has_module_permission(self, request) -> bool:
        return not operator_tenant_bound(request.user) and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return not operator_tenant_bound(request.user) and super().has_view_permission(request, obj)

    def has_change_permission(self, request, obj=None) -> bool:
        return not operator_tenant_bound(request.user) and super().has_change_permission(
            request, obj
        )

    def has_add_permission(self, request, *args) -> bool:
        return not operator_tenant_bound(request.user) and super().has_add_permission(
            request, *args
        )

    def has_delete_permission(self, request, obj=None) -> bool:
        return not operator_tenant_bound(request.user) and super().has_delete_permission(
            request, obj
        )


class NoWritesMixin:
    """No add, change or delete from the console: services are the only writers."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyModelAdmin(PlatformOnlyMixin, NoWritesMixin, admin.ModelAdmin):
    """Every field read-only; a subclass that lists `fields` shows exactly those."""

    def get_readonly_fields(self, request, obj=None):
        return self.fields or [field.name for field in self.model._meta.fields]
