from django.db import models


class MemoryDeletionHold(models.Model):
    """A pending deletion: while it stands, the entry is left out of recall and of the
    member's lists, its content and lifecycle untouched, so releasing the hold restores
    it exactly. Placed by a data-rights soft delete for its grace window; when the window
    ends the entry is tombstoned and purged (the hold goes with it)."""

    entry = models.OneToOneField(
        "memory.MemoryEntry",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="deletion_hold",
    )
    # Denormalized owner: every query on member data filters by it.
    member_id = models.UUIDField()
    # The data-rights request that placed it: a plain id, memory sits below datarights.
    request_id = models.UUIDField()
    placed_at = models.DateTimeField()
    release_after = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["member_id", "request_id"], name="memory_hold_member_request"),
        ]

    def __str__(self) -> str:
        return f"deletion hold on {self.entry_id}"
