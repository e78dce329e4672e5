from django.db import models


class MemoryEntryTerm(models.Model):
    """One stem an entry can be found by: recall's inverted index over term statistics.

    A row per (entry, stem) of the entry's own and neighbour-context stems, with the
    counts and lengths BM25 needs and the entry's ranking prior (references, recency
    anchor, origin), so a recall can find the entries sharing a stem with its query and
    bound their score from this index alone, without reading the member's entries.
    Derived data: written with the entry's `term_stats`, kept in step with its usage
    counters by a database trigger, dropped when it is forgotten; counts of stems only,
    never text.
    """

    # Long tokens are cut to this prefix on both sides (index and query); a shared
    # prefix only widens the candidate set, which the pipeline then scores exactly.
    STEM_LENGTH = 64

    id = models.BigAutoField(primary_key=True)
    entry = models.ForeignKey(
        "memory.MemoryEntry", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    # Denormalized owner: the lookup index leads with it.
    member_id = models.UUIDField()
    stem = models.CharField(max_length=STEM_LENGTH)
    own_count = models.PositiveIntegerField(default=0)
    context_count = models.PositiveIntegerField(default=0)
    # The entry's lengths, repeated on each of its rows so a lookup never joins.
    length = models.PositiveIntegerField(default=0)
    context_length = models.PositiveIntegerField(default=0)
    # The entry's prior inputs; the `memory_entry_term_prior` trigger (migration 0006)
    # copies them whenever the entry's counters, update time or origin change.
    reference_count = models.PositiveIntegerField(default=0)
    # `last_referenced_at`, else `updated_at`: where recency is measured from.
    anchor = models.DateTimeField()
    origin = models.CharField(max_length=32)

    class Meta:
        indexes = [
            # Recall: a member's postings for the query's stems, read from the index
            # alone (every column a key column: SQLite has no INCLUDE).
            models.Index(
                fields=[
                    "member_id",
                    "stem",
                    "entry",
                    "own_count",
                    "context_count",
                    "length",
                    "context_length",
                    "reference_count",
                    "anchor",
                    "origin",
                ],
                name="memory_term_lookup",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["entry", "stem"],
                name="%(app_label)s_%(class)s_unique_stem",
                violation_error_message="The entry already lists this stem.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.stem} in {self.entry_id}"
