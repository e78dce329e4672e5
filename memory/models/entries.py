import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce, Least

from iris_site.appendonly import append_only_triggers
from iris_site.keys.fields import SealedJSONField, SealedTextField
from memory.enums import (
    SENSITIVE_CATEGORIES,
    EntryAuditAction,
    Lifecycle,
    MemoryCategory,
    Origin,
    ScopeKind,
    SuppressionReason,
    is_sensitive_category,
)
from memory.models.fields import ConflictKeyField


class MemoryEntry(models.Model):
    """What Iris currently remembers about one thing: the head of a revision chain.

    Content changes only by appending a `MemoryRevision` and moving this head; usage
    counters (`reference_count`, `last_referenced_at`) are not content and change in
    place. `tombstoned` is terminal: the text is erased when it is forgotten, and the row
    keeps ids, timestamps and `erased_digest` only.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="memory_entries"
    )
    tenant_id = models.UUIDField(null=True, blank=True)
    revision = models.OneToOneField(
        "memory.MemoryRevision", on_delete=models.PROTECT, related_name="+", null=True
    )
    revision_count = models.PositiveIntegerField(default=0)

    # The scope key, flattened so recall can filter in SQL.
    scope_kind = models.CharField(max_length=24, choices=ScopeKind)
    scope_key = models.CharField(max_length=400)
    session_id = models.CharField(max_length=128, blank=True)
    scene_id = models.CharField(max_length=128, blank=True)
    room_id = models.CharField(max_length=128, blank=True)
    pose_id = models.CharField(max_length=128, blank=True)
    avatar_id = models.CharField(max_length=128, blank=True)
    notebook_id = models.CharField(max_length=128, blank=True)
    operator_id = models.UUIDField(null=True, blank=True)

    category = models.CharField(max_length=32, choices=MemoryCategory)
    # The member's words, sealed under their data key (`iris_site.keys.fields`).
    subject = SealedTextField(max_length=200, blank=True)
    body = SealedTextField(max_length=4000)
    origin = models.CharField(max_length=32, choices=Origin)
    lifecycle = models.CharField(max_length=16, choices=Lifecycle, default=Lifecycle.ACTIVE)
    confidence = models.FloatField()
    # The key conflicts and dedupe group on (category :: actor_handle :: subject), stored
    # as the member's keyed token of it, never its words (`memory.models.fields`).
    conflict_key = ConflictKeyField(max_length=400)

    suppression_reason = models.CharField(max_length=24, choices=SuppressionReason, blank=True)
    suppression_started_at = models.DateTimeField(null=True, blank=True)
    suppression_ends_at = models.DateTimeField(null=True, blank=True)
    suppression_notes = SealedTextField(max_length=500, blank=True)

    actor_handle = models.CharField(max_length=80, blank=True)
    relationship_note = SealedTextField(max_length=500, blank=True)
    sensitive_interaction = models.BooleanField(default=False)

    provenance_chain = models.JSONField(default=list)
    consent = models.JSONField(default=list)
    # Ranker statistics computed when the body is written, never per recall.
    term_stats = models.JSONField(default=dict)
    # Once forgotten: a keyed digest (HMAC-SHA256 under the server's hash secret) of the
    # content it had, which is erased (`memory.forgetting.erasure`). "" until then.
    erased_digest = models.CharField(max_length=64, blank=True, editable=False)

    expires_at = models.DateTimeField(null=True, blank=True)
    # When the retention envelope or the member's auto-forget choice has the entry
    # archived or anonymised in place (`memory.sweeps.retention`); null: no decay.
    decay_at = models.DateTimeField(null=True, blank=True)
    last_referenced_at = models.DateTimeField(null=True, blank=True)
    reference_count = models.PositiveIntegerField(default=0)
    # When Iris LEARNED it: `created_at` (first told) and `updated_at` (last restated).
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    # When it was TRUE, as the member's words said it ("since 2019", "until March":
    # `memory.entities.when`), each with the precision they said it to ("year", "month",
    # "day"); None and "" when they said none, and the learned time stands in. Recall
    # `as_of` answers by these (`memory.entities.policy.fact_held_at`). Dates, not words:
    # stored in plain (docs/encryption.md).
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_from_precision = models.CharField(max_length=8, blank=True, default="")
    valid_to = models.DateTimeField(null=True, blank=True)
    valid_to_precision = models.CharField(max_length=8, blank=True, default="")

    class Meta:
        verbose_name_plural = "memory entries"
        ordering = ["-updated_at", "id"]
        indexes = [
            # Recall: a member's live rows of the reachable scope kinds.
            models.Index(
                fields=["member", "scope_kind", "-updated_at"],
                name="memory_recall_live",
                condition=Q(lifecycle="active"),
            ),
            models.Index(fields=["member", "lifecycle", "-updated_at"], name="memory_member_life"),
            # A member's conflict clusters, freshest last: recall reads a cluster from an
            # instant on (`memory.recall.store.reads.entries_load`).
            models.Index(
                fields=["member", "conflict_key", "updated_at"], name="memory_member_conflict"
            ),
            models.Index(fields=["member", "category"], name="memory_member_category"),
            models.Index(
                fields=["member", "actor_handle"],
                name="memory_member_actor",
                condition=~Q(actor_handle=""),
            ),
            models.Index(fields=["scope_kind", "updated_at"], name="memory_retention"),
            # The decay sweep: entries whose `decay_at` has come (`memory.sweeps.retention`).
            models.Index(
                fields=["decay_at"],
                name="memory_decay_due",
                condition=Q(decay_at__isnull=False) & ~Q(lifecycle="tombstoned"),
            ),
            # The rows the read gate may withhold whatever the request (a lifecycle but
            # active or forgotten, suppressed, a sensitive category, a sensitive mention),
            # with every column the recall audit counts them by: it reads a member's from
            # the index alone (`memory.recall.store.sql.suspect_condition`, which spells
            # this condition alike; a test holds the two equal). At 100k entries the audit
            # read 9,600 table pages for some 17,000 rows; from this index, 400.
            models.Index(
                fields=["member", "scope_kind", "lifecycle", "category", "suppression_reason"],
                name="memory_member_withheld",
                include=[
                    "suppression_ends_at",
                    "updated_at",
                    "actor_handle",
                    "sensitive_interaction",
                    "tenant_id",
                    "session_id",
                    "scene_id",
                    "pose_id",
                    "notebook_id",
                    "operator_id",
                    "id",
                ],
                condition=Q(lifecycle__in=["draft", "paused", "superseded"])
                | ~Q(suppression_reason="")
                | Q(category__in=sorted(SENSITIVE_CATEGORIES))
                | (~Q(actor_handle="") & Q(sensitive_interaction=True)),
            ),
            # Timed pauses that have ended: resumed per member before a recall reads, and
            # by the `memory_pause_expire` job for everyone.
            models.Index(
                fields=["member", "suppression_ends_at"],
                name="memory_pause_due",
                condition=Q(lifecycle="paused", suppression_ends_at__isnull=False),
            ),
            # Recall without a (matching) query ranks by the prior: recency plus two
            # discrete factors. Within one scope partition, reference bucket and origin,
            # the prior falls with the recency anchor, so each class is read best first
            # (memory.recall.store).
            models.Index(
                F("member"),
                F("scope_kind"),
                F("session_id"),
                F("notebook_id"),
                Least("reference_count", Value(10)),
                F("origin"),
                Coalesce("last_referenced_at", "updated_at").desc(),
                name="memory_recall_prior",
                condition=Q(lifecycle="active"),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="%(app_label)s_%(class)s_confidence_unit",
                violation_error_message="Confidence lies in [0, 1].",
            ),
            models.CheckConstraint(
                condition=Q(lifecycle__in=Lifecycle.values),
                name="%(app_label)s_%(class)s_lifecycle_valid",
                violation_error_message="Unknown lifecycle.",
            ),
            # Identifier columns stay empty for kinds that do not carry them, so recall
            # can read a scope partition as one prefix of `memory_recall_prior`.
            models.CheckConstraint(
                condition=Q(scope_kind__in=[ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE])
                | Q(session_id=""),
                name="%(app_label)s_%(class)s_session_id_matches_kind",
                violation_error_message="Only session, scene and pose memory name a session.",
            ),
            models.CheckConstraint(
                condition=Q(scope_kind=ScopeKind.NOTEBOOK) | Q(notebook_id=""),
                name="%(app_label)s_%(class)s_notebook_id_matches_kind",
                violation_error_message="Only notebook memory names a notebook.",
            ),
            models.CheckConstraint(
                condition=Q(origin__in=Origin.values),
                name="%(app_label)s_%(class)s_origin_valid",
                violation_error_message="Unknown origin.",
            ),
            models.CheckConstraint(
                condition=~Q(scope_kind=ScopeKind.TENANT) | Q(tenant_id__isnull=False),
                name="%(app_label)s_%(class)s_tenant_scope_has_tenant",
                violation_error_message="Tenant memory names its tenant.",
            ),
        ]

    def __str__(self) -> str:
        # Shown wherever the row is named (the admin's titles, logs): a special category
        # is never said there, only that it is one (issue 42).
        category = "special-category" if is_sensitive_category(self.category) else self.category
        return f"{category} memory {self.id}"


class MemoryRevision(models.Model):
    """One immutable state of an entry. The chain of these is the entry's history."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    entry = models.ForeignKey(
        MemoryEntry, on_delete=models.DO_NOTHING, related_name="revisions", editable=False
    )
    # Denormalized owner: every query on member data filters by it.
    member_id = models.UUIDField(editable=False)
    previous_revision = models.OneToOneField(
        "self", on_delete=models.DO_NOTHING, null=True, blank=True, editable=False, related_name="+"
    )
    number = models.PositiveIntegerField(editable=False)
    action = models.CharField(max_length=16, choices=EntryAuditAction, editable=False)
    # `member`, `system`, `consumer:<name>` or `operator:<uuid>`: survives account changes.
    actor = models.CharField(max_length=160, editable=False)
    # The entry's contract fields as of this revision (scope, category, subject, body,
    # origin, lifecycle, confidence, suppression, multi_actor, provenance, consent), sealed
    # under the member's data key as one JSON text.
    content = SealedJSONField(editable=False)
    # Field names that differ from the previous revision, for the member's history tab.
    changed_fields = models.JSONField(default=list, editable=False)
    created_at = models.DateTimeField(editable=False)

    class Meta:
        ordering = ["entry", "number"]
        indexes = [models.Index(fields=["member_id", "created_at"], name="memory_rev_member_time")]
        constraints = [
            models.UniqueConstraint(
                fields=["entry", "number"],
                name="%(app_label)s_%(class)s_unique_number",
                violation_error_message="The entry already has a revision with this number.",
            ),
        ]
        triggers = append_only_triggers(purgeable=True)

    def __str__(self) -> str:
        return f"revision {self.number} of {self.entry_id}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("memory revisions are immutable")
        super().save(*args, **kwargs)
