"""The origin table (pure: no database)."""

from pathlib import Path

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from iris_site.audit.enums import ActorType
from memory.access.origins import (
    ORIGIN_NEEDS_MEMBER_TURN,
    ORIGIN_NOT_ALLOWED,
    ORIGIN_NOT_IN_TURN,
    evaluate_origin,
    origin_table_markdown,
    quoted_share,
)
from memory.enums import Origin, ScopeKind


def decide(writer, origin, kind=ScopeKind.PROFILE, turns=0, quoted=1.0):
    return evaluate_origin(
        writer=writer, origin=origin, scope_kind=kind, member_turns=turns, quoted=quoted
    )


@pytest.mark.parametrize("writer", ActorType.values)
def test_no_writer_asserts_a_confirmation(writer):
    decision = decide(writer, Origin.USER_CONFIRMED, turns=3)
    assert (decision.allowed, decision.code, decision.status) == (False, ORIGIN_NOT_ALLOWED, 403)


@pytest.mark.parametrize("writer", [ActorType.MEMBER, ActorType.SERVICE, ActorType.SYSTEM])
def test_only_operators_write_copilot_notes(writer):
    kind = ScopeKind.OPERATOR_COPILOT
    assert decide(writer, Origin.OPERATOR_COPILOT, kind).code == ORIGIN_NOT_ALLOWED
    assert decide(ActorType.OPERATOR, Origin.OPERATOR_COPILOT, kind).allowed
    # and a copilot note lives in its own scope only
    assert not decide(ActorType.OPERATOR, Origin.OPERATOR_COPILOT, ScopeKind.PROFILE).allowed


def test_a_surface_quotes_the_member_only_with_their_turn():
    assert decide(ActorType.SERVICE, Origin.USER_STATED).code == ORIGIN_NEEDS_MEMBER_TURN
    assert decide(ActorType.SERVICE, Origin.USER_STATED).status == 422
    assert decide(ActorType.SERVICE, Origin.USER_STATED, turns=1).allowed
    assert decide(ActorType.MEMBER, Origin.USER_STATED).allowed


def test_the_quoted_turns_must_say_what_is_recorded():
    assert quoted_share(["anxious", "exam"], ["anxious", "exam", "late"]) == 1.0
    assert quoted_share(["feel", "anxious", "exam"], ["anxious", "exam"]) == pytest.approx(2 / 3)
    assert quoted_share(["therapist", "panic"], ["hi", "today"]) == 0.0
    assert quoted_share([], ["anything"]) == 0.0
    unsaid = decide(ActorType.SERVICE, Origin.USER_STATED, turns=1, quoted=0.2)
    assert (unsaid.code, unsaid.status) == (ORIGIN_NOT_IN_TURN, 422)
    # the member writing for themselves quotes nothing
    assert decide(ActorType.MEMBER, Origin.USER_STATED, quoted=0.0).allowed


@pytest.mark.parametrize("writer", [ActorType.SYSTEM, ActorType.OPERATOR])
def test_jobs_and_operators_never_speak_for_the_member(writer):
    assert decide(writer, Origin.USER_STATED, turns=5).code == ORIGIN_NOT_ALLOWED


@given(
    writer=st.sampled_from(ActorType.values),
    origin=st.sampled_from(Origin.values),
    kind=st.sampled_from(ScopeKind.values),
    turns=st.integers(min_value=0, max_value=3),
)
def test_what_is_allowed_is_exactly_the_table(writer, origin, kind, turns):
    decision = decide(writer, origin, kind, turns)
    expected = {
        ActorType.MEMBER: origin == Origin.USER_STATED,
        ActorType.SERVICE: origin
        in (Origin.MODEL_INFERRED, Origin.SUMMARIZED_FROM_SESSION, Origin.IMPORTED)
        or (origin == Origin.USER_STATED and turns > 0),
        ActorType.OPERATOR: origin == Origin.OPERATOR_COPILOT
        and kind == ScopeKind.OPERATOR_COPILOT,
        ActorType.SYSTEM: origin
        in (Origin.MODEL_INFERRED, Origin.SUMMARIZED_FROM_SESSION, Origin.IMPORTED),
    }[writer]
    if origin == Origin.OPERATOR_COPILOT and kind != ScopeKind.OPERATOR_COPILOT:
        expected = False
    assert decision.allowed is expected
    assert decision.allowed or decision.code in (ORIGIN_NOT_ALLOWED, ORIGIN_NEEDS_MEMBER_TURN)


def test_the_design_notes_print_the_table_the_code_holds():
    notes = (Path(settings.BASE_DIR) / "docs" / "design.md").read_text(encoding="utf-8")
    assert origin_table_markdown() in notes
