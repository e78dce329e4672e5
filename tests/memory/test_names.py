"""One normalisation for names (`memory.policy.names`), without a database: what a reader
cannot tell apart is one name; what a reader can is not."""

import string

from hypothesis import given
from hypothesis import strategies as st

from memory.policy.names import MentionMatcher, name_key, name_spans

CYRILLIC_O = "\u043e"
FULL_WIDTH = {c: chr(ord(c) + 0xFEE0) for c in string.ascii_letters + string.digits}


def test_spelling_variants_no_reader_tells_apart_are_one_name():
    key = name_key("Quorvex7")
    for variant in (
        "Quorvex7.",
        "Quorvex 7",
        "QUORVEX-7",
        " quorvex\t7 ",
        f"Qu{CYRILLIC_O}rvex7",
        "".join(FULL_WIDTH[c] for c in "Quorvex7"),
    ):
        assert name_key(variant) == key, variant
    assert name_key("Zoë") == name_key("Zoe")


def test_different_names_stay_different():
    assert name_key("Quorvex7") != name_key("Quorvex8")
    assert name_key("Anna") != name_key("Anne")
    assert name_key("!!!") == "" and name_key("   ") == ""


def test_a_mention_is_a_run_of_whole_words():
    sam = MentionMatcher(["Sam"])
    assert sam.in_text("Had lunch with sam.")
    assert not sam.in_text("Samuel came by")  # part of a word is not a mention
    quorvex = MentionMatcher(["Quorvex7"])
    assert quorvex.in_text("Met Quorvex 7 at the harbour")
    assert not quorvex.in_text("Quorvex came, and 7 others")
    assert not MentionMatcher([]).in_text("anything")


def test_spans_point_at_the_written_name_whatever_its_spelling():
    text = f"I told Qu{CYRILLIC_O}rvex 7. about it; QUORVEX7 too, not Quorvex8."
    spans = name_spans(text, is_name=lambda key: key == name_key("Quorvex7"), longest=3)
    assert [text[a:b] for a, b in spans] == [f"Qu{CYRILLIC_O}rvex 7", "QUORVEX7"]


names = st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=12)
separators = st.sampled_from(["", " ", ".", "-", "  ", "\t", "'"])


@given(names, st.lists(separators, min_size=1, max_size=13))
def test_case_punctuation_and_spacing_never_change_a_name(name, seps):
    """Insert separators between any letters and change the case: still one name."""
    varied = "".join(c + seps[i % len(seps)] for i, c in enumerate(name.swapcase()))
    assert name_key(varied) == name_key(name)


@given(names, st.lists(st.integers(min_value=1, max_value=11), max_size=2), separators)
def test_a_name_broken_in_up_to_three_words_is_still_mentioned(name, cuts, sep):
    """A mention may split the name at two places ("Quorvex 7", "Anna Lee-Smith");
    more is no longer a name a reader sees (single letters are every word)."""
    varied = name
    for cut in sorted({c for c in cuts if c < len(name)}, reverse=True):
        varied = varied[:cut] + (sep or " ") + varied[cut:]
    assert MentionMatcher([name]).in_text(f"yesterday {varied.upper()} called")
