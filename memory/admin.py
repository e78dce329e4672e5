"""Operators' read-only view of memory: metadata only, never what a member said.

Bodies, subjects, relationship notes, actor handles, suppression notes, revision content,
turn text, conflict keys and term statistics are neither displayed nor searchable (the
text columns are sealed under the member's key, the keys and statistics are the member's
keyed tokens; rows written before sealing hold plain text until `keys_encrypt`): content
reaches an operator only through a granted inspection. Search takes exact ids only, so
it cannot probe content either.

Nor is a special category: "this member has mental-health memory" is itself one. An
entry's category shows as `special-category` when it is one of the sensitive categories,
and no list filters or sorts by category (issue 42).

The one table an operator changes here holds no member data: a platform operator's
narrowing of a service client's capabilities, written through its service.
"""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from iris_site.admin_readonly import PlatformOnlyMixin, ReadOnlyModelAdmin
from iris_site.audit.events import Actor
from iris_site.audit.sealing import MARKER as SPECIAL_CATEGORY
from iris_site.models import ServiceClient
from memory.access.capabilities import capabilities_for
from memory.enums import MemoryCategory, RecallContext, is_sensitive_category
from memory.models import (
    ConversationTurn,
    MemoryClearRequest,
    MemoryEntry,
    MemoryNotice,
    MemoryRevision,
    OffTheRecordSession,
    RecallRecord,
    ServiceClientCapabilities,
)
from memory.services import service_client_capabilities_set


def category_shown(category: str) -> str:
    """A category as the admin shows it (its label): a special one only as the marker."""
    if is_sensitive_category(category):
        return SPECIAL_CATEGORY
    return MemoryCategory(category).label if category in MemoryCategory.values else category


def by_category(lookup: str) -> bool:
    """A hand-made `?category=…` (or `?content__category=…`) filter: the admin lets any
    lookup on a model's own fields through unless refused here."""
    return "category" in lookup or "sensitive" in lookup


@admin.register(MemoryEntry)
class MemoryEntryAdmin(ReadOnlyModelAdmin):
    list_display = [
        "id",
        "member_id",
        "scope_kind",
        "category_shown",
        "origin",
        "lifecycle",
        "revision_count",
        "reference_count",
        "updated_at",
    ]
    list_filter = ["scope_kind", "lifecycle", "origin"]
    search_fields = ["=id", "=member__id", "=tenant_id"]
    date_hierarchy = "updated_at"
    fields = [
        "id",
        "member_id",
        "tenant_id",
        "operator_id",
        "scope_kind",
        "category_shown",
        "origin",
        "lifecycle",
        "confidence",
        "suppression_reason",
        "suppression_started_at",
        "suppression_ends_at",
        "mentions_someone",
        "sensitive_interaction",
        "provenance_count",
        "revision_id",
        "revision_count",
        "reference_count",
        "last_referenced_at",
        "created_at",
        "updated_at",
    ]

    def get_queryset(self, request):
        # The content columns are not even loaded.
        return (
            super()
            .get_queryset(request)
            .defer("body", "subject", "relationship_note", "suppression_notes", "term_stats")
        )

    @admin.display(description="category")
    def category_shown(self, obj: MemoryEntry) -> str:
        return category_shown(obj.category)

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        return not by_category(lookup) and super().lookup_allowed(lookup, value, request)

    @admin.display(boolean=True, description="mentions someone")
    def mentions_someone(self, obj: MemoryEntry) -> bool:
        return bool(obj.actor_handle)

    @admin.display(description="provenance links")
    def provenance_count(self, obj: MemoryEntry) -> int:
        return len(obj.provenance_chain)


