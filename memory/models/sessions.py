import uuid

from django.conf import settings
from django.db import models

from iris_site.appendonly import append_only_triggers
from iris_site.keys.fields import SealedTextField


class ConversationTurn(models.Model):
    """One turn of a conversation, appended by a surface; `session-turn` provenance
    links point here, and compaction summarizes expired turns into memory."""

    class Speaker(models.TextChoices):
        MEMBER = "member"
        ASSISTANT = "assistant"
        SYSTEM = "system"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", editable=False
    )
    session_id = models.CharField(max_length=128, editable=False)
    sequence = models.PositiveIntegerField(editable=False)
    speaker = models.CharField(max_length=16, choices=Speaker, editable=False)
    consumer = models.CharField(max_length=32, editable=False)
    # Sealed under the member's data key (`iris_site.keys.fields`).
    text = SealedTextField(max_length=8000, editable=False)
    # Kinds of PII replaced by tokens on the way in (values are never kept).
    redacted_kinds = models.JSONField(default=list, editable=False)
    created_at = models.DateTimeField(editable=False)

    class Meta:
        ordering = ["member_id", "session_id", "sequence"]
        constraints = [
            models.UniqueConstraint(
                fields=["member", "session_id", "sequence"],
                name="%(app_label)s_%(class)s_unique_position",
                violation_error_message="The session already has a turn at this position.",
            ),
        ]
        indexes = [models.Index(fields=["created_at"], name="memory_turn_created")]
        triggers = append_only_triggers(purgeable=True)

    def __str__(self) -> str:
        return f"turn {self.sequence} of {self.session_id}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("conversation turns are append-only")
        super().save(*args, **kwargs)


class ConversationTurnHold(models.Model):
    """A pending deletion of a turn: while it stands the turn is left out of every read
    (provenance evidence, replays, the member's conversations, compaction), its text
    untouched, so releasing the hold restores it exactly. Placed by a data-rights soft
    delete whose extent covers the conversation log; when the grace window ends the
    erasure deletes the turn and the hold goes with it."""

    turn = models.OneToOneField(
        ConversationTurn, on_delete=models.CASCADE, primary_key=True, related_name="deletion_hold"
    )
    # Denormalized owner: every query on member data filters by it.
    member_id = models.UUIDField()
    # The data-rights request that placed it: a plain id, memory sits below datarights.
    request_id = models.UUIDField()
    placed_at = models.DateTimeField()
    release_after = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["member_id", "request_id"], name="memory_turnhold_request"),
        ]

    def __str__(self) -> str:
        return f"deletion hold on turn {self.turn_id}"


class OffTheRecordSession(models.Model):
    """While active, nothing is remembered for the member in that session ("" = all)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    session_id = models.CharField(max_length=128, blank=True)
    active = models.BooleanField(default=True)
    changed_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member", "session_id"],
                name="%(app_label)s_%(class)s_one_per_session",
                violation_error_message="This session already has an off-the-record state.",
            ),
        ]

    def __str__(self) -> str:
        return f"off-the-record {'on' if self.active else 'off'}"
