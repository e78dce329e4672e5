"""The registry of content stores: every place a member's content lives, each declaring
how to erase a forgotten memory from it, how to search it for residue, and how to export
the member's rows.

The one erasure service (`memory.forgetting.erasure`) and the forget-completeness check of a data-
rights delete (`datarights.processing`) both iterate this registry, so a store cannot be
forgotten by one and remembered by the other. It lives in memory, the lowest app that
holds member content, so that every app above it (continuity, inspection, datarights,
hierarchy) can register its own stores from its `AppConfig.ready()` without an upward
import; memory registers its own tables the same way.

Pure: no ORM import (the stores' callables do their own reads and writes).
"""

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from memory.policy.names import MentionMatcher

# --- The residue matcher ---------------------------------------------------------------

# Shorter texts ("yes", "ok") occur everywhere: they count only as a whole field.
MIN_SUBSTRING_LENGTH = 16
_PATTERN_BATCH = 400

# What an erasure writes in place of the member's words (`memory.forgetting.erasure`
# imports it from here): never the member's text, so never collected or searched for —
# every member who forgot something has it in each tombstone.
FORGOTTEN_PLACEHOLDER = "(forgotten)"
PLACEHOLDER_TEXTS = frozenset({FORGOTTEN_PLACEHOLDER})
# Too short or too common to say anything about anyone: a field reading only this is
# no trace of a forgotten memory (and erasing every turn that reads "ok" would be wrong).
MIN_ERASED_TEXT_CHARACTERS = 4  # letters and digits ("4821" counts, "Mum" does not)
COMMON_TEXTS = frozenset(
    {"yes", "no", "okay", "ok", "sure", "thanks", "thank you", "none", "n/a", "maybe", "unknown"}
)


def normalise_text(text: str) -> str:
    return " ".join(text.split()).casefold()


def erased_text_meaningful(text: str | None) -> bool:
    """Whether a text is worth collecting as erased text and searching for: not a
    placeholder an erasure writes, not a common word, and at least four letters or digits."""
    if not text:
        return False
    folded = normalise_text(text)
    if folded in PLACEHOLDER_TEXTS or folded.strip(".!?") in COMMON_TEXTS:
        return False
    return sum(c.isalnum() for c in folded) >= MIN_ERASED_TEXT_CHARACTERS


class ResidueMatcher:
    """Finds any of the erased texts in a field: whole-field for short texts, substring
    for longer ones (whitespace and case folded), and any erased id anywhere. Texts that
    mean nothing (placeholders, common words, under four letters) are left out: a field
    holding one is no trace of anything."""

    def __init__(self, texts: Iterable[str], ids: Iterable[str] = ()) -> None:
        normalised = {normalise_text(t) for t in texts if erased_text_meaningful(t)}
        self._exact = frozenset(normalised)
        long = sorted((t for t in normalised if len(t) >= MIN_SUBSTRING_LENGTH), key=len)
        self._patterns = [
            re.compile("|".join(re.escape(t) for t in reversed(long[i : i + _PATTERN_BATCH])))
            for i in range(0, len(long), _PATTERN_BATCH)
        ]
        self._ids = frozenset(str(i).lower() for i in ids)
        self._id_pattern = (
            re.compile("|".join(re.escape(i) for i in sorted(self._ids))) if self._ids else None
        )

    @property
    def empty(self) -> bool:
        return not self._exact and not self._ids

    def text_in(self, value: str | None) -> bool:
        if not value:
            return False
        folded = normalise_text(value)
        if folded in self._exact:
            return True
        return any(pattern.search(folded) for pattern in self._patterns)

    def quoted_in(self, value: str | None) -> bool:
        """A short erased text as a whole JSON string inside `value` (a line of JSON)."""
        if not value:
            return False
        folded = normalise_text(value)
        return any(f'"{text}"' in folded for text in self._exact)

    def id_in(self, value: str | None) -> bool:
        if not value or self._id_pattern is None:
            return False
        return self._id_pattern.search(value.lower()) is not None

    def anything_in(self, value: str | None) -> bool:
        return self.text_in(value) or self.id_in(value)


