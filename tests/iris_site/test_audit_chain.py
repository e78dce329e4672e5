"""The episodic chain: append-only at the database, verifiable, fork-free."""

import threading
import time
import uuid

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, OperationalError, connection, transaction
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append, chain_hash, link_of
from iris_site.audit.policy import PayloadRejected, vet_payload
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import InvalidInput
from iris_site.models import AuditEvent
from iris_site.services import member_lock
from tests.hierarchy.factories import append_events, tampering
from tests.iris_site.factories import MemberFactory

pytestmark = pytest.mark.django_db


def test_append_links_each_event_to_the_previous_hash_of_its_own_chain():
    # given / when: two members and the platform write, interleaved
    member_a, member_b = uuid.uuid4(), uuid.uuid4()
    (a1,) = append_events(1, member_id=member_a)
    (b1,) = append_events(1, member_id=member_b)
    (p1,) = append_events(1)
    (a2,) = append_events(1, member_id=member_a)
    # then: each chain starts at genesis and links only its own events
    assert (a1.chain_key, a1.chain_sequence, a1.previous_hash) == (str(member_a), 1, "0" * 64)
    assert (b1.chain_key, b1.chain_sequence, b1.previous_hash) == (str(member_b), 1, "0" * 64)
    assert (p1.chain_key, p1.chain_sequence) == ("platform", 1)
    assert (a2.chain_sequence, a2.previous_hash) == (2, a1.hash)
    assert a2.hash == chain_hash(a1.hash, link_of(a2))
    # and the platform-wide order is kept
    assert a1.sequence < b1.sequence < p1.sequence < a2.sequence
    report = audit_chain_verify()
    assert (report.valid, report.chain_count, report.checked_count) == (True, 3, 4)


def test_stored_event_round_trips_to_the_same_hash():
    member_id = uuid.uuid4()
    event = audit_event_append(
        action="memory.recall.resolved",
        policy_id="iris-memory-recall-v1",
        actor=Actor.system(),
        target_member_id=member_id,
        payload={"returned_ids": [str(uuid.uuid4())], "score": 0.125, "counts": {"a-b": 2}},
    )
    stored = AuditEvent.objects.get(pk=event.pk)
    assert chain_hash(stored.previous_hash, link_of(stored)) == stored.hash


_IDENTIFIERS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.:", max_size=24)
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | _IDENTIFIERS
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_IDENTIFIERS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    payload=st.dictionaries(_IDENTIFIERS.filter(bool), _VALUES, max_size=4),
    role=st.sampled_from(["", "assistant", "t&s", "légal"]),
    tenant=st.booleans(),
    member=st.booleans(),
)
def test_every_append_stores_the_hash_the_verifier_computes(payload, role, tenant, member):
    # given any payload the vetting lets through, on either path (one statement on
    # PostgreSQL, Python elsewhere), for a member's chain or the platform's
    try:
        vet_payload(payload)
    except PayloadRejected:
        assume(False)
    event = audit_event_append(
        action="memory.recall.resolved",
        policy_id="iris-memory-recall-v1",
        actor=Actor("service", uuid.uuid4(), role),
        target_member_id=uuid.uuid4() if member else None,
        target_tenant_id=uuid.uuid4() if tenant else None,
        payload=payload,
    )
    # then the stored row hashes, as the verifier reads it, to what was stored
    stored = AuditEvent.objects.get(pk=event.pk)
    assert (stored.hash, stored.previous_hash) == (event.hash, event.previous_hash)
    assert chain_hash(stored.previous_hash, link_of(stored)) == stored.hash
    assert (stored.sequence, stored.chain_sequence) == (event.sequence, event.chain_sequence)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement path")
def test_an_append_is_one_round_trip_and_its_receivers_hear_of_it():
    # given a member's chain with an event
    member_id = uuid.uuid4()
    (first,) = append_events(1, member_id=member_id)
    heard = []

    def receiver(sender, instance, created, **kwargs):
        heard.append((instance.pk, created))

    post_save.connect(receiver, sender=AuditEvent, dispatch_uid="test-audit-heard")
    try:
        # when the next is appended
        with CaptureQueriesContext(connection) as statements:
            event = audit_event_append(
                action="memory.recall.resolved",
                policy_id="iris-memory-recall-v1",
                actor=Actor.system(),
                target_member_id=member_id,
                payload={"returned_ids": []},
            )
    finally:
        post_save.disconnect(dispatch_uid="test-audit-heard", sender=AuditEvent)
    # then one statement wrote it, linked to the head, and the save's receivers heard it
    assert len(statements.captured_queries) == 1
    assert (event.chain_sequence, event.previous_hash) == (2, first.hash)
    assert heard == [(event.pk, True)]


@pytest.mark.parametrize("statement", ["UPDATE {t} SET action = 'x.y'", "DELETE FROM {t}"])
def test_raw_update_and_delete_are_rejected_by_the_database(statement):
    append_events(1)
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement.format(t=AuditEvent._meta.db_table))
    assert AuditEvent.objects.filter(action=AuditAction.IRIS_SITE_AUDIT_BENCH_APPENDED).count() == 1


def test_save_refuses_to_update_an_existing_event():
    (event,) = append_events(1)
    with pytest.raises(ValueError, match="append-only"):
        event.save()


