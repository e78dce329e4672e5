"""The semantic factor: the seed's Jaccard and the stemmed BM25, without a database."""

from dataclasses import dataclass
from datetime import date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.recall.rankers import (
    ANALYZER_VERSION,
    BM25,
    ENGLISH_STOP_WORDS,
    SEMANTIC_RANKERS,
    SESSION_DATE_COUNT,
    SPEAKER_LABEL_COUNT,
    UNTAGGED_ANALYZER_VERSION,
    CorpusStats,
    TermStats,
    analyze,
    bm25,
    corpus_stats_add,
    corpus_stats_for,
    corpus_stats_merge,
    corpus_stats_remove,
    jaccard,
    matched_terms,
    query_terms,
    seed_tokens,
    session_date_terms,
    split_speaker_label,
    term_stats_for,
    with_neighbours,
)


@dataclass(frozen=True)
class Doc:
    body: str
    term_stats: TermStats


def doc(body: str, *, neighbours: tuple[str, ...] = (), when: date | None = None) -> Doc:
    return Doc(body, term_stats_for(body, neighbours=neighbours, when=when))


def corpus(*docs: Doc) -> CorpusStats:
    return corpus_stats_for(d.term_stats for d in docs)


FILLER = [
    doc("We talked about the weather and the garden today."),
    doc("My sister called about the holiday plans."),
    doc("The meeting moved to Thursday afternoon."),
    doc("I bought new shoes for the hiking trip."),
]

words = st.sampled_from(
    ["coffee", "running", "runs", "the", "garden", "of", "tea", "Paris", "2023", "and", "x"]
)
texts = st.lists(words, max_size=12).map(" ".join)


# --- Jaccard (the seed's reference) ---------------------------------------------------


def test_seed_tokens_lowercase_split_on_non_alphanumerics_and_keep_longer_than_two():
    assert seed_tokens("I take my Coffee-black, OK?") == {"take", "coffee", "black"}


@pytest.mark.parametrize(
    ("query", "body", "expected"),
    [
        ("coffee black", "I take my coffee black", 2 / 3),
        ("COFFEE", "coffee", 1.0),
        ("tea", "coffee", 0.0),
        ("", "coffee", 0.0),
        ("an", "of", 0.0),  # no token longer than two characters on either side
        ("coffee black sugar", "coffee with sugar", 2 / 4),
    ],
)
def test_jaccard_is_intersection_over_union_of_token_sets(query, body, expected):
    assert jaccard(query, doc(body), None) == pytest.approx(expected)


# --- analysis --------------------------------------------------------------------------


def test_stemming_maps_running_and_runs_to_one_term():
    assert analyze("running") == analyze("runs") == ["run"]


def test_stop_words_and_one_letter_tokens_are_dropped():
    assert analyze("What did I do with the keys?") == ["key"]
    assert {"the", "what", "did", "would"} <= ENGLISH_STOP_WORDS


def test_term_stats_count_own_stems_and_neighbour_stems_apart():
    stats = term_stats_for("Running runs", neighbours=("the garden", "garden party"))
    assert stats.terms == {"run": 2}
    assert stats.length == 2
    assert stats.context_terms == {"garden": 2, "parti": 1}
    assert stats.context_length == 3
    assert stats.analyzer == ANALYZER_VERSION


def test_term_stats_survive_a_json_round_trip():
    stats = term_stats_for(
        "Ann: coffee every morning", neighbours=("tea at noon",), when=date(2023, 5, 8)
    )
    assert TermStats.from_json(stats.to_json()) == stats


def test_term_stats_stored_before_tags_still_load():
    stored = {"terms": {"coffe": 1}, "length": 1, "context_terms": {"tea": 1}}
    assert TermStats.from_json(stored).tags == {}


# --- speaker label and session date ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Caroline: I went to a support group.", ("Caroline", "I went to a support group.")),
        ("Dr. Lee: take two a day", ("Dr. Lee", "take two a day")),
        ("10:30 meeting with Ann", ("", "10:30 meeting with Ann")),
        ("see https://example.org first", ("", "see https://example.org first")),
        ("Note that: it rained", ("Note that", "it rained")),
        ("no label here", ("", "no label here")),
        (
            "A very long sentence that goes on: and on",
            ("", "A very long sentence that goes on: and on"),
        ),
    ],
)
def test_a_leading_speaker_label_is_split_from_the_text(text, expected):
    assert split_speaker_label(text) == expected


