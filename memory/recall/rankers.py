"""The recall pipeline's semantic factor: the seed's Jaccard and a stemmed BM25.

Pure: no Django import. The semantic factor is any callable
``semantic(query, candidate, corpus_stats) -> float`` returning a value in [0, 1].
A ranker may also offer ``bind(query, corpus_stats) -> (candidate -> float)`` so the
query is analysed once per recall instead of once per candidate; the pipeline uses
it when present.

Token statistics are made once, when an entry is written (``term_stats_for``: the
body's stems, its neighbours' stems, its speaker label and session date), and stored
beside it; corpus statistics (``CorpusStats``) are kept per member by the
storage layer with ``corpus_stats_add`` / ``corpus_stats_remove``. Recall never
tokenises a stored body for BM25.

What is stored names no word: the storage layer keys every stem by the member's keyed
token of it (``TermStats.keyed_by``, an HMAC under the member's key), and hands the
pipeline the member's ``CorpusStats`` with its ``term_key``, which names the query's
stems the same way (``query_keys``). BM25 only compares equal keys, so it ranks alike
on stems or on tokens; a stem's text lives only in this process, while a query is
analysed.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from typing import Any, Protocol

import snowballstemmer

# Bumped whenever tokenising, stop words or stemming change: stored TermStats with
# another version must be recomputed, or stems written by the old analyser would
# silently stop matching queries analysed by the new one. v2 (speaker label and session
# date as tags, below) stems words exactly as v1: v1 statistics still match every query,
# they only weigh a label as an own word and know no session date.
ANALYZER_VERSION = "en-snowball-v2"
UNTAGGED_ANALYZER_VERSION = "en-snowball-v1"  # ``term_stats_for(..., tagged=False)``

# The classic English function-word list (as shipped with NLTK / Lucene), plus
# modal verbs. Only words that carry no topic; BM25's idf takes care of the rest.
_STOP_WORD_BLOCK = """
a about above after again against ain all am an and any are aren as at be because
been before being below between both but by can could couldn d did didn do does
doesn doing don down during each few for from further had hadn has hasn have haven
having he her here hers herself him himself his how i if in into is isn it its
itself just ll m ma may me might mightn more most must mustn my myself needn no nor
not now o of off on once only or other our ours ourselves out over own re s same
shall shan she should shouldn so some such t than that the their theirs them
themselves then there these they this those through to too under until up ve very
was wasn we were weren what when where which while who whom why will with won would
wouldn y you your yours yourself yourselves
"""
ENGLISH_STOP_WORDS: frozenset[str] = frozenset(_STOP_WORD_BLOCK.split())

# How many entries on each side of a turn, in the same session, feed its neighbour
# context at write time: a question and its answer usually sit within two turns.
NEIGHBOUR_WINDOW = 2

# What an entry's own turn says about it besides its words, kept in its context (weighed
# like a neighbour's words, ``BM25.context_weight``, and never in document frequency):
# the speaker label a transcript line starts with ("Caroline: I went ...") and the month
# and year of its session. The counts are integers because the storage layer keeps
# integer counts; at the default context weight 0.5 a session-date stem weighs as one
# word of the entry's own, a speaker label's as two (a question names who said it).
SPEAKER_LABEL_COUNT = 4
SESSION_DATE_COUNT = 2

_WORD_RE = re.compile(r"[^\W_]+")
# A leading speaker label: one to four words, the first starting with a letter, then a
# colon and a space ("Dr. Lee: ...", not "10:30 ..." nor "https://...").
_LABEL_RE = re.compile(r"\s*([^\W\d_][\w.'-]*(?:[ ][^\W\d_][\w.'-]*){0,3})\s*:\s")
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_SEED_SPLIT_RE = re.compile(r"[^a-z0-9]+")

_local = threading.local()


def _stemmer() -> Any:
    # Snowball stemmer objects keep per-call state: one per thread.
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = snowballstemmer.stemmer("english")
        _local.stemmer = stemmer
    return stemmer


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _stemmer().stemWord(word)


def analyze(text: str) -> list[str]:
    """Lowercase word tokens, stop words and one-letter tokens dropped, stemmed."""
    return [
        stem(token)
        for token in _WORD_RE.findall(text.lower())
        if len(token) > 1 and token not in ENGLISH_STOP_WORDS
    ]


def split_speaker_label(text: str) -> tuple[str, str]:
    """``"Caroline: I went ..."`` → ``("Caroline", "I went ...")``; ``("", text)``
    when the text does not start with a speaker label."""
    match = _LABEL_RE.match(text)
    if match is None or len(match.group(1)) > 40:
        return "", text
    return match.group(1), text[match.end() :]


def session_date_terms(when: date) -> list[str]:
    """The stems of a session's month and year (a question may name "May 2023")."""
    return analyze(f"{_MONTHS[when.month - 1]} {when.year}")


