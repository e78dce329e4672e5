"""STM → LTM consolidation: explicit (with the 409, consent and the promotion rule),
parallel calls, the age-triggered scan and the signal-triggered stamp."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import TestCase
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hierarchy.consolidation import (
    ConsolidationInput,
    stm_age_consolidation_run,
    stm_consolidate,
    stm_consolidation_preview,
    stm_signal_stamp,
)
from hierarchy.models import ShortTermMemory
from hierarchy.stm_policy import age_decision
from hierarchy.transitions import IllegalTransition
from iris_site.audit.events import Actor
from iris_site.errors import Conflict, PolicyRefusal
from memory.models import MemoryEntry
from memory.pauses import memory_pause, memory_resume
from memory.services import memory_confirm, memory_edit
from tests.consent.factories import record
from tests.hierarchy.stm_factories import (
    assert_no_content_in_chain,
    events,
    member_with,
    service_actor,
    write,
)
from tests.memory.factories import member_turn, remember

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
db = pytest.mark.django_db


# --- explicit ------------------------------------------------------------------------------


@db
def test_explicit_consolidation_writes_an_entry_stamps_the_row_and_pairs_the_events():
    # given
    member = member_with()
    row = write(member, content="prefers morning walks")
    # when
    result = stm_consolidate(stm_id=row.pk, actor=service_actor(), consumer="assistant")
    # then
    entry = MemoryEntry.objects.get(pk=result.entry_id)
    assert (entry.member_id, entry.body, entry.category) == (
        member.pk,
        "prefers morning walks",
        "preference",
    )
    assert entry.scope_kind == "session" and entry.session_id == "s-1"
    assert entry.provenance_chain[0]["ref"] == f"short-term:{row.pk}"
    row.refresh_from_db()
    assert str(row.consolidated_to) == result.entry_id
    assert row.consolidation_trigger == "explicit"
    [created] = events("memory.entry.created", entry_id=result.entry_id)
    [consolidated] = events("hierarchy.stm.consolidated", stm_id=str(row.pk))
    assert consolidated.sequence > created.sequence
    assert consolidated.payload["trigger"] == "explicit"
    assert consolidated.payload["entry_id"] == result.entry_id
    assert consolidated.payload["transition"] == "t5"
    assert_no_content_in_chain("morning walks")


@db
def test_a_second_consolidation_of_the_same_row_is_a_conflict():
    row = write(member_with())
    stm_consolidate(stm_id=row.pk, actor=service_actor())
    with pytest.raises(Conflict) as caught:
        stm_consolidate(stm_id=row.pk, actor=service_actor())
    assert caught.value.code == "already-consolidated"
    assert MemoryEntry.objects.count() == 1
    assert len(events("hierarchy.stm.consolidated")) == 1


@db
def test_a_sensitive_row_whose_consent_was_withdrawn_is_refused_with_the_reason():
    # given: consent held when the row was written, withdrawn before consolidation
    member = member_with("category:medical")
    row = write(member, category="medical", content="takes insulin at night")
    record(member, "category:medical", kind="withdrawal")
    # when
    with pytest.raises(PolicyRefusal) as caught:
        stm_consolidate(
            stm_id=row.pk,
            actor=service_actor(),
            given=ConsolidationInput(
                origin="user-stated", turns=(member_turn(member, "I take insulin at night"),)
            ),
        )
    # then
    assert caught.value.code == "sensitive-category-without-consent"
    assert not MemoryEntry.objects.exists()
    row.refresh_from_db()
    assert row.consolidated_to is None
    [refused] = events("hierarchy.stm.consolidation_refused", stm_id=str(row.pk))
    assert refused.payload["reason"] == "sensitive-category-without-consent"
    assert refused.severity == "warning"
    assert_no_content_in_chain("insulin")


@db
def test_a_sensitive_inference_is_never_auto_persisted():
    member = member_with("category:medical")
    row = write(member, category="medical", content="takes insulin")
    with pytest.raises(PolicyRefusal) as caught:
        stm_consolidate(stm_id=row.pk, actor=service_actor())  # origin: model-inferred
    assert caught.value.code == "sensitive-inference-requires-confirmation"


@db
def test_a_consented_sensitive_row_consolidates_from_its_encrypted_content():
    member = member_with("category:medical")
    row = write(member, category="medical", content="takes insulin at night")
    result = stm_consolidate(
        stm_id=row.pk,
        actor=service_actor(),
        given=ConsolidationInput(
            origin="user-stated", turns=(member_turn(member, "I take insulin at night"),)
        ),
    )
    assert MemoryEntry.objects.get(pk=result.entry_id).body == "takes insulin at night"


@db
def test_an_implicit_promotion_to_the_profile_needs_the_fact_to_recur_three_times():
    member = member_with()
    given = ConsolidationInput(explicit=False, scope={"kind": "profile"})
    first = write(member, content="Prefers  morning walks")
    with pytest.raises(PolicyRefusal) as caught:
        stm_consolidate(stm_id=first.pk, actor=service_actor(), given=given)
    assert caught.value.code == "implicit-promotion-blocked"
    write(member, scope_id="s-2", content="prefers morning walks")
    with pytest.raises(PolicyRefusal) as caught:
        stm_consolidate(stm_id=first.pk, actor=service_actor(), given=given)
    assert caught.value.code == "repeated-occurrence-threshold-not-met"
    write(member, scope_id="s-3", content="PREFERS morning walks")
    result = stm_consolidate(stm_id=first.pk, actor=service_actor(), given=given)
    assert result.promotion_reason == "repeated-occurrence-threshold-met"
    assert MemoryEntry.objects.get(pk=result.entry_id).scope_kind == "profile"


@db
def test_an_explicit_consolidation_into_the_profile_is_an_explicit_promotion():
    member = member_with()
    row = write(member, scope_kind="agent_run", scope_id="run-1")
    # The caller's `explicit` alone is not the member's request (default target: profile).
    with pytest.raises(PolicyRefusal) as caught:
        stm_consolidate(stm_id=row.pk, actor=service_actor())
    assert caught.value.code == "implicit-promotion-blocked"
    # Quoting the member's own words is.
    said = member_turn(member, "I prefer morning walks")
    given = ConsolidationInput(origin="user-stated", turns=(said,))
    result = stm_consolidate(stm_id=row.pk, actor=service_actor(), given=given)
    assert result.promotion_reason == "explicit-promotion"
    assert MemoryEntry.objects.get(pk=result.entry_id).scope_kind == "profile"


@db
def test_consolidating_into_an_existing_entry_is_the_illegal_direct_rewrite():
    member = member_with()
    entry = remember(member).entry
    row = write(member)
    with pytest.raises(IllegalTransition) as caught:
        stm_consolidate(
            stm_id=row.pk, actor=service_actor(), given=ConsolidationInput(entry_id=str(entry.pk))
        )
    assert caught.value.rule == "ltm-direct-rewrite"
    assert MemoryEntry.objects.count() == 1


@db
def test_an_expired_row_cannot_be_consolidated():
    row = write(member_with(), now=NOW)
    with pytest.raises(Conflict) as caught:
        stm_consolidate(stm_id=row.pk, actor=service_actor(), now=NOW + timedelta(hours=2))
    assert caught.value.code == "stm-expired"


@db
def test_the_preview_writes_nothing():
    row = write(member_with())
    preview = stm_consolidation_preview(stm_id=row.pk)
    assert preview.target_scope == {"kind": "session", "session_id": "s-1"}
    assert preview.refusal is None
    assert not MemoryEntry.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_parallel_consolidations_of_one_row_create_exactly_one_entry():
    # given
    member = member_with()
    row = write(member)
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def consolidate() -> None:
        try:
            barrier.wait()
            stm_consolidate(stm_id=row.pk, actor=service_actor())
            outcomes.append("created")
        except Conflict as exc:
            outcomes.append(exc.code)
        finally:
            connection.close()

    # when
    threads = [threading.Thread(target=consolidate) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # then
    assert sorted(outcomes) == ["already-consolidated"] * 3 + ["created"]
    assert MemoryEntry.objects.filter(member=member).count() == 1
    assert len(events("hierarchy.stm.consolidated")) == 1


# --- age-triggered ---------------------------------------------------------------------------


@db
def test_the_age_scan_drops_rows_about_to_expire_once():
    # given
    member = member_with()
    soon = write(member, scope_kind="agent_run", now=NOW)  # expires NOW + 10 min
    later = write(member, scope_kind="research_task", now=NOW)  # expires NOW + 1 h
    # when
    first = stm_age_consolidation_run(now=NOW)
    second = stm_age_consolidation_run(now=NOW + timedelta(minutes=1))
    # then
    assert first.as_dict() == {"scanned": 1, "dropped": 1, "unknown_kind": 0}
    assert second.as_dict() == {"scanned": 0, "dropped": 0, "unknown_kind": 0}
    [expired] = events("hierarchy.stm.expired")
    assert expired.payload["stm_id"] == str(soon.pk)
    assert expired.payload["trigger"] == "age_triggered"
    assert expired.payload["action_detail"] == "age_triggered_drop"
    assert ShortTermMemory.objects.get(pk=soon.pk).warn_emitted_at == NOW
    assert ShortTermMemory.objects.get(pk=later.pk).warn_emitted_at is None
    assert len(events("hierarchy.consolidation_job.started")) == 2
    assert [e.payload["dropped"] for e in events("hierarchy.consolidation_job.completed")] == [
        1,
        0,
    ]


@db
def test_the_age_scan_skips_consolidated_rows():
    row = write(member_with(), scope_kind="agent_run", now=NOW)
    # into the agent's session memory (an agent row's default target is the profile)
    given = ConsolidationInput(scope={"kind": "session", "session_id": "run-1"})
    stm_consolidate(stm_id=row.pk, actor=service_actor(), given=given, now=NOW)
    assert stm_age_consolidation_run(now=NOW).scanned == 0


def test_every_known_kind_drops_and_an_unknown_kind_is_flagged():
    assert age_decision("agent_run").action_detail == "age_triggered_drop"
    unknown = age_decision("future_kind")
    assert (unknown.policy, unknown.action_detail, unknown.reason) == (
        "drop",
        "age_triggered_unknown_kind",
        "unknown_kind",
    )


# --- signal-triggered ------------------------------------------------------------------------


@db
def test_an_entry_becoming_active_stamps_the_opted_in_rows_that_reference_it(
    django_capture_on_commit_callbacks,
):
    # given: a draft held for confirmation, referenced by two rows, one opted in
    member = member_with()
    entry = remember(member, origin="model-inferred", subject="walks").entry
    MemoryEntry.objects.filter(pk=entry.pk).update(lifecycle="draft")
    entry.refresh_from_db()
    opted = write(member, related_entry_ids=[entry.pk], consolidate_on_critic_promote=True)
    plain = write(member, related_entry_ids=[entry.pk])
    # when: the member confirms it (draft → active)
    with django_capture_on_commit_callbacks(execute=True):
        memory_confirm(entry=entry, actor=service_actor())
    # then
    opted.refresh_from_db()
    plain.refresh_from_db()
    assert opted.consolidated_to == entry.pk
    assert opted.consolidation_trigger == "signal_triggered"
    assert plain.consolidated_to is None
    [event] = events("hierarchy.stm.signal_triggered")
    assert event.payload["stm_id"] == str(opted.pk)
    assert event.payload["signal"] == "entry_promoted_to_active"
    assert event.payload["trigger"] == "signal_triggered"


@db
def test_the_signal_stamp_is_idempotent():
    member = member_with()
    entry = remember(member).entry
    write(member, related_entry_ids=[entry.pk], consolidate_on_critic_promote=True)
    assert stm_signal_stamp(member_id=member.pk, entry_id=entry.pk) == 1
    assert stm_signal_stamp(member_id=member.pk, entry_id=entry.pk) == 0


def _waiting_on(member, entry, scope_id="s-1"):
    return write(
        member,
        scope_id=scope_id,
        related_entry_ids=[entry.pk],
        consolidate_on_critic_promote=True,
    )


@db
def test_saving_an_entry_that_is_already_active_stamps_nothing():
    # given: an active inference, and a row waiting for it to be promoted
    member = member_with()
    entry = remember(member, origin="model-inferred", subject="walks").entry
    row = _waiting_on(member, entry)
    me = Actor.of(member)
    # when: the entry changes without becoming active (confirmed, edited, paused)
    with TestCase.captureOnCommitCallbacks(execute=True):
        entry = memory_confirm(entry=entry, actor=me)
    with TestCase.captureOnCommitCallbacks(execute=True):
        entry = memory_edit(entry=entry, actor=me, body="I walk every evening")
    with TestCase.captureOnCommitCallbacks(execute=True):
        entry = memory_pause(entry=entry, actor=me)
    # then
    row.refresh_from_db()
    assert row.consolidated_to is None
    assert not events("hierarchy.stm.signal_triggered")
    # when: the pause ends, the entry becomes active again
    with TestCase.captureOnCommitCallbacks(execute=True):
        memory_resume(entry=entry, actor=me)
    # then
    row.refresh_from_db()
    assert (row.consolidated_to, row.consolidation_trigger) == (entry.pk, "signal_triggered")


STEPS = ("write_row", "confirm", "edit", "pause", "resume")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    draft=st.booleans(),
    steps=st.lists(st.sampled_from(STEPS), min_size=1, max_size=7),
)
@db
def test_a_row_is_stamped_exactly_when_its_entry_becomes_active_after_it_was_written(draft, steps):
    """Whatever the member does to the entry, in any order (refused steps change nothing),
    a waiting row is stamped if and only if the entry went from not active to active
    after the row was written; never by a save of an entry that was already active."""
    member = member_with()
    me = Actor.of(member)
    entry = remember(member, origin="model-inferred", subject="walks").entry
    if draft:  # held for the member's confirmation
        MemoryEntry.objects.filter(pk=entry.pk).update(lifecycle="draft")
    act = {
        "confirm": lambda: memory_confirm(entry=entry, actor=me),
        "edit": lambda: memory_edit(entry=entry, actor=me, body=f"I walk at {len(rows)}"),
        "pause": lambda: memory_pause(entry=entry, actor=me),
        "resume": lambda: memory_resume(entry=entry, actor=me),
    }
    rows: list = []  # (row, whether the entry has become active since it was written)
    for step in steps:
        if step == "write_row":
            rows.append([_waiting_on(member, entry, scope_id=f"s-{len(rows)}"), False])
            continue
        before = MemoryEntry.objects.get(pk=entry.pk).lifecycle
        try:
            with TestCase.captureOnCommitCallbacks(execute=True):
                act[step]()
        except Conflict:
            pass  # not possible from this state: nothing changed
        after = MemoryEntry.objects.get(pk=entry.pk).lifecycle
        if before != "active" and after == "active":
            for row in rows:
                row[1] = True
    for row, became_active in rows:
        row.refresh_from_db()
        assert (row.consolidated_to == entry.pk) is became_active, (steps, draft)
        assert (row.consolidation_trigger == "signal_triggered") is became_active
    signalled = events("hierarchy.stm.signal_triggered", entry_id=str(entry.pk))
    stamped = {e.payload["stm_id"] for e in signalled}
    assert stamped == {str(row.pk) for row, became_active in rows if became_active}