def test_free_text_payload_is_refused_and_nothing_is_written():
    with pytest.raises(InvalidInput) as excinfo:
        audit_event_append(
            action="memory.entry.created",
            policy_id="iris-memory-v1",
            actor=Actor.system(),
            payload={"detail": "my sister is pregnant"},
        )
    assert excinfo.value.code == "audit_payload_rejected"
    assert excinfo.value.fields == {"detail": [excinfo.value.fields["detail"][0]]}
    assert not AuditEvent.objects.exists()


def test_verify_command_passes_on_an_intact_chain(capsys):
    append_events(3)
    call_command("audit_verify")
    assert "intact: 3 events in 1 chains" in capsys.readouterr().out


def _event_at(chain_sequence: int) -> AuditEvent:
    return AuditEvent.objects.get(chain_key="platform", chain_sequence=chain_sequence)


def test_verify_detects_a_flipped_byte():
    append_events(5)
    victim = _event_at(3)
    flipped = victim.hash[:-1] + ("0" if victim.hash[-1] != "0" else "1")
    # Corruption goes through the sanctioned bypass, as only a purge may.
    with tampering():
        AuditEvent.objects.filter(pk=victim.pk).update(hash=flipped)
    with pytest.raises(CommandError, match=str(victim.id)):
        call_command("audit_verify")


def test_verify_detects_a_changed_payload():
    append_events(5)
    victim = _event_at(2)
    with tampering():
        AuditEvent.objects.filter(pk=victim.pk).update(payload={"index": 7})
    report = audit_chain_verify()
    assert (report.first_break.event_id, report.first_break.reason) == (
        str(victim.id),
        "hash-mismatch",
    )


def test_verify_detects_a_deleted_row():
    append_events(5)
    with tampering():
        _event_at(3).delete()
    with pytest.raises(CommandError, match=str(_event_at(4).id)):
        call_command("audit_verify")


def test_verify_detects_a_reordered_pair():
    append_events(5)
    second, third = _event_at(2), _event_at(3)
    with tampering():
        AuditEvent.objects.filter(pk=second.pk).update(chain_sequence=-1)
        AuditEvent.objects.filter(pk=third.pk).update(chain_sequence=2)
        AuditEvent.objects.filter(pk=second.pk).update(chain_sequence=3)
    report = audit_chain_verify()
    assert not report.valid
    assert report.first_break.event_id == str(third.id)


def test_verify_detects_an_inserted_row_even_with_a_self_consistent_hash():
    append_events(4)
    displaced = _event_at(3)
    with tampering():
        for chain_sequence in (4, 3):
            AuditEvent.objects.filter(chain_key="platform", chain_sequence=chain_sequence).update(
                chain_sequence=chain_sequence + 1
            )
        forged = AuditEvent(
            sequence=-1,
            chain_key="platform",
            chain_sequence=3,
            action="test.event.forged",
            policy_id="iris-test-v1",
            severity="info",
            actor_type="system",
            payload={},
            occurred_at=displaced.occurred_at,
            previous_hash=_event_at(2).hash,
        )
        forged.hash = chain_hash(forged.previous_hash, link_of(forged))
        forged.save(force_insert=True)
    report = audit_chain_verify()
    assert report.first_break.event_id == str(displaced.id)


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_leave_every_chain_unforked():
    members = [uuid.uuid4(), uuid.uuid4()]
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        try:
            for index in range(15):
                audit_event_append(
                    action=AuditAction.IRIS_SITE_AUDIT_BENCH_APPENDED,
                    policy_id="iris-test-v1",
                    actor=Actor.system(),
                    # two writers per member chain, two on the platform chain
                    target_member_id=members[worker] if worker < 2 else None,
                    payload={"worker": worker, "index": index},
                )
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(n % 3,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    report = audit_chain_verify()
    assert (report.valid, report.chain_count, report.checked_count) == (True, 3, 90)
    for chain in [*map(str, members), "platform"]:
        positions = AuditEvent.objects.filter(chain_key=chain).order_by("sequence")
        assert list(positions.values_list("chain_sequence", flat=True)) == list(range(1, 31))


@pytest.mark.django_db(transaction=True)
def test_a_members_open_append_does_not_block_another_members_append():
    if connection.vendor != "postgresql":
        pytest.skip("row and advisory locks: PostgreSQL only (SQLite has one write lock)")
    member_a, member_b = MemberFactory(), MemberFactory()
    holding, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def hold_a_open() -> None:
        try:
            with transaction.atomic():
                member_lock(member_id=member_a.pk)
                append_events(1, member_id=member_a.pk)
                holding.set()
                release.wait(timeout=30)
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_a_open)
    holder.start()
    try:
        assert holding.wait(timeout=10)
        # when: member B appends while A's transaction holds A's chain
        started = time.monotonic()
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            member_lock(member_id=member_b.pk)
            (event,) = append_events(1, member_id=member_b.pk)
        # then: it went straight through
        assert time.monotonic() - started < 2
        assert (event.chain_key, event.chain_sequence) == (str(member_b.pk), 1)
        # while another append to A's own chain does wait (here: until its timeout)
        with pytest.raises(OperationalError), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '300ms'")
            append_events(1, member_id=member_a.pk)
    finally:
        release.set()
        holder.join(timeout=30)
    assert errors == []
    assert audit_chain_verify().valid
