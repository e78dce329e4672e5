"""The consent ledger's service, selectors, job and purge path, on a real database."""

import threading
import uuid
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from consent.models import ConsentEvent
from consent.selectors import consent_active, consent_ledger_verify
from consent.services import consent_expire_due, consent_ledger_purge
from consent.signals import consent_ended
from iris_site.appendonly import purge_bypass
from iris_site.audit.sealing import resolver_for
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import Conflict, InvalidInput
from iris_site.models import AuditEvent
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory
from tests.tamper import owner_tamper

pytestmark = pytest.mark.django_db


def test_a_grant_is_chained_fingerprinted_and_audited():
    # given
    member = MemberFactory()
    # when
    result = record(member, "category:medical")
    # then
    event = result.event
    assert result.created and event.sequence == 1 and event.status == "granted"
    assert len(event.fingerprint) == 16 and event.previous_hash == "0" * 64
    audit = AuditEvent.objects.get(action="consent.event.grant")
    assert audit.target_member_id == member.pk
    assert audit.payload["event_id"] == str(event.id)
    # a special-category consent type is kept sealed under the member's audit key (issue 42)
    assert resolver_for(member.pk)[audit.payload["consent_type"]] == "category:medical"
    assert consent_ledger_verify(member_id=member.pk) is None


def test_granting_twice_is_idempotent():
    member = MemberFactory()
    first = record(member, "data_storage")
    second = record(member, "data_storage")
    assert not second.created and second.event.pk == first.event.pk
    assert ConsentEvent.objects.filter(member=member).count() == 1


def test_withdrawing_what_is_not_granted_is_a_conflict_and_writes_nothing():
    member = MemberFactory()
    with pytest.raises(Conflict) as excinfo:
        record(member, "data_storage", "withdrawal")
    assert excinfo.value.code == "consent-not-granted"
    assert not ConsentEvent.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="consent.").exists()


def test_withdraw_then_regrant_gives_the_right_active_set():
    member = MemberFactory()
    grant = record(member, "category:medical").event
    record(member, "data_storage")
    withdrawal = record(member, "category:medical", "withdrawal").event
    assert withdrawal.supersedes_id == grant.pk
    assert consent_active(member_id=member.pk).types == {"data_storage"}
    record(member, "category:medical")
    active = consent_active(member_id=member.pk)
    assert active.types == {"data_storage", "category:medical"}
    assert active.categories == {"medical"}
    assert ConsentEvent.objects.get(pk=grant.pk).status == "granted"  # never mutated


def test_withdrawal_signal_is_sent_on_commit(django_capture_on_commit_callbacks):
    member = MemberFactory()
    record(member, "category:medical")
    received = []

    def receiver(**kwargs):
        received.append((kwargs["member_id"], kwargs["consent_type"], kwargs["kind"]))

    consent_ended.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            record(member, "category:medical", "withdrawal")
    finally:
        consent_ended.disconnect(receiver)
    assert received == [(member.pk, "category:medical", "withdrawal")]


def test_an_end_date_must_be_on_a_future_grant():
    member = MemberFactory()
    with pytest.raises(InvalidInput):
        record(member, "data_storage", valid_until=timezone.now() - timedelta(days=1))


def test_expiry_job_ends_lapsed_grants_once():
    # given
    member = MemberFactory()
    start = timezone.now()
    grant = record(member, "cross_device", valid_until=start + timedelta(hours=1), now=start).event
    record(member, "data_storage", now=start)
    later = start + timedelta(hours=2)
    # the grant is no longer in force even before the job runs
    assert consent_active(member_id=member.pk, now=later).types == {"data_storage"}
    # when
    assert consent_expire_due(now=later) == 1
    assert consent_expire_due(now=later) == 0
    # then
    expiry = ConsentEvent.objects.get(member=member, kind="expiry")
    assert expiry.supersedes_id == grant.pk and expiry.witness == "system:consent-expiry"
    assert consent_ledger_verify(member_id=member.pk) is None


@pytest.mark.parametrize("statement", ["UPDATE {t} SET kind = 'denial'", "DELETE FROM {t}"])
def test_raw_update_and_delete_are_rejected_by_the_database(statement):
    record(MemberFactory(), "data_storage")
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement.format(t=ConsentEvent._meta.db_table))
    assert ConsentEvent.objects.get().kind == "grant"


def test_an_edited_row_makes_verify_name_that_event():
    member = MemberFactory()
    record(member, "data_storage")
    victim = record(member, "category:medical").event
    record(member, "cross_device")
    with transaction.atomic(), owner_tamper(ConsentEvent):
        ConsentEvent.objects.filter(pk=victim.pk).update(legal_basis="legitimate_interests")
    broken = consent_ledger_verify(member_id=member.pk)
    assert (broken.event_id, broken.reason) == (str(victim.id), "fingerprint-mismatch")


