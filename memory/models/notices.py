import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from iris_site.keys.fields import SealedJSONField


class MemoryNotice(models.Model):
    """Something Iris asks or tells the member instead of deciding silently."""

    class Kind(models.TextChoices):
        # "You mentioned X earlier; should I update?" — a member-stated fact would be overturned.
        CONFLICT_QUESTION = "conflict-question"
        # A stale low-confidence inference awaits re-confirmation.
        RECONFIRM = "reconfirm"
        # Iris put something into "About you" on its own (the promotion rule's third
        # occurrence, or a consolidation that reached it): told, to keep, edit or forget.
        PROMOTION = "promotion"

    class State(models.TextChoices):
        OPEN = "open"
        ACCEPTED = "accepted"  # the member took the proposed change
        DISMISSED = "dismissed"  # the member kept what they had
        # A re-confirmation ("Is this still true?") answered:
        CONFIRMED = "confirmed"  # yes: the inference became the member's confirmed word
        EDITED = "edited"  # the member restated it (an edit)
        FORGOTTEN = "forgotten"  # no: forgotten (the erasure removes the notice itself)
        KEPT = "kept"  # a promotion the member kept in "About you"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_notices"
    )
    kind = models.CharField(max_length=24, choices=Kind)
    state = models.CharField(max_length=16, choices=State, default=State.OPEN)
    entry = models.ForeignKey(
        "memory.MemoryEntry", on_delete=models.CASCADE, related_name="notices"
    )
    # The proposed replacement, held as a draft entry until the member answers.
    proposed_entry = models.ForeignKey(
        "memory.MemoryEntry", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    rule = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["member", "state", "-created_at"], name="memory_notice_open")
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["entry"],
                condition=Q(kind="reconfirm", state="open"),
                name="%(app_label)s_%(class)s_one_open_reconfirm",
                violation_error_message="This memory already awaits re-confirmation.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} notice"


class MemoryClearRequest(models.Model):
    """A full clear: while pending, the member's memory is hidden (never recalled or
    served) but unchanged, and nothing new is stored; it is purged after the grace window
    unless the member cancels within it (`memory.forgetting.services.memory_clear_request`)."""

    class State(models.TextChoices):
        PENDING = "pending"  # hidden, waiting out the grace window
        CANCELLED = "cancelled"  # the member changed their mind; nothing was changed
        PURGED = "purged"  # everything the member had at the purge erased for good

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=16, choices=State, default=State.PENDING)
    # What was hidden at the request (its count is shown); the purge erases what is there then.
    entry_ids = models.JSONField(default=list)
    requested_at = models.DateTimeField()
    purge_after = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["member"],
                condition=Q(state="pending"),
                name="%(app_label)s_%(class)s_one_pending",
                violation_error_message="A full clear is already pending.",
            ),
        ]

    def __str__(self) -> str:
        return f"clear {self.state}"


class RecallRecord(models.Model):
    """A recall of the member's memory, kept so they can see where, when and why."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    surface = models.CharField(max_length=32)
    consumer = models.CharField(max_length=32)
    scope_key = models.CharField(max_length=400)
    context = models.CharField(max_length=24)
    returned_ids = models.JSONField(default=list)
    # entry id → the rationale it surfaced with (shown to the member even where the
    # surface hides it from the caller). Sealed: a rationale quotes the query's words
    # the entry matched.
    rationales = SealedJSONField(default=dict)
    suppression_counts = models.JSONField(default=dict)
    evaluated_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["member", "-created_at"], name="memory_recall_member")]

    def __str__(self) -> str:
        return f"recall by {self.surface}"