@admin.register(MemoryRevision)
class MemoryRevisionAdmin(ReadOnlyModelAdmin):
    list_display = ["id", "entry_id", "member_id", "number", "action", "actor", "created_at"]
    list_filter = ["action"]
    search_fields = ["=id", "=entry__id", "=member_id"]
    date_hierarchy = "created_at"
    fields = [
        "id",
        "entry_id",
        "member_id",
        "number",
        "previous_revision_id",
        "action",
        "actor",
        "changed_fields",
        "created_at",
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("content")

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        return not by_category(lookup) and super().lookup_allowed(lookup, value, request)


@admin.register(ConversationTurn)
class ConversationTurnAdmin(ReadOnlyModelAdmin):
    list_display = ["id", "member_id", "session_id", "sequence", "speaker", "created_at"]
    list_filter = ["speaker", "consumer"]
    search_fields = ["=id", "=member__id", "=session_id"]
    date_hierarchy = "created_at"
    fields = [
        "id",
        "member_id",
        "session_id",
        "sequence",
        "speaker",
        "consumer",
        "redacted_kinds",
        "created_at",
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("text")


@admin.register(MemoryNotice)
class MemoryNoticeAdmin(ReadOnlyModelAdmin):
    list_display = ["id", "member_id", "kind", "state", "rule", "created_at", "answered_at"]
    list_filter = ["kind", "state"]
    search_fields = ["=id", "=member__id"]
    fields = [
        "id",
        "member_id",
        "kind",
        "state",
        "entry_id",
        "proposed_entry_id",
        "rule",
        "created_at",
        "answered_at",
    ]


@admin.register(MemoryClearRequest)
class MemoryClearRequestAdmin(ReadOnlyModelAdmin):
    list_display = ["id", "member_id", "state", "entry_count", "requested_at", "purge_after"]
    list_filter = ["state"]
    search_fields = ["=id", "=member__id"]
    fields = [
        "id",
        "member_id",
        "state",
        "entry_count",
        "requested_at",
        "purge_after",
        "finished_at",
    ]

    @admin.display(description="entries")
    def entry_count(self, obj: MemoryClearRequest) -> int:
        return len(obj.entry_ids)


@admin.register(OffTheRecordSession)
class OffTheRecordSessionAdmin(ReadOnlyModelAdmin):
    list_display = ["id", "member_id", "session_id", "active", "changed_at"]
    list_filter = ["active"]
    search_fields = ["=id", "=member__id", "=session_id"]
    fields = ["id", "member_id", "session_id", "active", "changed_at"]


@admin.register(RecallRecord)
class RecallRecordAdmin(ReadOnlyModelAdmin):
    list_display = ["id", "member_id", "surface", "consumer", "context", "created_at"]
    list_filter = ["surface", "consumer", "context"]
    search_fields = ["=id", "=member__id"]
    date_hierarchy = "created_at"
    fields = [
        "id",
        "member_id",
        "surface",
        "consumer",
        "context",
        "returned_count",
        "evaluated_count",
        "created_at",
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("rationales")

    @admin.display(description="returned")
    def returned_count(self, obj: RecallRecord) -> int:
        return len(obj.returned_ids)


CAPABILITY_DIMENSIONS = ("surfaces", "contexts", "read_kinds", "write_kinds")


class ServiceClientCapabilitiesForm(forms.ModelForm):
    """Each dimension offers exactly the client's consumer capabilities, so an operator
    can only take away; every box ticked means "as the table says" (stored as null, so
    the client follows the table). The general context always stays, so it is not offered.

    The choices depend on the client: on the add page they are shown once a client is
    chosen (the first submit shows them, all ticked, and saves nothing)."""

    surfaces = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    contexts = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="The general context always stays.",
    )
    read_kinds = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Scope kinds it may read"
    )
    write_kinds = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Scope kinds it may write"
    )
    # The client whose choices the boxes were rendered for.
    shown_for = forms.CharField(required=False, widget=forms.HiddenInput)

    class Meta:
        model = ServiceClientCapabilities
        fields = ["service_client", "reason"]
        widgets = {"reason": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        client = self._client()
        self.offered = {name: self._offered(client, name) for name in CAPABILITY_DIMENSIONS}
        for name, offered in self.offered.items():
            self.fields[name].choices = [(value, value) for value in offered]
            # The instance's null (not narrowed) shows as every box ticked.
            stored = getattr(self.instance, name) if self.instance.pk else None
            self.initial[name] = offered if stored is None else stored
        self.fields["shown_for"].initial = str(client.pk) if client else ""
        self.choosing = client is None or (
            self.is_bound and self.data.get("shown_for") != str(client.pk)
        )
        if self.is_bound and client is not None and self.choosing:
            # The boxes were not on the page yet: show them, all ticked, before saving.
            self.data = self.data.copy()
            for name, offered in self.offered.items():
                self.data.setlist(name, offered)
            self.data["shown_for"] = str(client.pk)

    def _client(self) -> ServiceClient | None:
        if self.instance.pk:
            return self.instance.service_client
        chosen = (
            self.data.get("service_client") if self.is_bound else self.initial.get("service_client")
        )
        return ServiceClient.objects.filter(pk=chosen).first() if chosen else None

    @staticmethod
    def _offered(client: ServiceClient | None, name: str) -> list[str]:
        if client is None:
            return []
        offered = getattr(capabilities_for(client.consumer), name)
        return sorted(str(value) for value in offered if value != RecallContext.GENERAL)

    def clean(self):
        cleaned = super().clean()
        if self.choosing:
            raise ValidationError("Choose what this client keeps, then save.")
        return cleaned

    def narrowing(self) -> dict[str, list[str] | None]:
        """Each dimension as the service takes it: null when nothing was taken away."""
        chosen = {name: self.cleaned_data[name] for name in CAPABILITY_DIMENSIONS}
        return {
            name: None if set(values) == set(self.offered[name]) else values
            for name, values in chosen.items()
        }


@admin.register(ServiceClientCapabilities)
class ServiceClientCapabilitiesAdmin(PlatformOnlyMixin, admin.ModelAdmin):
    """Platform operators narrow one service client (a table of every tenant's clients:
    never shown to a tenant-bound operator). Saving goes through the one writer, which
    refuses a widening and records the audit event; a narrowing is never deleted here,
    it is set back to the table by ticking every box."""

    form = ServiceClientCapabilitiesForm
    list_display = ["service_client", "surfaces", "contexts", "read_kinds", "updated_at"]
    list_select_related = ["service_client"]
    search_fields = ["=service_client__id", "service_client__label"]
    readonly_fields = ["updated_at"]

    def get_readonly_fields(self, request, obj=None):
        return [*self.readonly_fields, "service_client"] if obj else self.readonly_fields

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        service_client_capabilities_set(
            service_client=obj.service_client,
            actor=Actor.of(request.user),
            reason=form.cleaned_data["reason"],
            **form.narrowing(),
        )