def test_session_date_terms_are_the_month_and_year_stems():
    assert session_date_terms(date(2023, 2, 1)) == ["februari", "2023"]
    # "may" is a stop word, in a query as in the index: only the year is left
    assert session_date_terms(datetime(2023, 5, 8, 13, 56)) == ["2023"]


def test_label_and_session_date_go_to_the_context_as_tags_never_the_own_terms():
    stats = term_stats_for(
        "Caroline: I joined a support group.",
        neighbours=("Melanie: How did it go?", "Thanks for telling me"),
        when=date(2023, 2, 1),
    )
    assert stats.terms == {"join": 1, "support": 1, "group": 1}
    assert stats.length == 3
    assert stats.tags == {
        "carolin": SPEAKER_LABEL_COUNT,
        "februari": SESSION_DATE_COUNT,
        "2023": SESSION_DATE_COUNT,
    }
    # the neighbours' own labels name who said them: left out
    assert stats.context_terms == {**stats.tags, "go": 1, "thank": 1, "tell": 1}
    assert stats.context_length == sum(stats.context_terms.values())
    # document frequency counts own terms only: tags never make a stem common
    assert set(corpus_stats_for([stats]).document_frequency) == {"join", "support", "group"}


def test_untagged_analysis_is_the_previous_one():
    stats = term_stats_for(
        "Caroline: I joined a group.", neighbours=("Melanie: Nice!",), tagged=False
    )
    assert stats.terms == {"carolin": 1, "join": 1, "group": 1}
    assert stats.context_terms == {"melani": 1, "nice": 1}
    assert stats.tags == {}
    assert stats.analyzer == UNTAGGED_ANALYZER_VERSION != ANALYZER_VERSION


@given(
    body=texts,
    label=st.sampled_from(["", "Ann: ", "Dr. Lee: "]),
    neighbours=st.lists(texts.map(lambda t: f"Bo: {t}"), max_size=4),
    when=st.one_of(st.none(), st.dates()),
)
def test_with_neighbours_keeps_the_tags_and_matches_a_fresh_analysis(body, label, neighbours, when):
    alone = term_stats_for(label + body, when=when)
    rebuilt = with_neighbours(alone, [term_stats_for(n) for n in neighbours])
    assert rebuilt == term_stats_for(label + body, neighbours=neighbours, when=when)


def test_a_question_naming_the_speaker_prefers_what_that_speaker_said():
    hers = doc("Caroline: I went to the support group yesterday.")
    his = doc("Melanie: I heard about the support group from a friend.")
    stats = corpus(hers, his, *FILLER)
    query = "When did Caroline go to the support group?"
    assert bm25(query, hers, stats) > bm25(query, his, stats)


def test_a_question_naming_a_month_finds_a_turn_of_that_session():
    february = doc("Gina: I found the perfect spot for my store!", when=date(2023, 2, 1))
    march = doc("Gina: I found the perfect dress for the store!", when=date(2023, 3, 9))
    stats = corpus(february, march, *FILLER)
    query = "What did Gina find for her store in February 2023?"
    assert bm25(query, february, stats) > bm25(query, march, stats)


def test_with_neighbours_rebuilds_context_without_reanalysing_text():
    own = term_stats_for("coffee every morning")
    left, right = term_stats_for("tea at noon"), term_stats_for("garden party")
    assert with_neighbours(own, [left, right]) == term_stats_for(
        "coffee every morning", neighbours=("tea at noon", "garden party")
    )


# --- corpus statistics ----------------------------------------------------------------


def test_corpus_stats_count_documents_lengths_and_document_frequency():
    stats = corpus(doc("coffee coffee tea", neighbours=("garden",)), doc("coffee"))
    assert stats.document_count == 2
    assert stats.total_length == 4
    assert stats.total_context_length == 1
    assert stats.document_frequency == {"coffe": 2, "tea": 1}  # context never counts
    assert stats.average_length == 2.0