def query_terms(query: str) -> tuple[str, ...]:
    """The distinct stems a query asks for, sorted (before `query_cut`)."""
    return tuple(sorted(set(analyze(query))))


# A query counts at most this many distinct stems (`query_cut`), as a search engine
# bounds a query's clauses: a recall's cost grows with the stems it weighs (every
# candidate's BM25 sums them, the store reads their postings). On a 2,500-entry member a
# 400-word query (128 distinct stems) took 25x a one-word query without the cut;
# measured with `bench_recall --long-query` (docs/recall.md, "A bounded query").
MAX_QUERY_TERMS = 32


# How a member's stored statistics name a stem: stems → their keys (the storage layer's
# keyed tokens, `memory.recall.store.index.MemberTermKey`); a corpus without one names
# stems by themselves.
TermKey = Callable[[Iterable[str]], Mapping[str, str]]


def query_keys(query: str, corpus: CorpusStats | None) -> dict[str, str]:
    """The query's stems (`query_terms`), each with the key the corpus's statistics name
    it by: its keyed token where ``corpus.term_key`` is set, else the stem itself."""
    terms = query_terms(query)
    if corpus is None or corpus.term_key is None or not terms:
        return {term: term for term in terms}
    keys = corpus.term_key(terms)
    return {term: keys[term] for term in terms}


def query_cut(terms: Iterable[str], document_frequency: Mapping[str, int]) -> tuple[str, ...]:
    """The stems a query is ranked on: all of ``terms`` up to `MAX_QUERY_TERMS`, else
    the `MAX_QUERY_TERMS` rarest in the member's memory by ``document_frequency`` (the
    stems some entry states first, fewest holders first, then the ones no entry states;
    ties by the stem), sorted. The pipeline (`BM25.bind`) and the recall store cut with
    the same statistics, so both rank the same cut query."""
    terms = sorted(set(terms))
    if len(terms) <= MAX_QUERY_TERMS:
        return tuple(terms)

    def rarity(term: str) -> tuple[bool, int, str]:
        n = document_frequency.get(term, 0)
        return n == 0, n, term

    return tuple(sorted(sorted(terms, key=rarity)[:MAX_QUERY_TERMS]))


