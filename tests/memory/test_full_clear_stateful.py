"""Hypothesis drives a member's surfaces and the member through random sequences of
writes, full-clear requests, cancels and purges. Whatever happens: no write is stored
while a clear is pending (each is refused with `clear-pending`), nothing is listed or
served meanwhile, a cancel leaves the member's memory exactly as it was at the request,
and a purge leaves nothing of the member's content."""

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from hierarchy.models import ShortTermMemory
from iris_site.audit.events import Actor
from iris_site.errors import Conflict
from memory.forgetting.services import (
    memory_clear_cancel,
    memory_clear_purge_due,
    memory_clear_request,
)
from memory.models import ConversationTurn, MemoryEntry, MemoryRevision
from memory.selectors import member_read_state, memory_entry_list
from memory.turns import conversation_turn_append
from tests.hierarchy.stm_factories import write as stm_write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

SURFACE = {}


def stored(member) -> tuple[int, int, int, int]:
    return (
        MemoryEntry.objects.filter(member=member).count(),
        MemoryRevision.objects.filter(member_id=member.pk).count(),
        ConversationTurn.objects.filter(member=member).count(),
        ShortTermMemory.objects.filter(member=member).count(),
    )


def memory_of(member) -> set[tuple]:
    return set(
        MemoryEntry.objects.filter(member=member).values_list(
            "pk", "lifecycle", "body", "revision_id"
        )
    )


class FullClearMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.member = consenting_member()
        self.surface = Actor.of(SURFACE["assistant"])
        self.pending = None  # the pending clear
        self.hidden = None  # the member's memory when it was requested
        self.writes = 0

    def _write(self, kind: str) -> None:
        self.writes += 1
        text = f"fact {self.writes}"
        if kind == "entry":
            remember(self.member, subject=f"s{self.writes % 3}", body=text)
        elif kind == "inference":
            remember(
                self.member,
                subject=f"s{self.writes % 3}",
                body=text,
                origin="model-inferred",
                actor=self.surface,
                consumer="assistant",
            )
        elif kind == "turn":
            conversation_turn_append(
                member=self.member,
                session_id="s-1",
                speaker="member",
                text=text,
                consumer="assistant",
                actor=self.surface,
            )
        else:
            stm_write(self.member, actor=self.surface, content=text)

    @rule(kind=st.sampled_from(["entry", "inference", "turn", "short-term"]))
    def write(self, kind):
        before = stored(self.member)
        try:
            self._write(kind)
        except Conflict as refusal:
            assert self.pending is not None
            assert refusal.code == "clear-pending"
            assert stored(self.member) == before
        else:
            assert self.pending is None

    @rule()
    def request(self):
        memory = memory_of(self.member)
        try:
            clear = memory_clear_request(member=self.member, actor=Actor.of(self.member))
        except Conflict:
            assert self.pending is not None
            return
        assert self.pending is None
        self.pending, self.hidden = clear, memory
        # short-term memory is erased at once; long-term memory is only hidden
        assert stored(self.member)[3] == 0
        assert memory_of(self.member) == memory

    @precondition(lambda self: self.pending is not None)
    @rule()
    def cancel(self):
        memory_clear_cancel(member=self.member, actor=Actor.of(self.member))
        assert memory_of(self.member) == self.hidden
        self.pending = self.hidden = None

    @precondition(lambda self: self.pending is not None)
    @rule()
    def purge(self):
        memory_clear_purge_due(now=self.pending.purge_after + timedelta(seconds=1))
        assert stored(self.member) == (0, 0, 0, 0)
        self.pending = self.hidden = None

    @invariant()
    def nothing_is_shown_while_pending(self):
        state = member_read_state(member_id=self.member.pk)
        assert state.clear_pending is (self.pending is not None)
        if self.pending is not None:
            assert not memory_entry_list(member_id=self.member.pk).exists()
            assert memory_of(self.member) == self.hidden


@pytest.mark.django_db
def test_no_write_lands_during_a_clear_a_cancel_restores_and_a_purge_leaves_nothing():
    SURFACE["assistant"] = ServiceClientFactory(consumer="assistant")
    run_state_machine_as_test(
        FullClearMachine,
        settings=settings(
            max_examples=25,
            stateful_step_count=15,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            database=None,
        ),
    )
