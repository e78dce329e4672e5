"""Random walks through the regime against the real services: terminal states never
change, and member content is readable exactly while granted (and never after the time
box), whatever operators, jobs and the clock do."""

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from inspection.enums import InspectionState
from inspection.models import InspectionEvent, InspectionRequest
from inspection.policy import ENTRY_PATHS, TERMINAL_STATES, TRANSITIONS
from inspection.services import (
    inspection_close_expired_grants,
    inspection_expire_undecided,
    inspection_read,
    inspection_transition,
)
from iris_site.errors import Conflict
from tests.inspection.factories import INCIDENT_REF, member_with_memory, open_request
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

S = InspectionState


class InspectionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.member, _ = member_with_memory("category:medical")
        self.operator = OperatorFactory(role="legal")
        self.clock = timezone.now()
        self.terminal_seen: str | None = None

    @initialize(sensitive=st.booleans())
    def open(self, sensitive):
        # Sensitive requests are granted to legal only on the DSAR path; ordinary ones on any.
        self.inspection = open_request(
            self.operator,
            self.member,
            include_sensitive=sensitive,
            signed_incident_ref=INCIDENT_REF,
            now=self.clock,
        )

    def _current(self) -> InspectionRequest:
        return InspectionRequest.objects.get(pk=self.inspection.pk)

    @rule(to=st.sampled_from(S.values))
    def step(self, to):
        self.transition(to)

    def transition(self, to):
        before = self._current().state
        try:
            result = inspection_transition(
                inspection=self.inspection, to=to, operator=self.operator, now=self.clock
            )
        except Conflict as error:
            assert error.code == "illegal-transition"
            assert to not in TRANSITIONS[before]
        else:
            assert to in TRANSITIONS[before]
            # → granted may end in denied (the gate); nothing else changes the target
            assert result.inspection.state == to or (
                to == S.GRANTED and result.inspection.state == S.DENIED
            )

    @rule(path=st.sampled_from(ENTRY_PATHS))
    def advance(self, path):
        """The next step towards a grant along `path`, when there is one (keeps walks
        from dwelling in refusals)."""
        state = self._current().state
        to = path if state == S.REQUESTED else S.GRANTED if state in ENTRY_PATHS else None
        if to is not None:
            self.transition(to)

    @rule(minutes=st.one_of(st.integers(1, 120), st.integers(1, 96 * 60)))
    def time_passes(self, minutes):
        self.clock += timedelta(minutes=minutes)

    @rule()
    def jobs_run(self):
        inspection_expire_undecided(now=self.clock)
        inspection_close_expired_grants(now=self.clock)

    @rule(kind=st.sampled_from(["snapshot", "replay"]))
    def read(self, kind):
        current = self._current()
        readable = current.state == S.GRANTED and self.clock < current.expires_at
        try:
            view = inspection_read(
                inspection=self.inspection, operator=self.operator, kind=kind, now=self.clock
            )
        except Conflict:
            assert not readable
        else:
            assert readable
            assert view.matches_grant

    @invariant()
    def terminal_states_never_change(self):
        current = self._current()
        if self.terminal_seen is not None:
            assert current.state == self.terminal_seen
        elif current.state in TERMINAL_STATES:
            self.terminal_seen = current.state

    @invariant()
    def every_step_is_legal_and_recorded(self):
        steps = list(
            InspectionEvent.objects.filter(inspection=self.inspection).order_by("sequence")
        )
        assert steps[0].to_state == S.REQUESTED
        for previous, step in itertools.pairwise(steps):
            assert step.from_state == previous.to_state
            assert step.to_state in TRANSITIONS[step.from_state]
        assert steps[-1].to_state == self._current().state


def test_terminal_states_never_change_and_reads_happen_only_while_granted():
    run_state_machine_as_test(
        InspectionMachine,
        settings=settings(
            max_examples=60,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