@dataclass(frozen=True)
class TermStats:
    """What BM25 needs to know about one entry, computed when it is written.

    ``terms`` counts the entry's own stems. ``context_terms`` counts the stems of its
    provenance neighbours (adjacent turns of the same session), which the ranker
    weighs lower, plus ``tags``: the entry's speaker label and session date stems, which
    ``context_terms`` includes and ``tags`` keeps apart so that the context can be
    rebuilt from new neighbours (``with_neighbours``). Aggregated counts only, never text.
    """

    terms: Mapping[str, int]
    length: int
    context_terms: Mapping[str, int] = field(default_factory=dict)
    context_length: int = 0
    analyzer: str = ANALYZER_VERSION
    tags: Mapping[str, int] = field(default_factory=dict)
    # True when every stem is named by its keyed token (`keyed_by`): what is stored.
    keyed: bool = False

    def stems(self) -> set[str]:
        """Every stem (or key) the statistics name: own, context and tags."""
        return set(self.terms) | set(self.context_terms) | set(self.tags)

    def keyed_by(self, keys: Mapping[str, str]) -> TermStats:
        """The same statistics with every stem named by its key (``keys``: stem → key,
        the member's keyed tokens): what the storage layer stores, so that no word is
        kept. Counts and lengths are unchanged; already keyed statistics are returned
        as they are."""
        if self.keyed:
            return self

        def rekeyed(counts: Mapping[str, int]) -> dict[str, int]:
            out: Counter[str] = Counter()
            for term, n in counts.items():
                out[keys[term]] += n
            return dict(out)

        return replace(
            self,
            terms=rekeyed(self.terms),
            context_terms=rekeyed(self.context_terms),
            tags=rekeyed(self.tags),
            keyed=True,
        )

    def index_terms(self) -> tuple[str, ...]:
        """Every stem that can give this entry a non-zero BM25 score (own and
        neighbour), sorted: what a storage-side term index should hold, so that a
        selector can fetch exactly the entries matching any of ``query_terms``."""
        return tuple(sorted(set(self.terms) | set(self.context_terms)))

    def to_json(self) -> dict[str, Any]:
        data = {
            "analyzer": self.analyzer,
            "terms": dict(sorted(self.terms.items())),
            "length": self.length,
            "context_terms": dict(sorted(self.context_terms.items())),
            "context_length": self.context_length,
            "tags": dict(sorted(self.tags.items())),
        }
        if self.keyed:
            data["keyed"] = True
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TermStats:
        return cls(
            terms=dict(data["terms"]),
            length=int(data["length"]),
            context_terms=dict(data.get("context_terms", {})),
            context_length=int(data.get("context_length", 0)),
            analyzer=str(data.get("analyzer", ANALYZER_VERSION)),
            tags=dict(data.get("tags", {})),
            keyed=bool(data.get("keyed", False)),
        )


def _context(tags: Mapping[str, int], neighbours: Iterable[Mapping[str, int]]) -> Counter[str]:
    context = Counter(tags)
    for stems in neighbours:
        context.update(stems)
    return context


def term_stats_for(
    text: str, *, neighbours: Iterable[str] = (), when: date | None = None, tagged: bool = True
) -> TermStats:
    """Analyse an entry body at write time, with its neighbour context: the texts of
    its provenance neighbours (any speaker label of theirs is left out: it names who
    said the neighbour), its own speaker label and the date of its session (``when``).

    ``tagged=False`` is the previous analysis, ``en-snowball-v1`` (a label is a word of
    the text, no date), kept to compare against."""
    tags: Counter[str] = Counter()
    if tagged:
        label, text = split_speaker_label(text)
        neighbours = (split_speaker_label(n)[1] for n in neighbours)
        for term in analyze(label):
            tags[term] += SPEAKER_LABEL_COUNT
        for term in session_date_terms(when) if when is not None else ():
            tags[term] += SESSION_DATE_COUNT
    own = Counter(analyze(text))
    context = _context(tags, (Counter(analyze(n)) for n in neighbours))
    return TermStats(
        terms=dict(own),
        length=sum(own.values()),
        context_terms=dict(context),
        context_length=sum(context.values()),
        analyzer=ANALYZER_VERSION if tagged else UNTAGGED_ANALYZER_VERSION,
        tags=dict(tags),
    )


def with_neighbours(stats: TermStats, neighbours: Iterable[TermStats]) -> TermStats:
    """Replace an entry's neighbour context from its neighbours' own stats.

    For the storage layer: when a later turn lands next to an existing entry, or a
    neighbour is forgotten, the entry's context is rebuilt from its ``tags`` and the
    current neighbours' ``terms`` without re-analysing any text.
    """
    context = _context(stats.tags, (n.terms for n in neighbours))
    return replace(stats, context_terms=dict(context), context_length=sum(context.values()))