def test_corpus_stats_add_and_remove_are_inverse_and_merge_matches_a_rebuild():
    a, b = term_stats_for("coffee tea"), term_stats_for("tea garden")
    both = corpus_stats_for([a, b])
    assert corpus_stats_add(corpus_stats_for([a]), [b]) == both
    assert corpus_stats_remove(both, [b]) == corpus_stats_for([a])
    assert corpus_stats_merge(corpus_stats_for([a]), corpus_stats_for([b])) == both
    assert corpus_stats_remove(both, [a, b]) == CorpusStats()
    assert CorpusStats.from_json(both.to_json()) == both


def test_removing_what_was_never_added_is_refused():
    with pytest.raises(ValueError, match="negative"):
        corpus_stats_remove(CorpusStats(), [term_stats_for("coffee")])


# --- BM25 ------------------------------------------------------------------------------


def test_bm25_matches_across_inflections():
    runner = doc("She runs every morning before work.")
    stats = corpus(runner, *FILLER)
    assert bm25("Who was running?", runner, stats) > 0.0
    assert bm25("Who was running?", FILLER[0], stats) == 0.0


def test_bm25_ignores_stop_words_in_the_query():
    target = doc("The garden is lovely in May.")
    stats = corpus(target, *FILLER)
    assert bm25("the and of what", target, stats) == 0.0
    assert bm25("what about the garden", target, stats) == bm25("garden", target, stats)


def test_bm25_prefers_the_rarer_term():
    rare, common = doc("I adopted a greyhound."), doc("We talked about the weather again.")
    stats = corpus(rare, common, *FILLER)
    assert bm25("greyhound weather", rare, stats) > bm25("greyhound weather", common, stats)


def test_neighbour_context_lifts_an_entry_but_less_than_its_own_words():
    own = doc("I adopted a greyhound named Pixel.")
    answer = doc("Yes, last spring!", neighbours=("When did you adopt the greyhound?",))
    stats = corpus(own, answer, *FILLER)
    lifted = bm25("greyhound", answer, stats)
    assert 0.0 < lifted < bm25("greyhound", own, stats)
    assert BM25(context_weight=0.0)("greyhound", answer, stats) == 0.0


def test_bm25_without_corpus_stats_still_scores_inside_the_unit_interval():
    assert 0.0 < bm25("coffee", doc("coffee"), None) <= 1.0


def test_bind_and_call_give_the_same_score():
    target = doc("She runs every morning.")
    stats = corpus(target, *FILLER)
    assert bm25.bind("running morning", stats)(target) == bm25("running morning", target, stats)


@given(query=texts, bodies=st.lists(texts, min_size=1, max_size=6))
def test_bm25_score_is_in_the_unit_interval_and_independent_of_its_neighbours(query, bodies):
    docs = [doc(b) for b in bodies]
    stats = corpus(*docs)
    alone = [bm25(query, d, stats) for d in docs]
    assert all(0.0 <= s <= 1.0 for s in alone)
    # Same corpus statistics, any other candidates around it: the same score.
    scorer = bm25.bind(query, stats)
    assert [scorer(d) for d in reversed(docs)] == list(reversed(alone))


def test_matched_terms_name_only_query_words_found_in_the_entry_itself():
    entry = doc("She runs daily.", neighbours=("The secret garden.",))
    assert matched_terms("Is she running in the garden?", entry) == ("running",)


def test_every_named_ranker_is_registered():
    assert set(SEMANTIC_RANKERS) == {"jaccard", "bm25", "bm25-v1", "bm25-no-context"}


def test_index_terms_cover_every_stem_that_can_score():
    # given an entry and a query that shares no indexed stem with it
    entry = doc("She runs daily.", neighbours=("The secret garden.",))
    stats = corpus(entry, *FILLER)
    assert entry.term_stats.index_terms() == ("daili", "garden", "run", "secret")
    assert query_terms("What about the gardens, running?") == ("garden", "run")
    # then a query disjoint from the index scores zero: a selector may skip it
    assert not set(query_terms("weather holiday")) & set(entry.term_stats.index_terms())
    assert bm25("weather holiday", entry, stats) == 0.0
