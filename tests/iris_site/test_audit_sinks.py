"""Whose sink it is: checkpoints name their database's deployment id; a sink of another
database is refused by the seal and by `audit_verify`; sinks written before deployment
ids are accepted (and the old shared file adopted) only where this database holds their
checkpoints as sealed; `audit_deployment --new` gives a restored copy its own id."""

import threading
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.checkpoint import (
    JsonLinesSink,
    audit_chain_heads,
    audit_checkpoint_seal,
    audit_member_proof,
    deployment_current,
    record_of,
)
from iris_site.audit.events import iso
from iris_site.audit.policy import GENESIS_HASH
from iris_site.audit.seal import (
    private_key_pem,
    statement_digest,
    statement_make,
    statement_sign,
)
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import Conflict
from iris_site.models import AuditCheckpoint, AuditEvent, Deployment
from tests.hierarchy.factories import append_events
from tests.tamper import owner_tamper

pytestmark = pytest.mark.django_db

MEMBER = uuid.UUID("00000000-0000-4000-8000-00000000000a")


@pytest.fixture
def signer(settings, tmp_path) -> Ed25519PrivateKey:
    """One key; the default sink (no AUDIT_CHECKPOINT_PATH) under this test's folder."""
    key = Ed25519PrivateKey.generate()
    settings.AUDIT_SIGNING_KEY = private_key_pem(key).decode()
    settings.AUDIT_VERIFY_KEYS = []
    settings.AUDIT_CHECKPOINT_PATH = ""
    settings.AUDIT_CHECKPOINT_DIR = str(tmp_path / "audit")
    return key


def deployment() -> str:
    return str(deployment_current().deployment_id)


def own_sink() -> Path:
    return Path(JsonLinesSink(deployment=deployment()).path)


def records(path: Path) -> list[dict]:
    return list(JsonLinesSink(path).records())


def legacy_seal(key: Ed25519PrivateKey, path: Path) -> AuditCheckpoint:
    """A checkpoint as sealed before deployment ids: a version 1 statement, naming no
    database, in the database and in the sink file at `path`."""
    latest = AuditCheckpoint.objects.order_by("-number").first()
    now = timezone.now()
    heads = audit_chain_heads()
    statement = statement_make(
        number=latest.number + 1 if latest else 1,
        sealed_at=iso(now),
        previous=statement_digest(record_of(latest)) if latest else GENESIS_HASH,
        heads=heads,
        signer=key.public_key(),
        deployment="",
    )
    del statement["deployment"]
    statement["version"] = 1
    checkpoint = AuditCheckpoint.objects.create(
        number=statement["number"],
        sealed_at=now,
        previous=statement["previous"],
        root=statement["root"],
        tree_size=statement["tree_size"],
        key_id=statement["key_id"],
        signature=statement_sign(statement, key),
        heads=[[h.chain, h.chain_sequence, h.event_id, h.hash] for h in heads],
    )
    JsonLinesSink(path).append(record_of(checkpoint))
    return checkpoint


def test_every_checkpoint_names_its_database_and_goes_to_its_own_sink(signer, settings):
    append_events(2, member_id=MEMBER)
    checkpoint = audit_checkpoint_seal()
    # then: the default sink is the deployment's own file, and the statement names it
    assert own_sink() == Path(settings.AUDIT_CHECKPOINT_DIR) / deployment() / "checkpoints.jsonl"
    (record,) = records(own_sink())
    assert (record["version"], record["deployment"]) == (2, deployment())
    assert str(checkpoint.deployment) == deployment()
    assert audit_member_proof(MEMBER)["checkpoint"] == record  # exports carry it too
    assert audit_chain_verify().valid


def test_a_sink_of_another_database_is_refused_by_the_seal_and_by_verify(signer, settings):
    # given: this database sealed into a sink pinned by AUDIT_CHECKPOINT_PATH
    settings.AUDIT_CHECKPOINT_PATH = str(Path(settings.AUDIT_CHECKPOINT_DIR) / "pinned.jsonl")
    append_events(1)
    audit_checkpoint_seal()
    first = deployment()
    # when: the database comes to carry another id (a DBA's insert, or another database
    # pointed at this sink)
    Deployment.objects.create(created_at=timezone.now())
    append_events(1)
    # then: sealing and verifying are both refused, naming the sink's and this database's
    with pytest.raises(Conflict) as refused:
        audit_checkpoint_seal()
    assert refused.value.code == "audit_checkpoint_sink_not_this_database"
    said = f"holds checkpoint 1 of deployment {first}; this database is deployment {deployment()}"
    assert said in refused.value.message
    report = audit_chain_verify()
    assert not report.valid and said in report.checkpoint_problem
    with pytest.raises(CommandError, match="checkpoints do not hold: the checkpoint sink"):
        call_command("audit_verify")
    assert len(records(Path(settings.AUDIT_CHECKPOINT_PATH))) == 1  # nothing mixed in


