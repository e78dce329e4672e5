"""The inspection workflow in the admin console: open a request, move it along its path
(the same service as the API, so the same gate, audit and refusals), read the snapshot
while granted, close it. Nothing here edits a row directly.
"""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from inspection.enums import InspectionState
from inspection.models import InspectionEvent, InspectionNotice, InspectionRequest
from inspection.selectors import inspection_event_list, inspection_list
from inspection.services import (
    MAX_INCIDENT_REF_LENGTH,
    MAX_JUSTIFICATION_LENGTH,
    inspection_open,
    inspection_read,
    inspection_transition,
)
from iris_site.admin_readonly import ListedLookupsOnly, ReadOnlyModelAdmin
from iris_site.errors import DomainError


def _operator_profile(user):
    if not getattr(user, "is_operator", False):
        return None
    try:
        return user.operator_profile
    except ObjectDoesNotExist:
        return None


class InspectionOpenForm(forms.Form):
    target_user_id = forms.UUIDField(label="Member id")
    scope = forms.JSONField(
        initial={"kind": "profile"},
        help_text='A memory scope key, e.g. {"kind": "session", "session_id": "s-1"}; '
        "the member's user_id is filled in.",
    )
    include_sensitive = forms.BooleanField(
        required=False, help_text="Does the request cover sensitive categories?"
    )
    justification = forms.CharField(
        widget=forms.Textarea,
        max_length=MAX_JUSTIFICATION_LENGTH,
        help_text="Why you need to look. Kept on the request, never in audit events.",
    )
    signed_incident_ref = forms.CharField(
        required=False,
        max_length=MAX_INCIDENT_REF_LENGTH,
        help_text="The incident system's signed reference, `<incident id>.<HMAC>` "
        "(needed on incident escalation).",
    )
    dsar_request_id = forms.UUIDField(
        required=False,
        label="Data-rights request id",
        help_text="The member's open data-rights request (needed on DSAR fulfillment).",
    )


def _move(to: str, description: str, *, carveout: bool = False):
    def action(modeladmin, request, queryset):
        for inspection in queryset:
            try:
                result = inspection_transition(
                    inspection=inspection,
                    to=to,
                    operator=request.user,
                    investigation_carveout=carveout or None,
                )
            except DomainError as error:
                modeladmin.message_user(
                    request,
                    f"Inspection {inspection.pk}: refused ({error.code}): {error.message}",
                    messages.ERROR,
                )
                continue
            state = result.inspection.state
            if state == InspectionState.DENIED and to == InspectionState.GRANTED:
                modeladmin.message_user(
                    request,
                    f"Inspection {inspection.pk}: denied by the policy gate "
                    f"({result.inspection.reason_code}): {result.gate_explanation}",
                    messages.WARNING,
                )
            else:
                modeladmin.message_user(request, f"Inspection {inspection.pk}: now {state}.")

    action.__name__ = f"move_to_{to.replace('-', '_')}" + ("_carveout" if carveout else "")
    return admin.action(description=description)(action)


