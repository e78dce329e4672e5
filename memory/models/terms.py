from django.db import models


class MemoryEntryTerm(models.Model):
    """One stem an entry can be found by: recall's inverted index over term statistics.

    A row per (stem, entry) of the entry's own and neighbour-context stems, with the
    counts and lengths BM25 needs, so a recall can find the entries sharing a stem with
    its query and bound their score from the postings (and the entries' prior columns)
    without reading the member's entries. The stem is the member's vocabulary row
    (`MemoryStem`), which scopes the posting to its member. Derived data: written with
    the entry's `term_stats`, dropped when it is forgotten; counts of stems only, never
    text. Kept small (about 60 bytes a row plus the key): counts fit a small integer (a
    body holds at most 4,000 characters, a neighbour context four turns of 8,000).
    """

    # Keyed by stem first: a stem's postings are adjacent in the key's index, which on
    # PostgreSQL also INCLUDEs the four counts (migration 0019), so a recall reads them
    # from the index alone instead of one heap page per posting.
    pk = models.CompositePrimaryKey("stem", "entry")
    entry = models.ForeignKey(
        "memory.MemoryEntry", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    stem = models.ForeignKey(
        "memory.MemoryStem", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    own_count = models.PositiveSmallIntegerField(default=0)
    context_count = models.PositiveSmallIntegerField(default=0)
    # The entry's lengths, repeated on each of its rows so a posting scores alone.
    length = models.PositiveSmallIntegerField(default=0)
    context_length = models.PositiveSmallIntegerField(default=0)

    class Meta:
        indexes = [
            # Re-indexing and erasing an entry: its postings (an entry's rows share one
            # key: PostgreSQL's deduplicated B-tree keeps this index a few bytes a row).
            models.Index(fields=["entry"], name="memory_term_entry"),
        ]

    def __str__(self) -> str:
        return f"{self.stem_id} in {self.entry_id}"


class MemoryContextAnchor(models.Model):
    """Where an entry's neighbour context is anchored: a conversation turn its
    `session-turn` provenance cites, by session and position. The context is the stored
    turns within `NEIGHBOUR_WINDOW` of it (`memory.recall.context`); when a turn is
    appended or erased near an anchor, the entries anchored there are re-indexed. Ids
    and positions only."""

    pk = models.CompositePrimaryKey("member_id", "session_id", "sequence", "entry")
    member_id = models.UUIDField()
    session_id = models.CharField(max_length=128)
    sequence = models.PositiveIntegerField()
    entry = models.ForeignKey(
        "memory.MemoryEntry", on_delete=models.CASCADE, related_name="+", db_index=True
    )

    def __str__(self) -> str:
        return f"{self.entry_id} at {self.session_id}#{self.sequence}"
