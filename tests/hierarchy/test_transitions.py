"""The named transitions table: complete, each legal move has a service and an event,
the four illegal moves (and anything unknown) fail closed. Pure: no database."""

import importlib

import pytest

from hierarchy.transitions import (
    ILLEGAL,
    TRANSITIONS,
    IllegalTransition,
    Tier,
    TransitionKind,
    episodic_record_check,
    transition,
    transition_check,
)

EXPECTED_CODES = {
    TransitionKind.WRITE: {f"T{i}" for i in range(1, 8)},
    TransitionKind.READ: {f"R{i}" for i in range(1, 5)},
    TransitionKind.RECOVERY: {"RC1", "RC2", "RC3"},
    TransitionKind.DELETION: {f"D{i}" for i in range(1, 6)},
}


def test_the_table_names_all_nineteen_transitions_by_class():
    # given / when
    by_kind = {kind: {t.code for t in TRANSITIONS if t.kind == kind} for kind in TransitionKind}
    # then
    assert by_kind == EXPECTED_CODES
    assert len(TRANSITIONS) == 19


@pytest.mark.parametrize("entry", [t for t in TRANSITIONS if t.service], ids=lambda t: t.code)
def test_every_performable_transition_names_an_importable_service_and_an_event(entry):
    module, _, name = entry.service.rpartition(".")
    assert callable(getattr(importlib.import_module(module), name))
    assert entry.audit_action


@pytest.mark.parametrize("entry", [t for t in TRANSITIONS if t.service], ids=lambda t: t.code)
def test_every_legal_transition_is_found_by_its_move(entry):
    assert transition_check(entry.source, entry.target, entry.operation) is entry
    assert transition(entry.code) is entry


@pytest.mark.parametrize(
    ("source", "target", "operation", "rule"),
    [
        (Tier.SOURCE, Tier.EPISODIC, "record-tier-event", "source-to-episodic-bypass"),
        (Tier.STM, Tier.STM, "move", "stm-cross-scope"),
        (Tier.LTM, Tier.LTM, "rewrite", "ltm-direct-rewrite"),
        (Tier.EPISODIC, Tier.STM, "restore", "episodic-to-writable"),
        (Tier.EPISODIC, Tier.LTM, "write", "episodic-to-writable"),
        (Tier.EPISODIC, Tier.LTM, "consolidate", "episodic-to-writable"),
    ],
)
def test_the_four_illegal_transitions_fail_closed_with_their_rule(source, target, operation, rule):
    with pytest.raises(IllegalTransition) as caught:
        transition_check(source, target, operation)
    assert caught.value.rule == rule
    assert caught.value.status_code == 409
    assert caught.value.code == "illegal-transition"
    assert caught.value.fields == {"transition": [rule]}
    assert len(caught.value.message) > 40  # a clear sentence, not just a code


def test_exactly_four_illegal_rules_are_declared():
    assert {r.code for r in ILLEGAL} == {
        "source-to-episodic-bypass",
        "stm-cross-scope",
        "ltm-direct-rewrite",
        "episodic-to-writable",
    }


def test_cross_scope_move_is_allowed_only_as_the_admin_override():
    found = transition_check(Tier.STM, Tier.STM, "move", admin_override=True)
    assert found.code == "STM-X"
    assert found.audit_action == "hierarchy.stm.admin_rescoped"


@pytest.mark.parametrize("rule", ["ltm-direct-rewrite", "episodic-to-writable"])
def test_admin_override_does_not_open_other_illegal_transitions(rule):
    moves = {
        "ltm-direct-rewrite": (Tier.LTM, Tier.LTM, "rewrite"),
        "episodic-to-writable": (Tier.EPISODIC, Tier.STM, "write"),
    }
    with pytest.raises(IllegalTransition) as caught:
        transition_check(*moves[rule], admin_override=True)
    assert caught.value.rule == rule


def test_unknown_moves_fail_closed():
    with pytest.raises(IllegalTransition) as caught:
        transition_check(Tier.STM, Tier.EPISODIC, "teleport")
    assert caught.value.rule == "unknown-transition"
    with pytest.raises(IllegalTransition):
        transition("T99")


def test_episodic_events_are_never_deleted():
    with pytest.raises(IllegalTransition) as caught:
        transition_check(Tier.EPISODIC, Tier.EPISODIC, "delete")
    assert caught.value.rule == "episodic-never"


def test_a_tier_records_its_own_events_but_a_source_cannot_record_them_for_it():
    assert episodic_record_check(action="hierarchy.stm.written", origin_tier=Tier.STM).code == "T1"
    assert episodic_record_check(action="hierarchy.bundle.resolved", origin_tier=Tier.SOURCE)
    with pytest.raises(IllegalTransition) as caught:
        episodic_record_check(action="hierarchy.stm.written", origin_tier=Tier.SOURCE)
    assert caught.value.rule == "source-to-episodic-bypass"
    with pytest.raises(IllegalTransition):
        episodic_record_check(action="memory.entry.created", origin_tier=Tier.STM)
