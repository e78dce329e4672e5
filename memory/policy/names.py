"""One normalisation for the names of people and topics, as a reader sees them.

`Quorvex7`, `Quorvex7.`, `Quorvex 7`, `QUORVEX 7`, the same in full-width letters and
`Qu\u043ervex7` (a Cyrillic o) are one name to a person, so they are one name to Iris:
`name_key` applies Unicode NFKC (full-width and compatibility forms), case folding, drops accents,
punctuation and spacing, and maps what is left to its confusable skeleton (Unicode
Technical Standard #39, computed by ICU's spoof checker: `l` and `I`, Latin and Cyrillic
look-alikes, `rn` and `m` read the same). Entities are found again by the key
(`memory.entities.derive.entity_digest`), a forgotten person's names are kept as keyed
digests of it (`memory.forgetting.fingerprints`), and the erasure finds their mentions
with it (`MentionMatcher`).

What it does not catch, by design: a nickname or a paraphrase ("my sister", "Q"), part of
a name ("Sam" for "Sam Quorvex": another Sam is another person), a misspelling that is
not a look-alike. A false match would erase or refuse another person's memory; these
rules only join what no reader could tell apart.

Pure: no Django import (tested without a database).
"""

import re
import unicodedata
from collections.abc import Callable, Iterable

from icu import SpoofChecker

_SKELETON = SpoofChecker()
_WORD = re.compile(r"\w+")
# A name is matched in a text as a run of at most this many words.
MAX_NAME_WORDS = 6


def _folded(text: str) -> str:
    """NFKC, case folded, accents dropped (decomposed, combining marks removed)."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    return "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))


def _word_key(word: str) -> str:
    skeleton = _SKELETON.getSkeleton(0, word)
    return _folded(skeleton).replace("_", "")


def name_words(text: str) -> list[str]:
    """The text's words, each as its key (punctuation and spacing are not words)."""
    return [key for word in _WORD.findall(_folded(text)) if (key := _word_key(word))]


def name_key(text: str) -> str:
    """The key a name is compared by: "" for a text with no letters or digits."""
    return "".join(name_words(text))


class MentionMatcher:
    """Finds whether a text mentions any of these names: a run of whole words whose key is
    a name's key (`Met Quorvex 7 at the harbour` mentions `quorvex7`; `Samuel` does not
    mention `Sam`)."""

    def __init__(self, names: Iterable[str]) -> None:
        self._keys: dict[str, int] = {}
        for name in names:
            words = name_words(name)
            if words:
                self._keys["".join(words)] = min(len(words), MAX_NAME_WORDS)
        # A name may be written in more or fewer words than it was given in
        # ("Quorvex 7" for "Quorvex7"): runs up to two words longer are tried.
        self._longest = min(max(self._keys.values(), default=0) + 2, MAX_NAME_WORDS + 2)

    @property
    def empty(self) -> bool:
        return not self._keys

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(self._keys)

    def in_text(self, text: str | None) -> bool:
        if not text or not self._keys:
            return False
        words = name_words(text)
        for start in range(len(words)):
            run = ""
            for word in words[start : start + self._longest]:
                run += word
                if run in self._keys:
                    return True
        return False


def name_spans(text: str, *, is_name: Callable[[str], bool], longest: int) -> list[tuple[int, int]]:
    """Where in `text` a name is written: the (start, end) of each run of at most
    `longest` whole words whose key `is_name` accepts, longest runs first, never
    overlapping. Offsets are the text's own, so the caller can replace what it finds."""
    words = [
        (m.start(), m.end(), key)
        for m in _WORD.finditer(text or "")
        if (key := "".join(_word_key(w) for w in _WORD.findall(_folded(m.group()))))
    ]
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(words):
        found = None
        run = ""
        for end in range(start, min(start + longest, len(words))):
            run += words[end][2]
            if is_name(run):
                found = end
        if found is None:
            start += 1
            continue
        spans.append((words[start][0], words[found][1]))
        start = found + 1
    return spans
