from django.contrib import admin

from consent.models import ConsentEvent, OptOutEvent
from iris_site.admin_readonly import ReadOnlyModelAdmin


@admin.register(ConsentEvent)
class ConsentEventAdmin(ReadOnlyModelAdmin):
    """The ledger, read-only: filter by member to see one member's history in order."""

    list_display = ["member", "sequence", "consent_type", "kind", "legal_basis", "occurred_at"]
    list_filter = ["kind", "consent_type", "capture_method", "legal_basis"]
    search_fields = ["=member__id", "member__email", "=id"]
    ordering = ["member", "-sequence"]
    list_select_related = ["member"]


@admin.register(OptOutEvent)
class OptOutEventAdmin(ReadOnlyModelAdmin):
    """The opt-out ledger, read-only."""

    list_display = ["member", "sequence", "category", "kind", "occurred_at"]
    list_filter = ["kind", "category"]
    search_fields = ["=member__id", "member__email", "=id"]
    ordering = ["member", "-sequence"]
    list_select_related = ["member"]
