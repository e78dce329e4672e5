"""The short-term tier and its bookkeeping. No import of memory or consent: these models
sit beside the episodic chain; the services that fill them (hierarchy.stm and friends)
sit above memory."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from hierarchy.enums import ReconfirmState, StmScopeKind, StmTrigger
from iris_site.appendonly import append_only_triggers
from iris_site.audit.enums import ActorType
from iris_site.keys.fields import SealedTextField


class ShortTermMemory(models.Model):
    """One row of a member's working memory in one scope, alive until `ttl_expires`.

    Content is sealed under the member's data key (`iris_site.keys`), whatever its
    category: the column holds only `iris1:` tokens, and a member's crypto-shredding
    makes every copy of it unreadable. Expiry hard-deletes an ordinary row and anonymizes
    a sensitive one in place (content erased, metadata kept for audit parity).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="short_term_rows"
    )
    scope_kind = models.CharField(max_length=24, choices=StmScopeKind)
    scope_id = models.CharField(max_length=128)
    category = models.CharField(max_length=32)
    sensitive = models.BooleanField(default=False)
    # Sealed under the member's data key; "" once anonymized.
    content = SealedTextField(blank=True)
    # Keyed digest of the normalized content (HMAC under `IRIS_HASH_SECRET`): recurrence
    # counts for the promotion rule. Equality only, no words; not per member, so it
    # outlives a shred, but it is erased with the row.
    content_digest = models.CharField(max_length=64, blank=True)
    related_entry_ids = models.JSONField(default=list, blank=True)
    consolidate_on_critic_promote = models.BooleanField(default=False)
    consolidated_to = models.UUIDField(null=True, blank=True)
    consolidation_trigger = models.CharField(max_length=24, choices=StmTrigger, blank=True)
    consolidated_at = models.DateTimeField(null=True, blank=True)
    # The consumer, operator role or job that wrote the row.
    written_by = models.CharField(max_length=64, blank=True)
    ttl_seconds = models.PositiveIntegerField()
    created_at = models.DateTimeField()
    refreshed_at = models.DateTimeField(null=True, blank=True)
    ttl_expires = models.DateTimeField()
    # Stamped by the age-triggered scan so each row is considered once.
    warn_emitted_at = models.DateTimeField(null=True, blank=True)
    anonymized_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "short-term memory row"
        ordering = ["-created_at", "id"]
        indexes = [
            models.Index(
                fields=["member", "scope_id", "scope_kind", "ttl_expires"], name="stm_member_scope"
            ),
            models.Index(
                fields=["ttl_expires"], name="stm_live_expiry", condition=Q(anonymized_at=None)
            ),
            models.Index(
                fields=["member", "consolidated_to"],
                name="stm_signal_candidates",
                condition=Q(consolidate_on_critic_promote=True, consolidated_to=None),
            ),
            models.Index(fields=["scope_id", "-created_at"], name="stm_scope_time"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(scope_kind__in=StmScopeKind.values),
                name="%(app_label)s_%(class)s_scope_kind_valid",
                violation_error_message="Unknown short-term scope kind.",
            ),
            models.CheckConstraint(
                condition=Q(ttl_seconds__gt=0),
                name="%(app_label)s_%(class)s_ttl_positive",
                violation_error_message="A short-term row lives for a positive time.",
            ),
            models.CheckConstraint(
                condition=Q(consolidated_to=None) | ~Q(consolidation_trigger=""),
                name="%(app_label)s_%(class)s_consolidation_has_trigger",
                violation_error_message="A consolidated row names what consolidated it.",
            ),
            models.CheckConstraint(
                condition=Q(anonymized_at=None) | Q(content=""),
                name="%(app_label)s_%(class)s_anonymized_has_no_content",
                violation_error_message="An anonymized row keeps no content.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.scope_kind} row {self.id}"


class ShortTermHold(models.Model):
    """A pending deletion of a short-term row: while it stands, the read gate withholds
    the row from every surface (the short-term list and reads, the context bundle, MCP),
    its content untouched, so releasing the hold restores it exactly. Placed by a
    data-rights soft delete on the rows of its extent (`memory.forgetting.stores.Hold`);
    when the grace window ends the rows are erased (the hold goes with them). The
    short-term counterpart of `memory.MemoryDeletionHold`."""

    row = models.OneToOneField(
        ShortTermMemory, on_delete=models.CASCADE, primary_key=True, related_name="deletion_hold"
    )
    # Denormalized owner: every query on member data filters by it.
    member_id = models.UUIDField()
    # The data-rights request that placed it: a plain id, as on memory's holds.
    request_id = models.UUIDField()
    placed_at = models.DateTimeField()
    release_after = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["member_id", "request_id"], name="stm_hold_member_request"),
        ]

    def __str__(self) -> str:
        return f"deletion hold on {self.row_id}"


class OperatorAccessRecord(models.Model):
    """Why someone read member data through the hierarchy tools (operator API or CLI).

    The audit chain refuses free text, so the justification lives here and the chain's
    event names this record by id. Append-only.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    action = models.CharField(max_length=128, editable=False)
    actor_type = models.CharField(max_length=16, choices=ActorType, editable=False)
    actor_id = models.UUIDField(null=True, blank=True, editable=False)
    actor_role = models.CharField(max_length=32, blank=True, editable=False)
    target_member_id = models.UUIDField(null=True, blank=True, editable=False)
    justification = models.TextField(max_length=1000, editable=False)
    created_at = models.DateTimeField(editable=False)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["target_member_id", "-created_at"], name="access_member")]
        triggers = append_only_triggers()

    def __str__(self) -> str:
        return f"{self.action} by {self.actor_type}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("access records are append-only")
        super().save(*args, **kwargs)


class ReconfirmRequest(models.Model):
    """A stale, low-confidence inference queued for the member to re-confirm.

    Written by the freshness/confidence job; one open request per entry.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reconfirm_requests"
    )
    entry_id = models.UUIDField()
    state = models.CharField(max_length=16, choices=ReconfirmState, default=ReconfirmState.OPEN)
    freshness = models.FloatField()
    effective_confidence = models.FloatField()
    queued_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-queued_at"]
        indexes = [models.Index(fields=["member", "state", "-queued_at"], name="reconfirm_open")]
        constraints = [
            models.UniqueConstraint(
                fields=["entry_id"],
                condition=Q(state="open"),
                name="%(app_label)s_%(class)s_one_open_per_entry",
                violation_error_message="This entry is already queued for re-confirmation.",
            ),
            models.CheckConstraint(
                condition=Q(state__in=ReconfirmState.values),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown re-confirmation state.",
            ),
        ]

    def __str__(self) -> str:
        return f"reconfirm {self.entry_id} ({self.state})"
