import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q


class NotebookClosure(models.Model):
    """A notebook's end, as memory knows it (`memory.forgetting.notebooks`): closed (no
    new writes; its memory is erased by the retention sweep once `erase_after` has come)
    or deleted (its memory erased). No content: ids, a state and times only. A notebook
    with no closure row is open."""

    class State(models.TextChoices):
        CLOSED = "closed"
        DELETED = "deleted"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    notebook_id = models.CharField(max_length=128)
    state = models.CharField(max_length=16, choices=State)
    closed_at = models.DateTimeField()
    # When the sweep erases a closed notebook's memory (a delete: when it was deleted).
    erase_after = models.DateTimeField()
    # When its memory was erased (null while closed and waiting).
    erased_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["member_id", "notebook_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["member", "notebook_id"],
                name="%(app_label)s_%(class)s_one_per_notebook",
                violation_error_message="This notebook is already closed or deleted.",
            ),
            models.CheckConstraint(
                condition=Q(state__in=["closed", "deleted"]),
                name="%(app_label)s_%(class)s_state_valid",
                violation_error_message="Unknown notebook state.",
            ),
        ]
        indexes = [
            models.Index(
                fields=["erase_after"],
                name="memory_notebook_erase_due",
                condition=Q(state="closed"),
            ),
        ]

    def __str__(self) -> str:
        return f"notebook {self.state}"
