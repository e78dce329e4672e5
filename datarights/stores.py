"""Content stores beyond memory's own tables, for erasure, export and the
forget-completeness check.

Memory's stores (entries, revisions, conversation turns, recall records, notices, the
term index, deletion holds) and the export files are handled by `datarights.processing`
directly. Any other app that keeps member content registers a `ContentStore` here from
its `AppConfig.ready()`, and every delete then purges it and every completeness check
searches it.

SHORT-TERM MEMORY HOOK: the hierarchy app's short-term tier (STM rows with TTL) and the
context-bundle cache do not exist yet. When they do, hierarchy registers
`ContentStore(name="short-term-memory", ...)` (and one for the bundle cache); until then
`registered_stores()` is empty, deletes record `short_term_memory: "not-present"` in
their progress, and exports ship an empty `short_term_memory` list.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from datarights.policy import ResidueMatcher

SHORT_TERM_MEMORY = "short-term-memory"


@dataclass(frozen=True, slots=True)
class ContentStore:
    """One place member content lives. Every callable filters by the member id."""

    name: str
    # Erase what belongs to these entries or repeats their text; returns rows erased.
    purge: Callable[[object, Sequence[str], ResidueMatcher], int]
    # Count what still belongs to these entries or repeats their text.
    residue: Callable[[object, Sequence[str], ResidueMatcher], int]
    # The member's rows for an export (JSON-ready dicts), when the store has any.
    export: Callable[[object], Iterable[dict]] | None = None


_STORES: dict[str, ContentStore] = {}


def content_store_register(store: ContentStore) -> None:
    _STORES[store.name] = store


def content_store_unregister(name: str) -> None:
    _STORES.pop(name, None)


def registered_stores() -> list[ContentStore]:
    return [_STORES[name] for name in sorted(_STORES)]


def short_term_memory_export(member_id) -> Iterable[dict]:
    store = _STORES.get(SHORT_TERM_MEMORY)
    if store is None or store.export is None:
        return ()
    return store.export(member_id)
