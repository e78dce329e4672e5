"""Admin building blocks: who may see a table, and tables shown but never changed."""

from django.contrib import admin
from django.core.exceptions import ObjectDoesNotExist
from django.db.models.constants import LOOKUP_SEP


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


class ListedLookupsOnly:
    """A changelist filters only by what it offers: its list filters and its date
    drill-down. Django lets any `?<own field>__<lookup>=` through, so a hand-made
    `?body__icontains=…`, `?consent__icontains=mental_health` or `?payload__category=…`
    would be an oracle on content and special categories (issue 42); it is refused as a
    disallowed lookup (400)."""

    def _offered_lookup_roots(self) -> set[str]:
        roots: set[str] = set()
        for spec in self.list_filter:
            if isinstance(spec, str):
                roots.add(spec.split(LOOKUP_SEP)[0])
            elif isinstance(spec, list | tuple):
                roots.add(str(spec[0]).split(LOOKUP_SEP)[0])
            elif getattr(spec, "parameter_name", None):
                roots.add(spec.parameter_name)
        if self.date_hierarchy:
            roots.add(self.date_hierarchy.split(LOOKUP_SEP)[0])
        return roots

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        if lookup.split(LOOKUP_SEP)[0] not in self._offered_lookup_roots():
            return False
        return super().lookup_allowed(lookup, value, request)


class ReadOnlyModelAdmin(PlatformOnlyMixin, NoWritesMixin, ListedLookupsOnly, admin.ModelAdmin):
    """Every field read-only; a subclass that lists `fields` shows exactly those."""

    def get_readonly_fields(self, request, obj=None):
        return self.fields or [field.name for field in self.model._meta.fields]
