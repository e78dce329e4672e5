"""Random walks through the regime against the real services: terminal states never
change, member content is readable exactly while granted (and never after the time box),
no four-eyes request is ever granted by its requester, and no DSAR-path grant exists
without an open data-rights request of the member, whatever operators (the requester, a
second legal operator, t&s, admin), the member's data-rights request, jobs and the clock
do."""

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

from datarights.models import DataRightsRequest
from datarights.services import datarights_cancel
from inspection.enums import InspectionState
from inspection.models import InspectionEvent, InspectionRequest
from inspection.policy import ENTRY_PATHS, TERMINAL_STATES, TRANSITIONS, needs_second_approver
from inspection.services import (
    inspection_close_expired_grants,
    inspection_expire_undecided,
    inspection_read,
    inspection_transition,
)
from iris_site.audit.events import Actor
from iris_site.errors import Conflict, InvalidInput, NotPermitted
from tests.inspection.factories import (
    incident_ref,
    member_with_memory,
    open_dsar,
    open_request,
)
from tests.iris_site.factories import OperatorFactory

pytestmark = pytest.mark.django_db

S = InspectionState


class InspectionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.member, _ = member_with_memory("category:medical")
        self.operator = OperatorFactory(role="legal")
        # Everyone else who might act: a second legal operator (the DSAR path's second
        # pair of eyes), t&s (the incident path's), admin (routine review's; oversight).
        self.others = [OperatorFactory(role=r) for r in ("legal", "t&s", "admin", "support")]
        self.clock = timezone.now()
        self.terminal_seen: str | None = None
        self.dsar = open_dsar(self.member)

    @initialize(sensitive=st.booleans())
    def open(self, sensitive):
        # Sensitive requests are granted to legal only on the DSAR path; ordinary ones on any.
        self.inspection = open_request(
            self.operator,
            self.member,
            include_sensitive=sensitive,
            signed_incident_ref=incident_ref(self.member),
            now=self.clock,
        )

    def _dsar_open(self) -> bool:
        return DataRightsRequest.objects.filter(
            pk=self.dsar.pk, status__in=["verified", "in-progress", "appealed"]
        ).exists()

    def _current(self) -> InspectionRequest:
        return InspectionRequest.objects.get(pk=self.inspection.pk)

    @rule(to=st.sampled_from(S.values), who=st.integers(-1, 3))
    def step(self, to, who):
        self.transition(to, self.operator if who < 0 else self.others[who])

    def transition(self, to, operator):
        before = self._current().state
        dsar_was_open = self._dsar_open()
        extra = {"dsar_request_id": self.dsar.pk} if to == S.DSAR_FULFILLMENT else {}
        try:
            result = inspection_transition(
                inspection=self.inspection, to=to, operator=operator, now=self.clock, **extra
            )
        except Conflict as error:
            assert error.code == "illegal-transition"
            assert to not in TRANSITIONS[before] and not (
                to == S.DENIED
                and before == S.REQUESTED
                and operator.operator_profile.role == "admin"
            )
        except NotPermitted as error:
            assert error.code in {"not-request-owner", "second-approver-required"}
            assert self._current().state == before
        except InvalidInput as error:
            # routing to the DSAR path for a request that is no longer open
            assert set(error.fields) == {"dsar_request_id"} and not dsar_was_open
        else:
            assert to in TRANSITIONS[before] or (to == S.DENIED and before == S.REQUESTED)
            # → granted may end in denied (the gate); nothing else changes the target
            assert result.inspection.state == to or (
                to == S.GRANTED and result.inspection.state == S.DENIED
            )
            if result.inspection.state == S.GRANTED and before == S.DSAR_FULFILLMENT:
                assert dsar_was_open  # no DSAR-path grant without an open DSAR

    @rule()
    def member_cancels_their_data_rights_request(self):
        if self._dsar_open():
            datarights_cancel(request=self.dsar, actor=Actor.of(self.member))

    @rule(path=st.sampled_from(ENTRY_PATHS))
    def advance(self, path):
        """The next step towards a grant along `path`, when there is one (keeps walks
        from dwelling in refusals)."""
        current = self._current()
        state = current.state
        to = path if state == S.REQUESTED else S.GRANTED if state in ENTRY_PATHS else None
        if to is None:
            return
        four_eyes = to == S.GRANTED and needs_second_approver(
            path=state, include_sensitive=current.include_sensitive
        )
        approver = {S.DSAR_FULFILLMENT: 0, S.INCIDENT_ESCALATION: 1, S.ROUTINE_REVIEW: 2}
        self.transition(to, self.others[approver[state]] if four_eyes else self.operator)

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
    def no_four_eyes_request_is_granted_by_its_requester(self):
        current = self._current()
        if not needs_second_approver(
            path=current.path, include_sensitive=current.include_sensitive
        ):
            return
        grants = InspectionEvent.objects.filter(inspection=current, to_state=S.GRANTED)
        assert not grants.filter(actor_id=current.operator_id).exists()
        assert current.granted_by_id != current.operator_id
        if current.state in (S.GRANTED, S.CLOSED) and current.granted_at is not None:
            assert grants.exists() and current.granted_by_id is not None

    @invariant()
    def every_step_is_legal_and_recorded(self):
        steps = list(
            InspectionEvent.objects.filter(inspection=self.inspection).order_by("sequence")
        )
        assert steps[0].to_state == S.REQUESTED
        for previous, step in itertools.pairwise(steps):
            assert step.from_state == previous.to_state
            assert step.to_state in TRANSITIONS[step.from_state]  # admin's deny too
        assert steps[-1].to_state == self._current().state


def test_the_regime_holds_under_random_walks():
    run_state_machine_as_test(
        InspectionMachine,
        settings=settings(
            max_examples=60,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