# --- The registry ----------------------------------------------------------------------


class ExtentKind(StrEnum):
    """What a member (or a job on their behalf) forgets: every forgetting path names one."""

    FACT = "fact"  # an entry with every wording it had (its revisions, superseded entries)
    PERSON = "person"  # a person or topic: what is about them and what mentions their name
    CONVERSATION = "conversation"  # one session: its turns, rows and what came only from it
    SCOPE = "scope"  # every row of these memory scope kinds (a notebook: its own id)
    CATEGORY = "category"  # every row of these categories
    EVERYTHING = "everything"  # all of the member's content


@dataclass(frozen=True, slots=True)
class Erasure:
    """One run of the erasure service, as every store sees it."""

    member_id: object
    # The forgotten entries (their summaries included), as strings.
    entry_ids: tuple[str, ...]
    # Their text as it ever was (bodies, subjects, notes of the entries and every
    # revision): a store erases what repeats it, and a residue search looks for it.
    matcher: ResidueMatcher
    # True: the rows go for good (data-rights hard delete, full clear). False: a forget —
    # the tombstones stay (ids, timestamps, a keyed digest) with their text erased.
    purge: bool
    reason: str
    # The extent: rows not tied to any entry that go too. With `everything` (a delete of
    # every scope, a full clear) all of the member's; else those of these memory scope
    # kinds *and* of these categories (either left empty: any), when one is named.
    categories: frozenset[str] = frozenset()
    everything: bool = False
    scope_kinds: frozenset[str] = frozenset()
    # What the member asked to forget, as every store's declaration names it.
    kind: ExtentKind = ExtentKind.FACT
    # A conversation extent: rows of these sessions go whatever they hold.
    sessions: frozenset[str] = frozenset()
    # A notebook's extent: rows of these notebooks go whatever they hold.
    notebooks: frozenset[str] = frozenset()
    # A person's extent: rows whose text mentions one of their names go
    # (`memory.policy.names`: look-alikes and spacing variants included).
    mentions: MentionMatcher = field(default_factory=lambda: MentionMatcher(()))

    def covers(
        self,
        scope_kind: str,
        category: str | None,
        *,
        session_id: str | None = None,
        notebook_id: str | None = None,
    ) -> bool:
        """Whether a row of this memory scope kind and category (None: the row has no
        category, e.g. a conversation turn), of this session or notebook when it has one,
        is in the extent whatever it holds."""
        if self.everything:
            return True
        if session_id and session_id in self.sessions:
            return True
        if notebook_id and notebook_id in self.notebooks:
            return True
        if not (self.scope_kinds or self.categories):
            return False
        in_scope = not self.scope_kinds or scope_kind in self.scope_kinds
        return in_scope and (not self.categories or category in self.categories)

    def holds(self, text: str | None) -> bool:
        """Whether a text repeats an erased text or mentions a forgotten person."""
        return self.matcher.text_in(text) or self.mentions.in_text(text)

    def covers_category(self, category: str) -> bool:
        return self.everything or category in self.categories


@dataclass(frozen=True, slots=True)
class Hold:
    """A soft delete's hold over its extent, as every store that holds rows tied to no
    entry sees it: hide the member's rows of these memory scope kinds and categories
    (`Erasure.covers`) from every read at once, until released or erased."""

    member_id: object
    request_id: object
    release_after: object  # a datetime
    scope_kinds: frozenset[str] = frozenset()
    categories: frozenset[str] = frozenset()
    everything: bool = False

    def covers(self, scope_kind: str, category: str | None) -> bool:
        extent = Erasure(
            member_id=self.member_id,
            entry_ids=(),
            matcher=ResidueMatcher(()),
            purge=False,
            reason="hold",
            categories=self.categories,
            everything=self.everything,
            scope_kinds=self.scope_kinds,
        )
        return extent.covers(scope_kind, category)


