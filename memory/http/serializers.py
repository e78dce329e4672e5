"""The memory API's wire shapes for the OpenAPI document and for DRF-validated input.

Entries leave the API as `memory.selectors.entry_contract(entry).model_dump(mode="json")`
(the seed's contract, exactly); the serializers below describe that shape for the
schema. Write bodies are validated by the pydantic contracts, not by these serializers.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from memory.contracts import (
    MAX_BODY_LENGTH,
    MAX_NOTE_LENGTH,
    MAX_PROVENANCE_REF_LENGTH,
    MAX_SUBJECT_LENGTH,
    PROVENANCE_REF_PATTERN,
)
from memory.enums import (
    ConsentSource,
    EntryAuditAction,
    Lifecycle,
    MemoryCategory,
    Origin,
    ProvenanceKind,
    ScopeKind,
    SuppressionReason,
)
from memory.labels import scope_label
from memory.models import ConversationTurn, MemoryClearRequest, MemoryNotice, MemoryRevision


# The one wire shape of a scope key (its identifiers: `memory.contracts.SCOPE_IDENTIFIERS`);
# another API documents `kind` or `user_id` its own way by a subclass that redeclares them
# (e.g. `inspection.serializers.InspectionScopeSerializer`), keeping the fields' order.
class MemoryScopeSerializer(serializers.Serializer):
    """A scope key: `kind` plus exactly the identifiers that kind needs."""

    kind = serializers.ChoiceField(choices=ScopeKind.choices)
    user_id = serializers.UUIDField(
        required=False, help_text="Always the member; may be left out on writes."
    )
    session_id = serializers.CharField(required=False, help_text="session, scene, pose")
    scene_id = serializers.CharField(required=False, help_text="scene, pose")
    room_id = serializers.CharField(required=False, help_text="scene")
    pose_id = serializers.CharField(required=False, help_text="pose")
    avatar_id = serializers.CharField(required=False, help_text="pose")
    notebook_id = serializers.CharField(required=False, help_text="notebook")
    operator_id = serializers.UUIDField(required=False, help_text="operator-copilot")
    tenant_id = serializers.UUIDField(required=False, help_text="tenant")


class MemoryConsentEntrySerializer(serializers.Serializer):
    category = serializers.ChoiceField(choices=MemoryCategory.choices)
    granted_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)
    source = serializers.ChoiceField(choices=ConsentSource.choices)


class MemoryProvenanceLinkSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ProvenanceKind.choices)
    ref = serializers.RegexField(
        PROVENANCE_REF_PATTERN,
        max_length=MAX_PROVENANCE_REF_LENGTH,
        help_text="The id of the record it came from (a turn's uuid, `short-term:<uuid>`, "
        "an importer's id): ASCII letters, digits and `._:/#@+=-`, no spaces. Provenance "
        "is stored unsealed, so a ref is an id, never the member's words.",
    )
    captured_at = serializers.DateTimeField()


class MemorySuppressionSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=SuppressionReason.choices)
    started_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(allow_null=True, required=False)
    notes = serializers.CharField(max_length=MAX_NOTE_LENGTH, allow_blank=True, required=False)


class MemoryMultiActorSerializer(serializers.Serializer):
    actor_handle = serializers.CharField(help_text="An opaque keyed hash, never a name.")
    relationship_note = serializers.CharField(max_length=MAX_NOTE_LENGTH, allow_blank=True)
    sensitive_interaction = serializers.BooleanField()


class MemoryAuditEntrySerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    action = serializers.ChoiceField(choices=EntryAuditAction.choices)
    actor = serializers.CharField(help_text="member, system, consumer:<name> or operator:<id>")
    revision_id = serializers.UUIDField()


class MemoryEntrySerializer(serializers.Serializer):
    """One memory as the seed's `MemoryEntry` contract (plus `subject`)."""

    id = serializers.UUIDField()
    revision_id = serializers.UUIDField()
    previous_revision_id = serializers.UUIDField(allow_null=True)
    user_id = serializers.UUIDField()
    tenant_id = serializers.UUIDField(allow_null=True)
    scope = MemoryScopeSerializer()
    category = serializers.ChoiceField(choices=MemoryCategory.choices)
    subject = serializers.CharField(allow_null=True)
    body = serializers.CharField()
    confidence = serializers.FloatField(min_value=0.0, max_value=1.0)
    origin = serializers.ChoiceField(choices=Origin.choices)
    lifecycle = serializers.ChoiceField(choices=Lifecycle.choices)
    consent = MemoryConsentEntrySerializer(many=True)
    provenance_chain = MemoryProvenanceLinkSerializer(many=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    last_referenced_at = serializers.DateTimeField(allow_null=True)
    reference_count = serializers.IntegerField(min_value=0)
    suppression = MemorySuppressionSerializer(allow_null=True)
    multi_actor = MemoryMultiActorSerializer(allow_null=True)
    audit_chain = MemoryAuditEntrySerializer(many=True)
    created_at = serializers.DateTimeField(help_text="When Iris first learned it.")
    updated_at = serializers.DateTimeField()
    valid_from = serializers.DateTimeField(
        allow_null=True,
        help_text='When it became true, as the member\'s words said ("since 2019": the '
        "first instant of the year, month or day they named); null when they did not say.",
    )
    valid_from_precision = serializers.CharField(
        allow_blank=True,
        help_text="What `valid_from` was said to; empty when unsaid.",
    )
    valid_to = serializers.DateTimeField(
        allow_null=True,
        help_text='When it stopped being true, as the member said ("until March"); null '
        "when they did not say.",
    )
    valid_to_precision = serializers.CharField(
        allow_blank=True,
        help_text="What `valid_to` was said to; empty when unsaid.",
    )


class MemoryRecentRecallSerializer(serializers.Serializer):
    surface = serializers.CharField()
    at = serializers.DateTimeField()
    rationale = serializers.CharField(allow_null=True)


class MemoryNoticeStoredInSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ScopeKind.choices)
    label = serializers.CharField(help_text="The scope in the member's words, e.g. `About you`.")