@admin.register(InspectionRequest)
class InspectionRequestAdmin(ListedLookupsOnly, admin.ModelAdmin):
    # `inspection_list` shows an operator only the requests its tenant binding allows.
    scopes_by_tenant = True
    """Requests visible to this operator (its own, those on the paths its role approves;
    admin oversight sees all)."""

    list_display = [
        "id",
        "state",
        "path",
        "operator",
        "operator_role",
        "member",
        "scope_kind",
        "include_sensitive",
        "reason_code",
        "created_at",
        "expires_at",
    ]
    list_filter = ["state", "path", "operator_role", "include_sensitive", "reason_code"]
    search_fields = ["=id", "=member__id", "=operator__id", "=member__email"]
    ordering = ["-created_at"]
    date_hierarchy = "created_at"
    list_select_related = ["operator", "member"]
    fields = [
        "id",
        "state",
        "path",
        "operator",
        "operator_role",
        "operator_tenant_id",
        "member",
        "target_tenant_id",
        "scope",
        "include_sensitive",
        "justification",
        "signed_incident_ref",
        "dsar_request_id",
        "granted_by",
        "reason_code",
        "investigation_carveout",
        "consent_snapshot_event_id",
        "snapshot_fingerprint",
        "created_at",
        "decide_by",
        "granted_at",
        "expires_at",
        "closed_at",
        "snapshot",
        "steps",
    ]
    actions = [
        _move(InspectionState.DSAR_FULFILLMENT, "Route to DSAR fulfillment"),
        _move(InspectionState.INCIDENT_ESCALATION, "Route to incident escalation"),
        _move(InspectionState.ROUTINE_REVIEW, "Route to routine review"),
        _move(
            InspectionState.GRANTED,
            "Grant (runs the policy gate; a sensitive request needs a second operator)",
        ),
        _move(InspectionState.DENIED, "Deny"),
        _move(InspectionState.CLOSED, "Close"),
        _move(InspectionState.CLOSED, "Close with an investigation carve-out", carveout=True),
    ]

    def get_readonly_fields(self, request, obj=None):
        return self.fields

    # --- who sees what --------------------------------------------------------------------

    def get_queryset(self, request):
        if _operator_profile(request.user) is not None:
            return inspection_list(operator=request.user)
        if request.user.is_superuser:
            return super().get_queryset(request)
        return InspectionRequest.objects.none()

    def has_module_permission(self, request) -> bool:
        return _operator_profile(request.user) is not None or request.user.is_superuser

    def has_view_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request) -> bool:
        return _operator_profile(request.user) is not None

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    # --- read-only extras -----------------------------------------------------------------

    @admin.display(description="Snapshot")
    def snapshot(self, obj: InspectionRequest) -> str:
        if obj.state != InspectionState.GRANTED:
            return "Readable only while granted."
        url = reverse("admin:inspection_inspectionrequest_snapshot", args=[obj.pk])
        return format_html(
            '<a href="{}">Read the snapshot</a> (requester only; the read is recorded)', url
        )

    @admin.display(description="Steps")
    def steps(self, obj: InspectionRequest) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    e.sequence,
                    e.from_state or "—",
                    e.to_state,
                    e.reason_code or "—",
                    f"{e.actor_type} {e.actor_role}".strip(),
                    e.occurred_at.isoformat(timespec="seconds"),
                )
                for e in inspection_event_list(inspection_id=obj.pk)
            ),
        )
        return format_html(
            "<table><thead><tr><th>#</th><th>from</th><th>to</th><th>reason</th>"
            "<th>actor</th><th>at</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )

    # --- opening and reading --------------------------------------------------------------

    def get_urls(self):
        return [
            path(
                "<uuid:pk>/snapshot/",
                self.admin_site.admin_view(self.snapshot_view),
                name="inspection_inspectionrequest_snapshot",
            ),
            *super().get_urls(),
        ]

    def add_view(self, request, form_url="", extra_context=None):
        if not self.has_add_permission(request):
            return self._forbidden(request)
        form = InspectionOpenForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                inspection = inspection_open(
                    operator=request.user,
                    member_id=data["target_user_id"],
                    scope=data["scope"],
                    justification=data["justification"],
                    include_sensitive=data["include_sensitive"],
                    signed_incident_ref=data["signed_incident_ref"] or None,
                    dsar_request_id=data["dsar_request_id"],
                )
            except DomainError as error:
                form.add_error(None, f"Refused ({error.code}): {error.message}")
                for name, problems in error.fields.items():
                    key = name.split(".")[0]
                    form.add_error(key if key in form.fields else None, problems)
            else:
                self.message_user(request, f"Inspection {inspection.pk} requested.")
                return HttpResponseRedirect(
                    reverse("admin:inspection_inspectionrequest_change", args=[inspection.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Open an inspection request",
            "form": form,
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/inspection/open.html", context)

    def snapshot_view(self, request, pk):
        if _operator_profile(request.user) is None:
            return self._forbidden(request)
        inspection = get_object_or_404(self.get_queryset(request), pk=pk)
        change_url = reverse("admin:inspection_inspectionrequest_change", args=[pk])
        try:
            view = inspection_read(inspection=inspection, operator=request.user)
        except DomainError as error:
            self.message_user(request, f"Refused ({error.code}): {error.message}", messages.ERROR)
            return HttpResponseRedirect(change_url)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Snapshot of inspection {pk}",
            "inspection": view.inspection,
            "items": view.items,
            "change_url": change_url,
        }
        return TemplateResponse(request, "admin/inspection/snapshot.html", context)

    def _forbidden(self, request):
        raise PermissionDenied


@admin.register(InspectionEvent)
class InspectionEventAdmin(ReadOnlyModelAdmin):
    """The append-only steps of every inspection."""

    list_display = ["inspection", "sequence", "from_state", "to_state", "reason_code", "actor_role"]
    list_filter = ["to_state", "reason_code", "actor_type"]
    search_fields = ["=inspection__id", "=member_id"]
    ordering = ["-occurred_at"]


@admin.register(InspectionNotice)
class InspectionNoticeAdmin(ReadOnlyModelAdmin):
    """Member notices of sensitive inspections, and whether they were delivered in time."""

    list_display = ["id", "member", "inspection", "state", "queued_at", "due_at", "delivered_at"]
    list_filter = ["state"]
    search_fields = ["=member__id", "=inspection__id"]
    ordering = ["-queued_at"]