def test_the_old_shared_file_is_adopted_once_when_all_of_it_is_this_databases(signer, settings):
    # given: two checkpoints sealed before deployment ids, in the old shared default file
    old = Path(settings.AUDIT_CHECKPOINT_DIR) / "checkpoints.jsonl"
    append_events(2, member_id=MEMBER)
    legacy_seal(signer, old)
    append_events(1)
    legacy_seal(signer, old)
    # then: until the next seal, the database's own sink lacks them
    assert "the sink none" in audit_chain_verify().checkpoint_problem
    # when
    append_events(1, member_id=MEMBER)
    assert audit_checkpoint_seal().number == 3
    # then: the own sink begins with the two old records as they were, then names itself
    adopted = records(own_sink())
    assert adopted[:2] == records(old)
    assert [(r["version"], r.get("deployment")) for r in adopted] == [
        (1, None),
        (1, None),
        (2, deployment()),
    ]
    report = audit_chain_verify()
    assert (report.valid, report.checkpoint) == (True, 3)
    append_events(1)
    assert audit_checkpoint_seal().number == 4
    assert len(records(own_sink())) == 4 and len(records(old)) == 2  # adopted once


def test_an_old_shared_file_with_another_databases_checkpoint_is_not_adopted(signer, settings):
    # given: the old file holds this database's checkpoint 1, then another database's 2
    old = Path(settings.AUDIT_CHECKPOINT_DIR) / "checkpoints.jsonl"
    append_events(1)
    legacy_seal(signer, old)
    with transaction.atomic():
        append_events(1)
        legacy_seal(signer, old)
        transaction.set_rollback(True)  # sealed by "the other database": not in this one
    append_events(1)
    # then
    with pytest.raises(Conflict) as refused:
        audit_checkpoint_seal()
    assert (
        f"{old} holds checkpoint 2, sealed before deployment ids, which is not this "
        f"database's (deployment {deployment()}): it is not in this database's checkpoints"
    ) in refused.value.message
    assert not own_sink().exists()
    assert not audit_chain_verify().valid


def test_a_new_database_beside_the_old_shared_file_seals_into_its_own_sink(signer, settings):
    # given: another database's checkpoint in the old file; this database has none
    old = Path(settings.AUDIT_CHECKPOINT_DIR) / "checkpoints.jsonl"
    with transaction.atomic():
        append_events(1)
        legacy_seal(signer, old)
        transaction.set_rollback(True)
    append_events(2)
    # then: nothing to adopt; it starts its own
    assert audit_checkpoint_seal().number == 1
    assert [r["deployment"] for r in records(own_sink())] == [deployment()]
    assert audit_chain_verify().valid


def test_a_pinned_sink_written_before_deployment_ids_carries_on(signer, settings):
    settings.AUDIT_CHECKPOINT_PATH = str(Path(settings.AUDIT_CHECKPOINT_DIR) / "pinned.jsonl")
    pinned = Path(settings.AUDIT_CHECKPOINT_PATH)
    append_events(2)
    legacy_seal(signer, pinned)
    append_events(1)
    assert audit_checkpoint_seal().number == 2
    assert [r["version"] for r in records(pinned)] == [1, 2]
    assert audit_chain_verify().valid
    # an unnamed record after a named one is not a sink from before deployment ids
    JsonLinesSink(pinned).append({**records(pinned)[0], "number": 3})
    assert "checkpoint 3 in" in audit_chain_verify().checkpoint_problem


def test_a_database_with_old_checkpoints_and_a_sink_without_them_is_refused(signer, settings):
    settings.AUDIT_CHECKPOINT_PATH = str(Path(settings.AUDIT_CHECKPOINT_DIR) / "elsewhere.jsonl")
    append_events(1)
    legacy_seal(signer, Path(settings.AUDIT_CHECKPOINT_DIR) / "lost.jsonl")
    append_events(1)
    with pytest.raises(Conflict, match=r"which its sink .* lacks: set AUDIT_CHECKPOINT_PATH"):
        audit_checkpoint_seal()


def test_a_sink_that_lost_its_first_checkpoints_is_refused(signer):
    append_events(1)
    audit_checkpoint_seal()
    append_events(1)
    audit_checkpoint_seal()
    _, second = own_sink().read_text().splitlines()
    own_sink().write_text(second + "\n")
    assert "begins at checkpoint 2, not 1" in audit_chain_verify().checkpoint_problem


def test_a_database_emptied_since_its_migration_gets_an_id_at_its_first_seal(signer):
    # given: a flush (a test run's) took the migration's row with everything else
    with transaction.atomic(), owner_tamper(Deployment):
        Deployment.objects.all().delete()
    append_events(1)
    report = audit_chain_verify()
    assert (report.valid, report.checkpoint, report.deployment) == (True, None, None)
    # when / then
    assert audit_checkpoint_seal().deployment == deployment_current().deployment_id
    assert audit_chain_verify().valid


def test_a_sealed_database_that_lost_its_id_and_checkpoints_does_not_verify(signer, settings):
    settings.AUDIT_CHECKPOINT_PATH = str(Path(settings.AUDIT_CHECKPOINT_DIR) / "pinned.jsonl")
    append_events(1)
    audit_checkpoint_seal()
    with transaction.atomic(), owner_tamper(Deployment, AuditCheckpoint):
        Deployment.objects.all().delete()
        AuditCheckpoint.objects.all().delete()
    problem = audit_chain_verify().checkpoint_problem
    assert problem == "this database has no deployment id but has been sealed before"


