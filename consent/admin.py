from django.contrib import admin

from consent.enums import SensitiveCategory, category_consent_type
from consent.models import ConsentEvent, OptOutEvent
from iris_site.admin_readonly import ReadOnlyModelAdmin
from iris_site.audit.sealing import MARKER

SPECIAL_CONSENT_TYPES = frozenset(category_consent_type(c) for c in SensitiveCategory.values)


@admin.register(ConsentEvent)
class ConsentEventAdmin(ReadOnlyModelAdmin):
    """The ledger, read-only: filter by member to see one member's history in order.

    A consent type naming a special category shows as `special-category`, and no list
    filters by consent type: "this member consented to mental-health memory" is itself a
    special-category fact (issue 42)."""

    list_display = [
        "member",
        "sequence",
        "consent_type_shown",
        "kind",
        "legal_basis",
        "occurred_at",
    ]
    list_filter = ["kind", "capture_method", "legal_basis"]
    search_fields = ["=member__id", "member__email", "=id"]
    ordering = ["member", "-sequence"]
    list_select_related = ["member"]
    exclude = ["consent_type"]

    def get_readonly_fields(self, request, obj=None):
        fields = [f.name for f in self.model._meta.fields if f.name != "consent_type"]
        return ["consent_type_shown", *fields]

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        # A hand-made `?consent_type=category:…` filter is refused too.
        return "consent_type" not in lookup and super().lookup_allowed(lookup, value, request)

    @admin.display(description="consent type")
    def consent_type_shown(self, obj: ConsentEvent) -> str:
        return MARKER if obj.consent_type in SPECIAL_CONSENT_TYPES else obj.consent_type


@admin.register(OptOutEvent)
class OptOutEventAdmin(ReadOnlyModelAdmin):
    """The opt-out ledger, read-only."""

    list_display = ["member", "sequence", "category", "kind", "occurred_at"]
    list_filter = ["kind", "category"]
    search_fields = ["=member__id", "member__email", "=id"]
    ordering = ["member", "-sequence"]
    list_select_related = ["member"]
