"""The pure rules of entities (`memory.entities.policy`): the lifecycle table, relationship
types from a note, validity intervals and decay. No database."""

from datetime import UTC, datetime, timedelta

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memory.entities.policy import (
    ENTITY_TRANSITIONS,
    decay_at,
    decay_days,
    entity_transition_allowed,
    relationship_type,
    valid_at,
)
from memory.enums import EntityState, ExpiryAction

STATES = st.sampled_from(EntityState.values)
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def test_the_lifecycle_table():
    assert entity_transition_allowed("active", "archived", by_member=False)
    assert entity_transition_allowed("archived", "active", by_member=False)
    assert entity_transition_allowed("active", "retired", by_member=False)
    assert entity_transition_allowed("archived", "retired", by_member=False)
    # only the member brings a retired entity back
    assert not entity_transition_allowed("retired", "active", by_member=False)
    assert entity_transition_allowed("retired", "active", by_member=True)
    assert not entity_transition_allowed("retired", "archived", by_member=True)
    assert not entity_transition_allowed("active", "active", by_member=True)


@settings(derandomize=True)
@given(current=STATES, target=STATES, by_member=st.booleans())
@example(current="retired", target="active", by_member=False)
def test_no_one_but_the_member_leaves_retired_and_nothing_unlisted_is_allowed(
    current, target, by_member
):
    allowed = entity_transition_allowed(current, target, by_member=by_member)
    if (current, target) not in ENTITY_TRANSITIONS:
        assert not allowed
    if current == EntityState.RETIRED and allowed:
        assert by_member and target == EntityState.ACTIVE
    # the member may always do what anyone may
    if allowed:
        assert entity_transition_allowed(current, target, by_member=True)


@settings(derandomize=True)
@given(path=st.lists(st.tuples(STATES, st.booleans()), max_size=12))
def test_a_retired_entity_stays_retired_along_any_path_the_member_does_not_take(path):
    """Walk any sequence of requested moves, applying the allowed ones: once retired, only a
    member's move ever leaves retired."""
    state = EntityState.RETIRED
    for target, by_member in path:
        if entity_transition_allowed(state, target, by_member=by_member):
            if state == EntityState.RETIRED:
                assert by_member
            state = target


def test_relationship_types_are_read_from_the_note_without_a_model():
    assert relationship_type("my sister") == "sister"
    assert relationship_type("Sisters since 1990") == "sister"
    assert relationship_type("a colleague from work") == "colleague"
    assert relationship_type("my stepmother") == "stepmother"
    assert relationship_type("someone I met once") == ""
    assert relationship_type("") == ""


@settings(derandomize=True)
@given(
    start=st.integers(0, 1000),
    length=st.one_of(st.none(), st.integers(0, 1000)),
    at=st.integers(-10, 2100),
)
def test_validity_is_half_open(start, length, at):
    valid_from = T0 + timedelta(days=start)
    valid_to = None if length is None else valid_from + timedelta(days=length)
    moment = T0 + timedelta(days=at)
    held = valid_at(valid_from=valid_from, valid_to=valid_to, at=moment)
    assert held == (moment >= valid_from and (valid_to is None or moment < valid_to))


def test_decay_is_the_earlier_of_the_envelope_and_the_members_choice():
    summarize, review, delete = ExpiryAction.SUMMARIZE, ExpiryAction.REVIEW, ExpiryAction.DELETE
    assert decay_days(expiry_action=summarize, raw_days=30, auto_forget_days=None) == 30
    assert decay_days(expiry_action=summarize, raw_days=30, auto_forget_days=91) == 30
    # a summary lives as long as the envelope keeps summaries
    summary = {"raw_days": 30, "summary_days": 90, "summary": True}
    assert decay_days(expiry_action=summarize, **summary, auto_forget_days=None) == 90
    assert decay_days(expiry_action=summarize, **summary, auto_forget_days=60) == 60
    assert decay_days(expiry_action=review, raw_days=None, auto_forget_days=91) == 91
    # a human decides (review) and notebooks live with their notebook: no envelope decay
    assert decay_days(expiry_action=review, raw_days=365, auto_forget_days=None) is None
    assert decay_days(expiry_action=delete, raw_days=None, auto_forget_days=None) is None
    assert decay_at(asserted_at=T0, days=None) is None
    assert decay_at(asserted_at=T0, days=30) == T0 + timedelta(days=30)
