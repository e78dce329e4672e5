"""The pure half of "nothing comes back by itself": how a forgotten fact's text is
normalised and digested, and which digests a later write is checked against. No
database: everything is a function of its arguments."""

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.policy.fingerprints import (
    FORGOTTEN_FACT_MIN_CONTAINED_TOKENS,
    fact_candidate_digests,
    fact_key_digest,
    fact_text_digest,
    fact_tokens,
)

SECRET = b"s" * 32
MEMBER = uuid.UUID("11111111-1111-4111-8111-111111111111")
OTHER = uuid.UUID("22222222-2222-4222-8222-222222222222")


def digest_of(text: str, member=MEMBER, secret=SECRET) -> str:
    return fact_text_digest(secret=secret, member_id=member, tokens=fact_tokens(text))


def caught(forgotten: str, write: str) -> bool:
    """Would `write` be refused once `forgotten` was forgotten?"""
    candidates = fact_candidate_digests(
        secret=SECRET, member_id=MEMBER, text=write, lengths=[len(fact_tokens(forgotten))]
    )
    return digest_of(forgotten) in candidates


def test_tokens_ignore_case_spacing_and_punctuation():
    assert fact_tokens("  Allergic to\tPENICILLIN!! ") == ("allergic", "to", "penicillin")
    assert fact_tokens("allergic, to -- penicillin.") == ("allergic", "to", "penicillin")
    # NFKC: the full-width and ligature forms are the letters they stand for
    assert fact_tokens("\ufb01ne \uff21\uff22\uff23") == ("fine", "abc")
    assert fact_tokens("snake_case") == ("snake", "case")
    assert fact_tokens("?! ...") == ()


def test_a_digest_is_bound_to_the_member_and_the_secret_and_holds_no_text():
    digest = digest_of("allergic to penicillin")
    assert digest != digest_of("allergic to penicillin", member=OTHER)
    assert digest != digest_of("allergic to penicillin", secret=b"t" * 32)
    assert len(digest) == 64 and "penicillin" not in digest


def test_a_short_secret_is_refused():
    with pytest.raises(ValueError, match="secret"):
        digest_of("x", secret=b"short")


def test_a_key_digest_only_for_a_key_that_names_a_subject():
    assert fact_key_digest(secret=SECRET, member_id=MEMBER, conflict_key="financial::::") is None
    assert fact_key_digest(secret=SECRET, member_id=MEMBER, conflict_key="") is None
    named = fact_key_digest(secret=SECRET, member_id=MEMBER, conflict_key="medical::::penicillin")
    assert named and named != fact_key_digest(
        secret=SECRET, member_id=OTHER, conflict_key="medical::::penicillin"
    )
    # a key and a text with the same characters never collide (domain separation)
    assert named != digest_of("medical::::penicillin")


def test_a_forgotten_text_is_caught_inside_a_longer_one():
    assert caught("allergic to penicillin", "Note: she is ALLERGIC to penicillin; ask first.")
    assert not caught("allergic to penicillin", "allergic to pollen")
    assert not caught("allergic to penicillin", "allergic penicillin to")


def test_a_very_short_forgotten_text_is_caught_only_on_its_own():
    short = " ".join(["dentist"] * (FORGOTTEN_FACT_MIN_CONTAINED_TOKENS - 1))
    assert caught(short, short.upper())
    assert not caught(short, f"call the {short} tomorrow")


def test_nothing_is_a_candidate_for_an_empty_text():
    assert fact_candidate_digests(secret=SECRET, member_id=MEMBER, text="...", lengths=[3]) == set()


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéüñ0123456789", min_size=1, max_size=8)
SEPARATOR = st.text(alphabet=" \t\n.,;:!?-—()\"'/_", min_size=1, max_size=3)
EDGE = st.text(alphabet=" \t\n.,;:!?-—()\"'/_", max_size=3)
CASE = st.sampled_from([str.lower, str.upper, str.title, str.swapcase, str.capitalize])


@st.composite
def restatements(draw, min_words: int = 1):
    """A forgotten text and one way of writing it again: every word in its own case,
    separated by any run of spaces or punctuation, wrapped in any punctuation."""
    words = draw(st.lists(WORD, min_size=min_words, max_size=8))
    variant = draw(EDGE)
    for index, word in enumerate(words):
        if index:
            variant += draw(SEPARATOR)
        variant += draw(CASE)(word)
    return " ".join(words), variant + draw(EDGE)


@given(restatements())
def test_every_case_spacing_and_punctuation_variant_is_caught(pair):
    forgotten, variant = pair
    assert caught(forgotten, variant)


@given(
    restatements(min_words=FORGOTTEN_FACT_MIN_CONTAINED_TOKENS),
    st.lists(WORD, max_size=4),
    st.lists(WORD, max_size=4),
)
def test_every_variant_is_caught_among_other_words(pair, before, after):
    forgotten, variant = pair
    assert caught(forgotten, " ".join([*before, variant, *after]))


@given(restatements(), WORD)
def test_a_changed_word_is_a_different_fact(pair, extra):
    forgotten, _ = pair
    changed = f"{forgotten}{extra}"  # the last word is longer: another word
    assert not caught(forgotten, changed)
