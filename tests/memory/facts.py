"""Bodies that rank alike but are different facts, for ranking tests that need many
entries with the same words (recall returns one fact once: `memory.policy.fingerprints
.fact_of`)."""

from string import ascii_lowercase


def alike(body: str, index: int) -> str:
    """`body` as fact number `index` (< 676), ranking exactly as `body` does: two single
    letters, which the analyzer drops (no stem, no length) but `fact_of` keeps."""
    return f"{body} {ascii_lowercase[index // 26]} {ascii_lowercase[index % 26]}"