@dataclass(frozen=True, slots=True)
class ContentStore:
    """One place member content lives. Every callable filters by the member id."""

    name: str
    # Erase what belongs to the erasure's entries or repeats their text; returns the rows
    # erased (deleted or blanked). Runs inside the erasure's transaction.
    erase: Callable[[Erasure], int]
    # Count what still belongs to them or repeats their text (0 once erased).
    residue: Callable[[Erasure], int]
    # The member's rows for an export (JSON-ready dicts), when the store exports itself.
    export: Callable[[object], Iterable[dict]] | None = None
    # The text the store holds for these entries (member id, entry ids): the source turn
    # of a fact, a short-term copy. The erasure looks for it everywhere else too.
    texts: Callable[[object, Sequence[str]], Iterable[str]] | None = None
    # The text of the rows the extent covers whatever they hold (a conversation's turns,
    # a scope's short-term rows): the erasure looks for it in every other store too (an
    # export file holding a turn goes with the turn).
    covered_texts: Callable[["Erasure"], Iterable[str]] | None = None
    # Erased in ascending order: rows that point at entries go before the entries.
    order: int = 50
    # Content encrypted at rest (or held outside the database): a plain-text search of
    # the schema cannot see it, only this store's `residue` can.
    encrypted: bool = False
    # The database tables the store covers ("" for none: a file tree, a cache).
    tables: Sequence[str] = ()
    # A soft delete: hide the rows of a hold's extent (returns how many), and lift a
    # request's holds (member id, request id; returns how many). A store whose rows are
    # all tied to entries needs neither (the entries' holds hide what derives from them).
    hold: Callable[[Hold], int] | None = None
    release: Callable[[object, object], int] | None = None
    # How the store erases each extent kind, in a sentence each: every kind must be
    # declared (`content_store_register` refuses a store that leaves one out), and the
    # table of stores and extents in `docs/forgetting.md` is generated from these.
    extents: Mapping[ExtentKind, str] = field(default_factory=dict)


class UndeclaredExtent(Exception):
    """A content store that does not say how it erases every extent kind."""


_STORES: dict[str, ContentStore] = {}


def content_store_register(store: ContentStore) -> None:
    missing = [kind.value for kind in ExtentKind if not store.extents.get(kind)]
    if missing:
        raise UndeclaredExtent(
            f"The content store {store.name!r} does not declare how it erases: "
            f"{', '.join(missing)}."
        )
    _STORES[store.name] = store


def content_store_unregister(name: str) -> ContentStore | None:
    return _STORES.pop(name, None)


def registered_stores() -> list[ContentStore]:
    return sorted(_STORES.values(), key=lambda s: (s.order, s.name))


def content_store(name: str) -> ContentStore | None:
    return _STORES.get(name)


def extent_hold(hold: Hold) -> dict[str, int]:
    """Hide a soft delete's extent in every store that declares a hold (rows held)."""
    return {s.name: s.hold(hold) for s in registered_stores() if s.hold is not None}


def extent_release(*, member_id, request_id) -> dict[str, int]:
    """Lift a soft delete's holds in every store (rows released)."""
    return {
        s.name: s.release(member_id, request_id)
        for s in registered_stores()
        if s.release is not None
    }


def extent_table() -> str:
    """Every registered store and how it erases each extent kind, as a Markdown table
    (`manage.py forgetting_stores` prints it; `docs/forgetting.md` holds it)."""
    kinds = list(ExtentKind)
    lines = [
        "| store | tables | " + " | ".join(kinds) + " |",
        "|" + "---|" * (len(kinds) + 2),
    ]
    for store in registered_stores():
        tables = ", ".join(f"`{t}`" for t in store.tables) or "(outside the database)"
        cells = " | ".join(store.extents[kind] for kind in kinds)
        lines.append(f"| `{store.name}` | {tables} | {cells} |")
    return "\n".join(lines) + "\n"


SHORT_TERM_MEMORY = "short-term-memory"


def short_term_memory_export(member_id) -> Iterable[dict]:
    store = _STORES.get(SHORT_TERM_MEMORY)
    if store is None or store.export is None:
        return ()
    return store.export(member_id)
