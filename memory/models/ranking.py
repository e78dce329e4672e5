from django.conf import settings
from django.db import models


class MemoryCorpusStats(models.Model):
    """A member's ranking statistics over their unforgotten entries (document count,
    lengths, per-stem document frequency), kept current by every write so a recall
    never re-reads the corpus. Counts of stems only, never text."""

    member = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    stats = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "memory corpus stats"

    def __str__(self) -> str:
        return f"corpus of {self.member_id}"