class MemoryNoticeSerializer(serializers.ModelSerializer):
    """A question Iris asks instead of deciding silently ("you mentioned X earlier —
    should I update?"): the member's entry and the proposal that would replace it."""

    entry_id = serializers.UUIDField(read_only=True)
    entry_body = serializers.CharField(source="entry.body", read_only=True)
    proposed_entry_id = serializers.UUIDField(read_only=True, allow_null=True)
    proposed_body = serializers.SerializerMethodField()
    stored_in = serializers.SerializerMethodField(
        help_text="Where accepting stores the proposal (an open question) or stored it "
        "(accepted): the corrected memory's scope, as its kind and in the member's words. "
        "Null once declined, and for a question without a proposal."
    )

    class Meta:
        model = MemoryNotice
        fields = [
            "id",
            "kind",
            "state",
            "rule",
            "entry_id",
            "entry_body",
            "proposed_entry_id",
            "proposed_body",
            "stored_in",
            "created_at",
            "answered_at",
        ]

    def get_proposed_body(self, notice: MemoryNotice) -> str | None:
        return notice.proposed_entry.body if notice.proposed_entry_id else None

    @extend_schema_field(MemoryNoticeStoredInSerializer(allow_null=True))
    def get_stored_in(self, notice: MemoryNotice) -> dict | None:
        if notice.proposed_entry_id is None or notice.state == MemoryNotice.State.DISMISSED:
            return None
        accepted = notice.state == MemoryNotice.State.ACCEPTED
        kind = (notice.proposed_entry if accepted else notice.entry).scope_kind
        return {"kind": kind, "label": str(scope_label(kind))}


class MemoryEntryDetailSerializer(MemoryEntrySerializer):
    recent_recalls = MemoryRecentRecallSerializer(
        many=True, help_text="The latest recalls that returned this memory (at most 10)."
    )
    pending_notice = MemoryNoticeSerializer(allow_null=True)


class MemoryRevisionSerializer(serializers.ModelSerializer):
    revision_id = serializers.UUIDField(source="id", read_only=True)
    previous_revision_id = serializers.UUIDField(read_only=True, allow_null=True)
    content = serializers.JSONField(
        read_only=True, help_text="The entry's contract fields as of this revision."
    )
    changed_fields = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = MemoryRevision
        fields = [
            "number",
            "revision_id",
            "previous_revision_id",
            "action",
            "actor",
            "changed_fields",
            "created_at",
            "content",
        ]