@dataclass(frozen=True)
class CorpusStats:
    """Per-member collection statistics: document count, lengths, document frequency.

    Document frequency counts entries whose *own* terms contain the stem; neighbour
    context does not count, so every entry is counted exactly once per stem.

    ``term_key``, set by the storage layer, names a stem the way these statistics and
    the member's stored ``TermStats`` do (its keyed token); None: by the stem itself.
    """

    document_count: int = 0
    total_length: int = 0
    total_context_length: int = 0
    document_frequency: Mapping[str, int] = field(default_factory=dict)
    term_key: TermKey | None = field(default=None, compare=False, repr=False)

    @property
    def average_length(self) -> float:
        return self.total_length / self.document_count if self.document_count else 0.0

    @property
    def average_context_length(self) -> float:
        return self.total_context_length / self.document_count if self.document_count else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "document_count": self.document_count,
            "total_length": self.total_length,
            "total_context_length": self.total_context_length,
            "document_frequency": dict(sorted(self.document_frequency.items())),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CorpusStats:
        return cls(
            document_count=int(data["document_count"]),
            total_length=int(data["total_length"]),
            total_context_length=int(data.get("total_context_length", 0)),
            document_frequency=dict(data["document_frequency"]),
        )


def _corpus_apply(corpus: CorpusStats, stats: Iterable[TermStats], sign: int) -> CorpusStats:
    frequency = Counter(corpus.document_frequency)
    count, length, context_length = (
        corpus.document_count,
        corpus.total_length,
        corpus.total_context_length,
    )
    for item in stats:
        count += sign
        length += sign * item.length
        context_length += sign * item.context_length
        for term in item.terms:
            frequency[term] += sign
    if count < 0 or length < 0 or context_length < 0 or any(v < 0 for v in frequency.values()):
        raise ValueError("corpus statistics would go negative: removing what was never added")
    return CorpusStats(
        document_count=count,
        total_length=length,
        total_context_length=context_length,
        document_frequency={term: n for term, n in frequency.items() if n > 0},
    )


def corpus_stats_add(corpus: CorpusStats, stats: Iterable[TermStats]) -> CorpusStats:
    return _corpus_apply(corpus, stats, +1)


def corpus_stats_remove(corpus: CorpusStats, stats: Iterable[TermStats]) -> CorpusStats:
    return _corpus_apply(corpus, stats, -1)


def corpus_stats_for(stats: Iterable[TermStats]) -> CorpusStats:
    return corpus_stats_add(CorpusStats(), stats)


def corpus_stats_merge(*parts: CorpusStats) -> CorpusStats:
    frequency: Counter[str] = Counter()
    for part in parts:
        frequency.update(part.document_frequency)
    return CorpusStats(
        document_count=sum(p.document_count for p in parts),
        total_length=sum(p.total_length for p in parts),
        total_context_length=sum(p.total_context_length for p in parts),
        document_frequency=dict(frequency),
    )


class Scorable(Protocol):
    """What a ranker reads from a candidate (``RecallCandidate`` satisfies it)."""

    @property
    def body(self) -> str: ...

    @property
    def term_stats(self) -> TermStats: ...


SemanticFn = Callable[[str, Scorable, CorpusStats | None], float]


def seed_tokens(text: str) -> frozenset[str]:
    """The seed's tokens: lowercase, split on non-alphanumerics, longer than 2 chars."""
    return frozenset(t for t in _SEED_SPLIT_RE.split(text.lower()) if len(t) > 2)


def jaccard(query: str, candidate: Scorable, corpus_stats: CorpusStats | None = None) -> float:
    """The seed's reference semantic factor: |intersection| / |union| of token sets."""
    left, right = seed_tokens(query), seed_tokens(candidate.body)
    union = left | right
    return len(left & right) / len(union) if union else 0.0


