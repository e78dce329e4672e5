"""Hypothesis drives members, operators and the scheduler through random sequences of
data-rights actions. Whatever happens: no request reaches `completed` (or any status
past `submitted`) unverified, every completed delete or export carries its fingerprint,
and every trail starts with `submitted`, never goes back in time, and ends in the status
the request is in."""

import contextlib
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    rule,
    run_state_machine_as_test,
)

from datarights.enums import VERIFIED_STATUSES, RequestStatus
from datarights.models import DataRightsRequest
from datarights.policy import trail_problem
from datarights.processing import datarights_process, datarights_run_due
from datarights.selectors import datarights_trail_rows
from datarights.services import (
    datarights_appeal,
    datarights_cancel,
    datarights_operator_transition,
    datarights_request_submit,
    datarights_verify_code,
    datarights_verify_session,
)
from iris_site.audit.events import Actor
from iris_site.enums import UserKind
from iris_site.errors import DomainError
from iris_site.models import User
from tests.datarights.factories import EXPORT, HARD_DELETE, SOFT_DELETE
from tests.iris_site.factories import OperatorFactory

PAYLOADS = {
    "export": EXPORT,
    "hard-delete": HARD_DELETE,
    "soft-delete": SOFT_DELETE,
    "access": {"include_operator_actions": True},
}


class DataRightsMachine(RuleBasedStateMachine):
    requests = Bundle("requests")

    def __init__(self) -> None:
        super().__init__()
        self.member = User.objects.create(
            email=f"stateful-{uuid.uuid4().hex}@example.test", kind=UserKind.MEMBER
        )
        self.operator = OPERATOR["legal"]
        self.clock = timezone.now()

    @rule(target=requests, flavour=st.sampled_from(sorted(PAYLOADS)), session=st.booleans())
    def submit(self, flavour, session):
        kind = "delete" if flavour.endswith("delete") else flavour
        try:
            return datarights_request_submit(
                member=self.member,
                kind=kind,
                payload=PAYLOADS[flavour],
                actor=Actor.of(self.member),
                signed_in_session=session,
                now=self.clock,
            ).pk
        except DomainError:
            return None  # one open request per kind

    def _get(self, pk):
        return DataRightsRequest.objects.filter(pk=pk).first() if pk else None

    def _try(self, action) -> None:
        # Refusals (409, 403, 400) are part of the game.
        with contextlib.suppress(DomainError):
            action()

    @rule(pk=requests)
    def verify_by_session(self, pk):
        if request := self._get(pk):
            self._try(
                lambda: datarights_verify_session(request=request, actor=Actor.of(self.member))
            )

    @rule(pk=requests, code=st.from_regex(r"\A\d{6}\Z"))
    def verify_with_a_guessed_code(self, pk, code):
        if request := self._get(pk):
            self._try(
                lambda: datarights_verify_code(
                    request=request, code=code, actor=Actor.of(self.member)
                )
            )

    @rule(pk=requests)
    def process(self, pk):
        if pk:
            datarights_process(request_id=pk, now=self.clock)

    @rule(pk=requests)
    def cancel(self, pk):
        if request := self._get(pk):
            self._try(lambda: datarights_cancel(request=request, actor=Actor.of(self.member)))

    @rule(pk=requests)
    def appeal(self, pk):
        if request := self._get(pk):
            self._try(
                lambda: datarights_appeal(
                    request=request, reason="Contested", actor=Actor.of(self.member)
                )
            )

    @rule(pk=requests, to=st.sampled_from(RequestStatus.values))
    def operator_moves(self, pk, to):
        if request := self._get(pk):
            self._try(
                lambda: datarights_operator_transition(
                    request=request, to=to, actor=Actor.of(self.operator)
                )
            )

    @rule(days=st.integers(min_value=1, max_value=10))
    def time_passes(self, days):
        self.clock += timedelta(days=days)
        datarights_run_due(now=self.clock)

    @invariant()
    def nothing_completes_unverified_and_every_result_is_bound(self):
        for request in DataRightsRequest.objects.filter(member=self.member):
            if request.status in VERIFIED_STATUSES:
                assert request.verified_at is not None, request.status
                assert request.verification_method
            if request.status == RequestStatus.COMPLETED:
                events = [row.event for row in datarights_trail_rows(request=request)]
                assert "verified" in events
                assert events.index("verified") < events.index("completed")
                if request.kind in ("delete", "export"):
                    assert len(request.result_fingerprint) == 64

    @invariant()
    def trails_are_well_formed_and_current(self):
        for request in DataRightsRequest.objects.filter(member=self.member):
            rows = datarights_trail_rows(request=request)
            assert trail_problem(rows) is None
            assert rows[-1].status == request.status


OPERATOR: dict = {}


@pytest.mark.django_db
def test_data_rights_lifecycle_holds_its_invariants():
    OPERATOR["legal"] = OperatorFactory(role="legal")
    run_state_machine_as_test(
        DataRightsMachine,
        settings=settings(
            max_examples=25,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            database=None,
        ),
    )
