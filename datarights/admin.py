"""The data-rights work queue in the admin console: read-only, soonest deadline first,
with the deadline coloured by urgency (CSS classes from a static sheet: the CSP blocks
inline styles). Operators act on the console's queue (/console/data-rights/, legal and
admin) or through the operator API (or the member through their page); the admin never
changes a request or its trail."""

from datetime import timedelta

from django.contrib import admin
from django.utils import timezone
from django.utils.html import format_html

from datarights.enums import FINISHED_STATUSES, RequestStatus
from datarights.models import DataRightsRequest, DataRightsTrailEntry
from datarights.policy import receipt_timing
from datarights.selectors import datarights_queue
from iris_site.admin_readonly import ListedLookupsOnly, NoWritesMixin
from iris_site.audit.sealing import payload_listed

DUE_SOON = timedelta(days=7)


class DeadlineFilter(admin.SimpleListFilter):
    title = "deadline"
    parameter_name = "deadline"

    def lookups(self, request, model_admin):
        return [("overdue", "Past the deadline"), ("soon", "Due within 7 days"), ("open", "Open")]

    def queryset(self, request, queryset):
        now = timezone.now()
        open_requests = queryset.exclude(status__in=sorted(FINISHED_STATUSES))
        if self.value() == "overdue":
            return open_requests.filter(due_at__lt=now)
        if self.value() == "soon":
            return open_requests.filter(due_at__gte=now, due_at__lt=now + DUE_SOON)
        if self.value() == "open":
            return open_requests
        return queryset


class TrailInline(NoWritesMixin, admin.TabularInline):
    model = DataRightsTrailEntry
    fields = ["sequence", "event", "status", "at", "actor", "detail"]
    readonly_fields = fields
    extra = 0
    ordering = ["sequence"]
    can_delete = False


@admin.register(DataRightsRequest)
class DataRightsRequestAdmin(NoWritesMixin, ListedLookupsOnly, admin.ModelAdmin):
    list_display = [
        "id",
        "member_id",
        "kind",
        "status",
        "received_at",
        "deadline",
        "verification_method",
        "has_fingerprint",
    ]
    list_filter = [DeadlineFilter, "status", "kind", "verification_method", "failure_code"]
    search_fields = ["=id", "=member__id"]
    ordering = ["due_at", "id"]
    date_hierarchy = "received_at"
    show_full_result_count = False
    inlines = [TrailInline]
    # The operator API's queue: a tenant-bound operator sees its tenant's members only.
    scopes_by_tenant = True
    # No content: payloads hold enums and flags; the scratch state is never shown.
    fields = [
        "id",
        "member_id",
        "kind",
        "status",
        "listed_payload",
        "received_at",
        "verify_by",
        "verified_at",
        "verification_method",
        "deadline_at",
        "extended_deadline_at",
        "extension_reason",
        "due_at",
        "started_at",
        "finished_at",
        "grace_ends_at",
        "result_fingerprint",
        "failure_code",
        "appeal_reason",
        "progress",
        "artifact_encrypted",
        "artifact_size",
        "download_expires_at",
        "artifact_removed_at",
    ]
    readonly_fields = fields

    class Media:
        css = {"all": ["datarights/admin.css"]}

    @admin.display(description="payload")
    def listed_payload(self, obj: DataRightsRequest) -> dict:
        """A special category as `special-category`: the admin is never inside a cover
        (issue 42)."""
        return payload_listed(obj.payload)

    def get_queryset(self, request):
        profile = getattr(request.user, "operator_profile", None)
        if profile is None:  # a superuser without an operator role: the whole queue
            return super().get_queryset(request)
        return datarights_queue(tenant_id=profile.tenant_id)

    @admin.display(description="deadline", ordering="due_at")
    def deadline(self, obj: DataRightsRequest):
        timing = receipt_timing(due_at=obj.due_at, now=timezone.now(), finished_at=obj.finished_at)
        finished = obj.status in FINISHED_STATUSES and obj.status != RequestStatus.FAILED
        if timing.is_past_deadline:
            state, label = "overdue", "overdue"
        elif finished:
            state, label = "done", "done"
        elif timing.ms_remaining_to_deadline < DUE_SOON.total_seconds() * 1000:
            state, label = "soon", "due soon"
        else:
            state, label = "ok", "on time"
        return format_html(
            '<span class="deadline deadline-{}">{} · {}</span>',
            state,
            obj.due_at.strftime("%Y-%m-%d %H:%M"),
            label,
        )

    @admin.display(boolean=True, description="fingerprint")
    def has_fingerprint(self, obj: DataRightsRequest) -> bool:
        return bool(obj.result_fingerprint)
