import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q


class RetentionReview(models.Model):
    """A memory of a `review` scope kind (operator-copilot, tenant, crisis) past its raw
    retention, waiting for an operator to decide: keep it, summarize it (a summary through
    the write path, then the raw entry erased) or delete it (erased). Written by the
    retention sweep, one open review per entry; holds ids and labels, never text."""

    class State(models.TextChoices):
        OPEN = "open"  # due: waiting for a decision
        KEPT = "kept"  # reviewed and kept; due again one retention window later
        SUMMARIZED = "summarized"  # folded into a summary, the raw entry erased
        DELETED = "deleted"  # erased

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    entry = models.ForeignKey(
        "memory.MemoryEntry", on_delete=models.CASCADE, related_name="retention_reviews"
    )
    state = models.CharField(max_length=16, choices=State, default=State.OPEN)
    # When the entry's raw retention ran out (its last revision plus the window).
    due_at = models.DateTimeField()
    flagged_at = models.DateTimeField()
    decided_by = models.UUIDField(null=True, blank=True)  # the operator's user id
    decided_at = models.DateTimeField(null=True, blank=True)
    summary_entry_id = models.UUIDField(null=True, blank=True)

    class Meta:
        ordering = ["due_at", "id"]
        indexes = [models.Index(fields=["state", "due_at"], name="memory_review_open")]
        constraints = [
            models.UniqueConstraint(
                fields=["entry"],
                condition=Q(state="open"),
                name="%(app_label)s_%(class)s_one_open_per_entry",
                violation_error_message="This memory is already waiting for review.",
            ),
            models.CheckConstraint(
                condition=Q(state__in=["open", "kept", "summarized", "deleted"]),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown review state.",
            ),
        ]

    def __str__(self) -> str:
        return f"retention review ({self.state})"
