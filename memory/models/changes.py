import uuid

from django.db import models

from memory.enums import ChangeType


class ChangeEvent(models.Model):
    """One change a surface must learn of, for one recipient (`memory.changes`): a memory it
    received was forgotten or corrected, a consent it relied on was withdrawn, a person it
    received memory about was forgotten, or the member was erased. Ids and times only,
    never text, names or categories of memories the recipient was not given. Written in
    the transaction of the change (an outbox); read by the recipient's feed and delivered
    to its webhook."""

    # The feed's order: per recipient, oldest first (a cursor names the last one read).
    id = models.BigAutoField(primary_key=True)
    event_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # Plain ids: the event outlives the member's content (`member.erased` says it is gone).
    member_id = models.UUIDField()
    consumer = models.CharField(max_length=32)
    type = models.CharField(max_length=32, choices=ChangeType)
    entry_ids = models.JSONField(default=list)
    revision_ids = models.JSONField(default=list)
    entity_ids = models.JSONField(default=list)
    # `consent.withdrawn`: the consent type, only when the recipient received memory it
    # covered (a category the recipient was never given is never named to it).
    consent_type = models.CharField(max_length=64, blank=True)
    occurred_at = models.DateTimeField()
    acknowledged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["consumer", "id"], name="memory_change_feed"),
            models.Index(fields=["member_id", "consumer"], name="memory_change_member"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(type__in=ChangeType.values),
                name="%(app_label)s_%(class)s_type_valid",
                violation_error_message="Unknown change type.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} for {self.consumer}"
