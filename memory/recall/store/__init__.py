"""The storage side of recall: fetching candidates, the stem index, corpus statistics.

The pure pipeline (`memory.recall`) decides; this package feeds it from the database.
Code outside it uses only the names below (an import-linter contract in pyproject.toml
forbids importing its modules; `__all__` lists the interface):

- a recall: `recall_resolve` (the production path: the pipeline's result over every
  entry of the member, from a certified shortlist), `recall_reference` (the same
  through every entry, the reference it is held to), `recall_candidates` (every entry
  a recall can reach, or some of them);
- entries as the pipeline's candidates: `member_candidates`, `candidate_of` and
  `CANDIDATE_COLUMNS` (a row read elsewhere), `entries_visible` (which entries the read
  gate shows a reader);
- the index, on every write and erasure: `entry_terms_index`, `entry_terms_drop`,
  `corpus_stats_apply`, `corpus_stats_get`, `member_index_load` (a whole member at
  once), `CORPUS_SHARDS`; `term_stats_keyed` (statistics as they are stored: every
  stem named by the member's keyed token, so the index holds no words) and
  `member_index_rekey` (one member's index written before keyed tokens, re-keyed: the
  in-place migration's step).

Inside, each module one concern:

- `bounds`: the bound arithmetic the certificate rests on, pure (no Django, no ORM;
  a contract keeps it so, and it is tested without a database);
- `sql`: every raw statement, each built by one named function;
- `streams`: the matching and prior streams, each with its bound (PostgreSQL; on
  SQLite a recall reads every entry);
- `plan`: `recall_resolve`: one read of the streams, one bound check, at most one wider
  read, else every entry (its docstring gives the argument);
- `gates`: reachability, the kinds withheld whole, and the audit's count of what the
  read gate withholds in reach;
- `reads`: entries read as candidates; `rows`: a stored row as a candidate;
- `index`: the stem index and corpus statistics, written and read, by keyed token.

The modules import one another relatively (``from .bounds import …``), so that
`bench_recall --against` can load another checkout's package beside this one.
"""

from .index import (
    CORPUS_SHARDS,
    corpus_stats_apply,
    corpus_stats_get,
    entry_terms_drop,
    entry_terms_index,
    member_index_load,
    member_index_rekey,
    term_stats_keyed,
)
from .plan import recall_resolve
from .reads import (
    entries_visible,
    member_candidates,
    recall_candidates,
    recall_reference,
)
from .rows import CANDIDATE_COLUMNS, candidate_of

__all__ = [
    "CANDIDATE_COLUMNS",
    "CORPUS_SHARDS",
    "candidate_of",
    "corpus_stats_apply",
    "corpus_stats_get",
    "entries_visible",
    "entry_terms_drop",
    "entry_terms_index",
    "member_candidates",
    "member_index_load",
    "member_index_rekey",
    "recall_candidates",
    "recall_reference",
    "recall_resolve",
    "term_stats_keyed",
]