def test_purge_erases_only_the_named_types_and_leaves_a_verifiable_ledger():
    # given
    member = MemberFactory()
    record(member, "data_storage")
    record(member, "category:medical")
    record(member, "category:medical", "withdrawal")
    record(member, "cross_device")
    request_id = uuid.uuid4()
    # when
    purged = consent_ledger_purge(
        member=member, consent_types=["category:medical"], dsar_request_id=request_id
    )
    # then
    assert purged == 2
    assert set(
        ConsentEvent.objects.filter(member=member).values_list("consent_type", flat=True)
    ) == {
        "data_storage",
        "cross_device",
    }
    assert consent_ledger_verify(member_id=member.pk) is None
    audit = AuditEvent.objects.get(action="consent.ledger.purged")
    assert audit.payload["dsar_request_id"] == str(request_id)
    assert audit.payload["purged_count"] == 2
    assert audit_chain_verify().valid


def test_purge_refuses_unknown_types():
    member = MemberFactory()
    record(member, "data_storage")
    with pytest.raises(InvalidInput):
        consent_ledger_purge(member=member, consent_types=["bogus"], dsar_request_id=uuid.uuid4())
    assert ConsentEvent.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_bypass_refuses_to_run_outside_a_transaction():
    record(MemberFactory(), "data_storage")
    outside = pytest.raises(RuntimeError, match=r"inside transaction\.atomic")
    with outside, purge_bypass(ConsentEvent):
        pass
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {ConsentEvent._meta.db_table}")
    assert ConsentEvent.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_for_one_member_keep_a_valid_chain():
    member = MemberFactory()
    types = ["data_storage", "data_processing", "cross_device", "sensitive_data"]
    errors: list[BaseException] = []

    def writer(consent_type: str) -> None:
        try:
            for kind in ("grant", "withdrawal", "grant"):
                record(member, consent_type, kind)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(t,)) for t in types]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    sequences = list(
        ConsentEvent.objects.filter(member=member)
        .order_by("sequence")
        .values_list("sequence", flat=True)
    )
    assert sequences == list(range(1, 13))
    assert consent_ledger_verify(member_id=member.pk) is None
    assert consent_active(member_id=member.pk).types == set(types)


class LedgerMachine(RuleBasedStateMachine):
    """Random grant/withdraw/expire/deny against the real service and a dict model."""

    TYPES = ("data_storage", "category:medical", "cross_device")

    def __init__(self) -> None:
        super().__init__()
        self.member = MemberFactory()
        self.clock = timezone.now()
        self.model: dict[str, tuple[str, object]] = {}  # type -> (status, valid_until)

    def _in_force(self, consent_type: str) -> bool:
        status, until = self.model.get(consent_type, (None, None))
        return status == "granted" and (until is None or until > self.clock)

    def _tick(self) -> None:
        self.clock += timedelta(minutes=1)

    @rule(consent_type=st.sampled_from(TYPES), expiring=st.booleans())
    def grant(self, consent_type, expiring):
        self._tick()
        until = self.clock + timedelta(seconds=90) if expiring else None
        result = record(self.member, consent_type, valid_until=until, now=self.clock)
        if not self._in_force(consent_type):
            assert result.created
            self.model[consent_type] = ("granted", until)
        else:
            assert not result.created

    @rule(consent_type=st.sampled_from(TYPES))
    def withdraw(self, consent_type):
        self._tick()
        if self._in_force(consent_type):
            record(self.member, consent_type, "withdrawal", now=self.clock)
            self.model[consent_type] = ("withdrawn", None)
        else:
            with pytest.raises(Conflict):
                record(self.member, consent_type, "withdrawal", now=self.clock)

    @rule(consent_type=st.sampled_from(TYPES))
    def deny(self, consent_type):
        self._tick()
        if self._in_force(consent_type):
            with pytest.raises(Conflict):
                record(self.member, consent_type, "denial", now=self.clock)
        else:
            record(self.member, consent_type, "denial", now=self.clock)
            self.model[consent_type] = ("denied", None)

    @rule()
    def run_expiry_job(self):
        self._tick()
        consent_expire_due(now=self.clock)
        for consent_type, (status, until) in list(self.model.items()):
            if status == "granted" and until is not None and until <= self.clock:
                self.model[consent_type] = ("expired", None)

    @invariant()
    def active_set_matches_the_model(self):
        expected = {t for t in self.TYPES if self._in_force(t)}
        assert consent_active(member_id=self.member.pk, now=self.clock).types == expected

    @invariant()
    def ledger_verifies(self):
        assert consent_ledger_verify(member_id=self.member.pk) is None


def test_random_histories_match_a_simple_model_and_always_verify():
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=25,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
