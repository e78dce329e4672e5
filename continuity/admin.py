from django.contrib import admin

from continuity.models import ContinuationToken, ContinuityNotice
from iris_site.admin_readonly import ReadOnlyModelAdmin


@admin.register(ContinuationToken)
class ContinuationTokenAdmin(ReadOnlyModelAdmin):
    """Each member's current token per surface and scope: references and posture only."""

    list_display = ["member", "surface", "posture", "device_id", "revision", "recorded_at"]
    list_filter = ["surface", "posture", "is_sensitive"]
    search_fields = ["=member__id", "member__email", "=id", "=token_id"]
    ordering = ["-recorded_at"]
    list_select_related = ["member"]


@admin.register(ContinuityNotice)
class ContinuityNoticeAdmin(ReadOnlyModelAdmin):
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