class MemoryMultiActorWriteSerializer(serializers.Serializer):
    actor_name = serializers.CharField(
        required=False, help_text="Hashed into a handle server-side; never stored."
    )
    actor_handle = serializers.CharField(required=False, help_text="A handle returned earlier.")
    relationship_note = serializers.CharField(
        max_length=MAX_NOTE_LENGTH, allow_blank=True, required=False
    )
    sensitive_interaction = serializers.BooleanField(required=False)


class MemoryCreateInputSerializer(serializers.Serializer):
    """A memory the member states: `origin` is always `user-stated`."""

    scope = MemoryScopeSerializer()
    category = serializers.ChoiceField(choices=MemoryCategory.choices)
    subject = serializers.CharField(max_length=MAX_SUBJECT_LENGTH, required=False, allow_null=True)
    body = serializers.CharField(max_length=MAX_BODY_LENGTH)
    multi_actor = MemoryMultiActorWriteSerializer(required=False, allow_null=True)


class MemoryRememberInputSerializer(MemoryCreateInputSerializer):
    """A memory a surface writes on the member's behalf."""

    origin = serializers.ChoiceField(choices=Origin.choices)
    confidence = serializers.FloatField(
        min_value=0.0,
        max_value=1.0,
        required=False,
        allow_null=True,
        help_text="Left out: derived from the origin.",
    )
    provenance = MemoryProvenanceLinkSerializer(many=True, required=False)
    suppression = MemorySuppressionSerializer(required=False, allow_null=True)


class MemoryKeptExistingSerializer(serializers.Serializer):
    """Nothing was stored: `kept-existing`, the conflict ladder kept the existing memory
    (a notice asks the member when a fact they stated would otherwise be overturned); or
    `unchanged`, the scope already holds this fact in these words (case, spacing and
    punctuation aside) from a source at least as strong, and `entry` is that memory:
    writing a fact twice stores it once, with or without an Idempotency-Key."""

    outcome = serializers.ChoiceField(choices=["kept-existing", "unchanged"])
    conflict_rule = serializers.CharField(
        allow_null=True, help_text="The ladder's rule for `kept-existing`; null for `unchanged`."
    )
    entry = MemoryEntrySerializer(
        allow_null=True,
        help_text="The memory that was kept; null to a surface the read gate withholds it "
        "from (paused, another scope or category, opted out): a write's answer never "
        "hands over what the writer may not read.",
    )
    notice_id = serializers.UUIDField(allow_null=True)


class MemoryEditPreviewSerializer(serializers.Serializer):
    conflicting_entry_ids = serializers.ListField(
        child=serializers.UUIDField(),
        help_text="Entries that saving would supersede (they share the new conflict key).",
    )
    storage_refusal = serializers.CharField(
        allow_null=True, help_text="The storage gate's reason code, if saving would be refused."
    )


class MemoryForgetResultSerializer(serializers.Serializer):
    tombstoned_ids = serializers.ListField(child=serializers.UUIDField())
    tombstoned_count = serializers.IntegerField()


class MemoryClearRequestSerializer(serializers.ModelSerializer):
    entry_count = serializers.SerializerMethodField()

    class Meta:
        model = MemoryClearRequest
        fields = ["id", "state", "requested_at", "purge_after", "finished_at", "entry_count"]

    def get_entry_count(self, request: MemoryClearRequest) -> int:
        return len(request.entry_ids)


class MemoryClearStateSerializer(serializers.Serializer):
    pending = MemoryClearRequestSerializer(allow_null=True)


class OffTheRecordStateSerializer(serializers.Serializer):
    active = serializers.BooleanField(
        help_text="Nothing is remembered now (for this session, or for every session)."
    )
    session_id = serializers.CharField(allow_null=True)


class ConversationTurnOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ConversationTurn
        fields = ["id", "sequence", "session_id", "speaker", "redacted_kinds", "created_at"]
