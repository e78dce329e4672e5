from django.contrib import admin

from continuity.models import ContinuationToken, ContinuityNotice, IdempotencyRecord


class ReadOnlyAdmin(admin.ModelAdmin):
    """Continuity state is written by the surfaces through the service, never by hand."""

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ContinuationToken)
class ContinuationTokenAdmin(ReadOnlyAdmin):
    """Each member's current token per surface and scope: references and posture only."""

    list_display = ["member", "surface", "posture", "device_id", "revision", "recorded_at"]
    list_filter = ["surface", "posture", "is_sensitive"]
    search_fields = ["=member__id", "member__email", "=id", "=token_id"]
    ordering = ["-recorded_at"]
    list_select_related = ["member"]


@admin.register(ContinuityNotice)
class ContinuityNoticeAdmin(ReadOnlyAdmin):
    list_display = [
        "member",
        "kind",
        "device_id",
        "winning_device_id",
        "created_at",
        "delivered_at",
    ]
    list_filter = ["kind"]
    search_fields = ["=member__id", "member__email", "=id"]
    ordering = ["-created_at"]
    list_select_related = ["member"]


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ["member", "key", "created_at"]
    search_fields = ["=member__id", "member__email", "=key"]
    ordering = ["-created_at"]
    list_select_related = ["member"]
