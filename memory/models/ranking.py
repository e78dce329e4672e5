from django.conf import settings
from django.db import models

# A length no posting has (postings hold small integers): the shortest length of a stem
# no posting has held yet (`memory.recall.store.bounds` spells it too, needing no model;
# a test keeps the two equal).
NO_POSTING_LENGTH = 32767


class MemoryStem(models.Model):
    """One stem of a member's vocabulary, with its document frequency: how many of the
    member's unforgotten entries hold it among their own stems (neighbour context does
    not count). A write changes only the rows of its own stems, by increments
    (`memory.recall.store.corpus_stats_apply`); the postings name their stem by this
    row. A stem no entry holds any more is deleted. The key is the member's keyed token of
    the stem (`memory.recall.store.index`, `iris_site.keys.envelope.member_tokens`), never
    its text."""

    # Room for a keyed token (22 characters) or, in an index written before tokens and
    # not yet re-keyed (`member_index_rekey`), a stem's prefix and digest.
    KEY_LENGTH = 64

    id = models.BigAutoField(primary_key=True)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    key = models.CharField(max_length=KEY_LENGTH)
    # Written empty since keyed tokens (a token fits its key); a stem longer than its key
    # in an index written before them.
    long_stem = models.TextField(blank=True, default="")
    document_frequency = models.PositiveIntegerField(default=0)
    # Bounds over every posting the stem has had (a posting gone leaves them as they
    # were: still bounds): the highest own and context counts and the shortest lengths.
    # Widened by `GREATEST`/`LEAST` as postings are written, so a write touches only its
    # own stems; a recall bounds what the stem can add to any entry's BM25 from them
    # (`memory.recall.store.bounds.impact`) instead of BM25's own ceiling of ``k1 + 1``.
    max_own_count = models.PositiveSmallIntegerField(default=0)
    max_context_count = models.PositiveSmallIntegerField(default=0)
    min_length = models.PositiveSmallIntegerField(default=NO_POSTING_LENGTH)
    min_context_length = models.PositiveSmallIntegerField(default=NO_POSTING_LENGTH)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member", "key"],
                name="%(app_label)s_%(class)s_unique_key",
                violation_error_message="The member's vocabulary already holds this stem.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} of {self.member_id}"


class MemoryCorpusShard(models.Model):
    """A share of a member's document count and total lengths: an entry counts in the
    shard its id picks (`memory.recall.store.CORPUS_SHARDS`), so no row is rewritten by
    every write of a member; a recall sums the member's few shards."""

    pk = models.CompositePrimaryKey("member", "shard")
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    shard = models.PositiveSmallIntegerField()
    document_count = models.IntegerField(default=0)
    total_length = models.BigIntegerField(default=0)
    total_context_length = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"corpus shard {self.shard} of {self.member_id}"
