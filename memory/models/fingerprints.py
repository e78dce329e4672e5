from django.conf import settings
from django.db import models
from django.db.models import Q


class ForgottenFact(models.Model):
    """A keyed fingerprint of one fact the member had forgotten: HMACs of its conflict key
    and of its normalised text, never the text. A write that would re-create the fact is
    refused until the member states it again themselves (`memory.forgetting.fingerprints`)."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="forgotten_facts"
    )
    # Empty when the forgotten entry's key named no subject.
    key_digest = models.CharField(max_length=64, blank=True)
    text_digest = models.CharField(max_length=64)
    # How many words the normalised text had: writes are searched for runs of this length.
    token_count = models.PositiveIntegerField()
    forgotten_at = models.DateTimeField()

    class Meta:
        # Text digests are matched per member in Python (a member's fingerprints are
        # few), through the unique constraint's member-first index; keys by this one.
        indexes = [
            models.Index(
                fields=["member", "key_digest"],
                name="memory_forgotten_key",
                condition=~Q(key_digest=""),
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["member", "key_digest", "text_digest"],
                name="%(app_label)s_%(class)s_one_per_fact",
                violation_error_message="This fact's fingerprint is already kept.",
            ),
        ]

    def __str__(self) -> str:
        return f"forgotten fact {self.text_digest[:8]}…"


class RetiredName(models.Model):
    """A name of a person the member asked Iris to forget everything about (their handle
    or the name they were given), as a keyed digest of its normalised key
    (`memory.policy.names.name_key`), never the name: a later write tagging, naming or
    mentioning them is refused until the member introduces the person again themselves."""

    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="retired_names"
    )
    name_digest = models.CharField(max_length=64)
    # How many words the name has: writes are searched for runs about this long.
    word_count = models.PositiveSmallIntegerField(default=1)
    retired_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member", "name_digest"],
                name="%(app_label)s_%(class)s_once_per_member",
                violation_error_message="This name is already retired.",
            ),
        ]

    def __str__(self) -> str:
        return f"retired name {self.name_digest[:8]}…"
