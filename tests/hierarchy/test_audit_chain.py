"""The episodic chain: append-only at the database, verifiable, fork-free."""

import threading
import uuid

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from hierarchy.events import Actor, audit_event_append, chain_hash, link_of
from hierarchy.models import AuditEvent
from hierarchy.selectors import audit_chain_verify
from iris_site.appendonly import purge_bypass
from iris_site.errors import InvalidInput
from tests.hierarchy.factories import append_events

pytestmark = pytest.mark.django_db


def test_append_links_each_event_to_the_previous_hash():
    # given / when
    first, second = append_events(2)
    # then
    assert first.sequence == 1 and first.previous_hash == "0" * 64
    assert second.previous_hash == first.hash
    assert second.hash == chain_hash(first.hash, link_of(second))
    assert audit_chain_verify().valid


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


@pytest.mark.parametrize("statement", ["UPDATE {t} SET action = 'x.y'", "DELETE FROM {t}"])
def test_raw_update_and_delete_are_rejected_by_the_database(statement):
    append_events(1)
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement.format(t=AuditEvent._meta.db_table))
    assert AuditEvent.objects.filter(action="test.event.recorded").count() == 1


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
    assert "intact: 3 events" in capsys.readouterr().out


def _event_at(sequence: int) -> AuditEvent:
    return AuditEvent.objects.get(sequence=sequence)


def test_verify_detects_a_flipped_byte():
    append_events(5)
    victim = _event_at(3)
    flipped = victim.hash[:-1] + ("0" if victim.hash[-1] != "0" else "1")
    # Corruption goes through the sanctioned bypass, as only a purge may.
    with transaction.atomic(), purge_bypass(AuditEvent):
        AuditEvent.objects.filter(pk=victim.pk).update(hash=flipped)
    with pytest.raises(CommandError, match=str(victim.id)):
        call_command("audit_verify")


def test_verify_detects_a_changed_payload():
    append_events(5)
    victim = _event_at(2)
    with transaction.atomic(), purge_bypass(AuditEvent):
        AuditEvent.objects.filter(pk=victim.pk).update(payload={"index": 7})
    report = audit_chain_verify()
    assert (report.first_break.event_id, report.first_break.reason) == (
        str(victim.id),
        "hash-mismatch",
    )


def test_verify_detects_a_deleted_row():
    append_events(5)
    with transaction.atomic(), purge_bypass(AuditEvent):
        AuditEvent.objects.filter(sequence=3).delete()
    with pytest.raises(CommandError, match=str(_event_at(4).id)):
        call_command("audit_verify")


def test_verify_detects_a_reordered_pair():
    append_events(5)
    second, third = _event_at(2), _event_at(3)
    with transaction.atomic(), purge_bypass(AuditEvent):
        AuditEvent.objects.filter(pk=second.pk).update(sequence=-1)
        AuditEvent.objects.filter(pk=third.pk).update(sequence=2)
        AuditEvent.objects.filter(pk=second.pk).update(sequence=3)
    report = audit_chain_verify()
    assert not report.valid
    assert report.first_break.event_id == str(third.id)


def test_verify_detects_an_inserted_row_even_with_a_self_consistent_hash():
    append_events(4)
    displaced = _event_at(3)
    with transaction.atomic(), purge_bypass(AuditEvent):
        for sequence in (4, 3):
            AuditEvent.objects.filter(sequence=sequence).update(sequence=sequence + 1)
        forged = AuditEvent(
            sequence=3,
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
def test_concurrent_appends_leave_one_unforked_chain():
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        try:
            for index in range(15):
                audit_event_append(
                    action="test.concurrent.append",
                    policy_id="iris-test-v1",
                    actor=Actor.system(),
                    payload={"worker": worker, "index": index},
                )
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    report = audit_chain_verify()
    assert report.valid and report.checked_count == 60
    assert list(AuditEvent.objects.order_by("sequence").values_list("sequence", flat=True)) == list(
        range(1, 61)
    )