def test_a_copy_takes_a_new_id_and_a_sink_that_carries_on_from_its_original(
    signer, settings, capsys
):
    # given: the original's sink pinned at one path, holding checkpoints 1 and 2
    folder = Path(settings.AUDIT_CHECKPOINT_DIR)
    settings.AUDIT_CHECKPOINT_PATH = str(folder / "original.jsonl")
    for _ in range(2):
        append_events(1, member_id=MEMBER)
        audit_checkpoint_seal()
    original = deployment()
    # when: still pointed at the original's sink, the copy cannot renew (nothing changes)
    with pytest.raises(CommandError, match=f"holds checkpoint 1 of deployment {original}"):
        call_command("audit_deployment", "--new")
    assert (Deployment.objects.count(), deployment()) == (1, original)
    # when: given a sink of its own, and the original's to verify against
    settings.AUDIT_CHECKPOINT_PATH = str(folder / "copy.jsonl")
    call_command("audit_deployment", "--new", "--original-sink", str(folder / "original.jsonl"))
    # then
    renewed = deployment()
    out = capsys.readouterr().out
    assert f"deployment {original} -> {renewed}: verified against checkpoint 2" in out
    assert [(r["number"], r["deployment"]) for r in records(folder / "copy.jsonl")] == [
        (3, renewed)
    ]
    assert records(folder / "copy.jsonl")[0]["previous"] == statement_digest(
        records(folder / "original.jsonl")[1]
    )
    event = AuditEvent.objects.get(action=AuditAction.IRIS_SITE_DEPLOYMENT_RENEWED)
    assert event.payload == {
        "previous_deployment": original,
        "deployment": renewed,
        "inherited_checkpoint": 2,
        "sink_checkpoint": 2,
    }
    assert (audit_chain_verify().valid, audit_member_proof(MEMBER)["checkpoint"]["number"]) == (
        True,
        3,
    )
    call_command("audit_deployment")
    assert f"deployment {renewed}, sink {folder / 'copy.jsonl'}" in capsys.readouterr().out


def test_a_copy_that_does_not_verify_keeps_its_id(signer, settings):
    append_events(3, member_id=MEMBER)
    audit_checkpoint_seal()
    with transaction.atomic(), owner_tamper(AuditEvent):
        AuditEvent.objects.filter(chain_key=str(MEMBER), chain_sequence=2).update(
            payload={"index": 9}
        )
    with pytest.raises(CommandError, match=r"does not verify against its sink.*hash-mismatch"):
        call_command("audit_deployment", "--new")
    assert Deployment.objects.count() == 1


def test_the_database_a_copy_sealed_ahead_of_resolves_it_by_renewing(signer, capsys):
    # given: this database's sink holds a checkpoint 2 it lacks: its restored copy, with
    # the same id, sealed first into the same sink
    append_events(1, member_id=MEMBER)
    audit_checkpoint_seal()
    sink = own_sink()
    with transaction.atomic():
        append_events(1)
        audit_checkpoint_seal()
        transaction.set_rollback(True)
    assert [r["number"] for r in records(sink)] == [1, 2]
    append_events(1, member_id=MEMBER)
    with pytest.raises(Conflict) as refused:
        audit_checkpoint_seal()
    assert "manage.py audit_deployment --new" in refused.value.message
    # when
    call_command("audit_deployment", "--new")
    # then: its own sink carries on from its checkpoint 1; the copy keeps the old one
    assert "verified against checkpoint 1 (the sink held 2)" in capsys.readouterr().out
    assert [(r["number"], r["deployment"]) for r in records(own_sink())] == [(2, deployment())]
    assert len(records(sink)) == 2
    assert audit_chain_verify().valid


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the sealer lock is PostgreSQL's")
def test_sealers_on_several_hosts_take_turns_on_one_sink(signer, settings):
    # given: four sealers at once (each its own connection), one sink file they all mount
    settings.AUDIT_CHECKPOINT_PATH = str(Path(settings.AUDIT_CHECKPOINT_DIR) / "shared.jsonl")
    start = threading.Barrier(4)
    failures: list[BaseException] = []

    def host() -> None:
        try:
            start.wait()
            for _ in range(5):
                append_events(1, member_id=uuid.uuid4())
                audit_checkpoint_seal()
        except BaseException as exc:  # reported below
            failures.append(exc)
        finally:
            connection.close()

    hosts = [threading.Thread(target=host) for _ in range(4)]
    for thread in hosts:
        thread.start()
    for thread in hosts:
        thread.join(timeout=120)
    # then: one unbroken sequence, every checkpoint in it once, and it verifies
    assert failures == []
    numbers = [r["number"] for r in records(Path(settings.AUDIT_CHECKPOINT_PATH))]
    assert numbers == list(range(1, AuditCheckpoint.objects.count() + 1))
    assert audit_chain_verify().valid
