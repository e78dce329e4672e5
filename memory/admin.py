"""Operators' read-only view of memory: metadata only, never what a member said.

Bodies, subjects, relationship notes, actor handles, suppression notes, revision content,
turn text, conflict keys (they embed the subject) and term statistics (their stems spell
the body) are neither displayed nor searchable: content reaches an operator only through
a granted inspection. Search takes exact ids only, so it cannot probe content either.
"""

from django.contrib import admin

from iris_site.admin_readonly import ReadOnlyModelAdmin
from memory.models import (
    ConversationTurn,
    MemoryClearRequest,
    MemoryEntry,
    MemoryNotice,
    MemoryRevision,
    OffTheRecordSession,
    RecallRecord,
)


@admin.register(MemoryEntry)
class MemoryEntryAdmin(ReadOnlyModelAdmin):
    list_display = [
        "id",
        "member_id",
        "scope_kind",
        "category",
        "origin",
        "lifecycle",
        "revision_count",
        "reference_count",
        "updated_at",
    ]
    list_filter = ["scope_kind", "lifecycle", "origin", "category"]
    search_fields = ["=id", "=member__id", "=tenant_id"]
    date_hierarchy = "updated_at"
    fields = [
        "id",
        "member_id",
        "tenant_id",
        "operator_id",
        "scope_kind",
        "category",
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