@dataclass(frozen=True)
class BM25:
    """Okapi BM25 over stemmed, stop-word-free terms, normalised into [0, 1].

    Neighbour context is folded in BM25F-style: a term's frequency is
    ``tf_own + context_weight * tf_context`` and the length is weighted likewise,
    so context can lift an entry whose own words miss the query without ever
    outranking an equally long entry that states the terms itself.

    Normalisation divides by the query's ceiling ``sum(idf(q) * (k1 + 1))``, the
    value no document can reach (each BM25 term saturates below ``k1 + 1``). It
    depends only on the query and the corpus statistics, never on the other
    candidates, so a score is the same whichever candidates it is ranked among and
    the ranking under one query is exactly raw BM25's.
    """

    k1: float = 1.2
    b: float = 0.75  # the textbook's; the default ranker `bm25` weakens it (below)
    context_weight: float = 0.5
    name: str = "bm25"

    def _idf(self, term: str, corpus: CorpusStats) -> float:
        # Lucene's always-positive idf: a term present in every entry still counts a
        # little, and an unseen term counts most (it lowers the ceiling's share).
        n = corpus.document_frequency.get(term, 0)
        return math.log(1.0 + (corpus.document_count - n + 0.5) / (n + 0.5))

    def bind(self, query: str, corpus_stats: CorpusStats | None) -> Callable[[Scorable], float]:
        corpus = corpus_stats or CorpusStats()
        keys = query_keys(query, corpus)
        terms = query_cut(keys.values(), corpus.document_frequency)
        weights = [(term, self._idf(term, corpus)) for term in terms]
        ceiling = sum(w for _, w in weights) * (self.k1 + 1.0)
        if ceiling <= 0.0:
            return lambda candidate: 0.0
        average = corpus.average_length + self.context_weight * corpus.average_context_length
        k1, b, cw = self.k1, self.b, self.context_weight

        def score(candidate: Scorable) -> float:
            stats = candidate.term_stats
            own, context = stats.terms, stats.context_terms
            length = stats.length + cw * stats.context_length
            norm = k1 * (1.0 - b + b * (length / average)) if average > 0 else k1
            total = 0.0
            for term, weight in weights:
                tf = own.get(term, 0) + cw * context.get(term, 0)
                if tf:
                    total += weight * tf * (k1 + 1.0) / (tf + norm)
            return min(1.0, total / ceiling)

        return score

    def __call__(
        self, query: str, candidate: Scorable, corpus_stats: CorpusStats | None = None
    ) -> float:
        return self.bind(query, corpus_stats)(candidate)


def matched_terms(
    query: str, candidate: Scorable, corpus_stats: CorpusStats | None = None
) -> tuple[str, ...]:
    """The query's own words whose stem the entry itself contains (not its neighbours),
    the stem named as ``corpus_stats`` names it (`query_keys`).

    Used for the rationale: words come from the query and the entry, never from any
    other entry, so a rationale cannot leak a neighbour's content.
    """
    own = candidate.term_stats.terms
    if not own:
        return ()
    keys = query_keys(query, corpus_stats)
    seen: dict[str, None] = {}
    for token in _WORD_RE.findall(query.lower()):
        if len(token) > 1 and token not in ENGLISH_STOP_WORDS and keys.get(stem(token)) in own:
            seen.setdefault(token, None)
    return tuple(seen)


# The default semantic factor: BM25 with k1 1.2 and a weak length normalisation (b 0.35
# where the textbook has 0.75): memories are short turns, whose length says little about
# how much of them is on topic. On the LoCoMo dev split, through the write path, recall
# lies on a plateau for b 0.25..0.4 (0.837..0.838 recall_any@10, against 0.826 at 0.75),
# so b is not a fitted point. A neighbour's words count half as much as the entry's own
# (flat for weights 0.3..0.75 and windows 1..4, within 0.03).
bm25 = BM25(b=0.35)
# The previous default (textbook b 0.75), kept by name to compare against.
bm25_v1 = BM25(name="bm25-v1")
# The same without neighbour context, for comparison.
bm25_no_context = BM25(b=0.35, context_weight=0.0, name="bm25-no-context")

SEMANTIC_RANKERS: Mapping[str, SemanticFn] = {
    "jaccard": jaccard,
    "bm25": bm25,
    "bm25-v1": bm25_v1,
    "bm25-no-context": bm25_no_context,
}
