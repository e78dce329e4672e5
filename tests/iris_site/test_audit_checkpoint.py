"""Signed checkpoints: what someone who can rewrite the database (and recompute every
hash) still cannot hide, key rotation, the sink, and a member's own proof."""

import dataclasses
import io
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from crontask import scheduler
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from datarights.contracts import ExportPayload
from datarights.export import write_bundle
from iris_site import tasks
from iris_site.audit.checkpoint import (
    JsonLinesSink,
    audit_checkpoint_seal,
    audit_member_chain,
    audit_member_proof,
)
from iris_site.audit.events import chain_hash, link_of
from iris_site.audit.policy import GENESIS_HASH, ChainLink, first_break
from iris_site.audit.seal import (
    keyring,
    private_key_pem,
    proof_check,
    public_key_text,
    signature_check,
    statement_digest,
)
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import Conflict
from iris_site.models import AuditCheckpoint, AuditEvent
from tests.hierarchy.factories import append_events, tampering

pytestmark = pytest.mark.django_db

MEMBER_A = uuid.UUID("00000000-0000-4000-8000-00000000000a")
MEMBER_B = uuid.UUID("00000000-0000-4000-8000-00000000000b")


@pytest.fixture
def signer(settings, tmp_path) -> Ed25519PrivateKey:
    key = Ed25519PrivateKey.generate()
    settings.AUDIT_SIGNING_KEY = private_key_pem(key).decode()
    settings.AUDIT_VERIFY_KEYS = []
    settings.AUDIT_SIGNING_KEY_FILE = str(tmp_path / "unused-key.pem")
    settings.AUDIT_CHECKPOINT_PATH = str(tmp_path / "sink" / "checkpoints.jsonl")
    return key


@pytest.fixture
def sealed(signer) -> AuditCheckpoint:
    """Member A: 5 events, member B: 3, the platform: 2; then a checkpoint."""
    append_events(5, member_id=MEMBER_A)
    append_events(3, member_id=MEMBER_B)
    append_events(2)
    return audit_checkpoint_seal()


def chain_of(member_id) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(chain_key=str(member_id)).order_by("chain_sequence"))


def stored_chain_holds(member_id) -> bool:
    """What the old, unsealed check saw: the links and hashes agree with each other."""
    rows = [(link_of(e), e.previous_hash, e.hash) for e in chain_of(member_id)]
    return first_break(rows) is None


def sink_records() -> list[dict]:
    return list(JsonLinesSink().records())


def rewrite_chain(member_id, edit) -> None:
    """The attacker: replace a chain by `edit(events)`, renumbered and every hash
    recomputed from genesis, so the stored chain is self-consistent again."""
    forged = edit(chain_of(member_id))
    with tampering():
        AuditEvent.objects.filter(chain_key=str(member_id)).delete()
        previous = GENESIS_HASH
        for position, event in enumerate(forged, start=1):
            event.chain_sequence, event.previous_hash = position, previous
            event.hash = chain_hash(previous, link_of(event))
            event._state.adding = True
            event.save(force_insert=True)
            previous = event.hash
    assert stored_chain_holds(member_id)


def test_a_clean_chain_verifies_against_the_signed_checkpoint(sealed, signer, capsys):
    # then: the sink holds one signed statement naming the root over the three heads
    (record,) = sink_records()
    assert (record["number"], record["tree_size"], record["previous"]) == (1, 3, GENESIS_HASH)
    signature_check(record, keyring([signer.public_key()]))
    assert sealed.heads[0][:2] == [str(MEMBER_A), 5]
    report = audit_chain_verify()
    assert (report.valid, report.checkpoint, report.chain_count, report.checked_count) == (
        True,
        1,
        3,
        10,
    )
    call_command("audit_verify")
    assert "10 events in 3 chains, against signed checkpoint 1" in capsys.readouterr().out


def test_nothing_new_seals_nothing_and_the_next_checkpoint_names_the_previous(sealed):
    assert audit_checkpoint_seal() is None
    append_events(1, member_id=MEMBER_B)
    second = audit_checkpoint_seal()
    first, last = sink_records()
    assert (second.number, last["number"]) == (2, 2)
    assert last["previous"] == statement_digest(first)
    assert audit_chain_verify().valid


def test_rewrite_and_recompute_by_raw_sql_is_caught_by_the_checkpoint(sealed):
    # given: the attacker zeroes one event's payload and recomputes every later hash in
    # that chain, in SQL, with the append-only triggers switched off as the owner can
    events = chain_of(MEMBER_A)
    pk = AuditEvent._meta.pk
    table = AuditEvent._meta.db_table
    previous = events[0].hash
    with tampering(), connection.cursor() as cursor:
        for index, event in enumerate(events[1:], start=2):
            link = link_of(event)
            if index == 2:
                link = dataclasses.replace(link, payload={"index": 0})
            digest = chain_hash(previous, link)
            cursor.execute(
                f"UPDATE {table} SET payload = %s, previous_hash = %s, hash = %s WHERE id = %s",
                [
                    json.dumps(link.payload),
                    previous,
                    digest,
                    pk.get_db_prep_value(event.pk, connection),
                ],
            )
            previous = digest
    assert chain_of(MEMBER_A)[1].payload == {"index": 0}
    assert stored_chain_holds(MEMBER_A)  # the unsealed chain alone says "intact"
    # when / then: the chain no longer passes through the head the checkpoint signed
    report = audit_chain_verify()
    assert not report.valid
    broken = report.first_break
    assert (broken.chain, broken.event_id, broken.sequence, broken.reason) == (
        str(MEMBER_A),
        str(events[4].id),
        5,
        "sealed-head-mismatch",
    )
    assert report.broken_chains == 1
    with pytest.raises(CommandError, match=str(events[4].id)):
        call_command("audit_verify")


def _drop_last(events):
    return events[:-1]


def _drop_middle(events):
    return [*events[:2], *events[3:]]


def _insert(events):
    forged = AuditEvent(
        id=uuid.uuid4(),
        sequence=-1,
        chain_key=str(MEMBER_A),
        action="test.event.forged",
        policy_id="iris-test-v1",
        severity="info",
        actor_type="system",
        target_member_id=MEMBER_A,
        payload={},
        occurred_at=events[2].occurred_at,
    )
    return [*events[:2], forged, *events[2:]]


def _reorder(events):
    return [events[0], events[2], events[1], *events[3:]]


@pytest.mark.parametrize(
    ("edit", "reason", "at"),
    [
        (_drop_last, "sealed-head-missing", 5),  # truncation at the end
        (_drop_middle, "sealed-head-missing", 5),
        (_insert, "sealed-head-mismatch", 5),
        (_reorder, "sealed-head-mismatch", 5),
    ],
)
def test_removal_insertion_and_reordering_with_recomputed_hashes_are_caught(
    sealed, edit, reason, at
):
    sealed_head = chain_of(MEMBER_A)[4]
    rewrite_chain(MEMBER_A, edit)
    broken = audit_chain_verify().first_break
    assert (broken.chain, broken.reason, broken.sequence) == (str(MEMBER_A), reason, at)
    if reason == "sealed-head-missing":
        assert broken.event_id == str(sealed_head.id)


def test_a_whole_chain_removed_is_caught(sealed):
    sealed_head = chain_of(MEMBER_B)[-1]
    with tampering():
        AuditEvent.objects.filter(chain_key=str(MEMBER_B)).delete()
    report = audit_chain_verify()
    assert (report.first_break.event_id, report.first_break.reason) == (
        str(sealed_head.id),
        "sealed-head-missing",
    )


def test_events_after_the_checkpoint_chain_on_from_it(sealed):
    later = append_events(2, member_id=MEMBER_A)
    assert audit_chain_verify().valid
    with tampering():
        AuditEvent.objects.filter(pk=later[0].pk).update(payload={"index": 9})
    broken = audit_chain_verify().first_break
    assert (broken.event_id, broken.sequence, broken.reason) == (
        str(later[0].id),
        6,
        "hash-mismatch",
    )


def test_a_checkpoint_resealed_with_another_key_is_refused(sealed, signer, settings, monkeypatch):
    # given: the attacker rewrites a chain, then seals a new checkpoint over it with a
    # key of their own and appends it to the sink (they can write the sink, not sign),
    # with a sealer of their own that does not check the last checkpoint's heads
    rewrite_chain(MEMBER_A, _drop_last)
    monkeypatch.setattr("iris_site.audit.checkpoint._sealed_heads_gone", lambda latest: 0)
    settings.AUDIT_SIGNING_KEY = private_key_pem(Ed25519PrivateKey.generate()).decode()
    assert audit_checkpoint_seal().number == 2
    # when: verified with the platform's real key
    settings.AUDIT_SIGNING_KEY = private_key_pem(signer).decode()
    report = audit_chain_verify()
    # then
    assert not report.valid
    assert report.checkpoint is None
    assert "checkpoint 2: signed by unknown key" in report.checkpoint_problem
    with pytest.raises(CommandError, match="signed by unknown key"):
        call_command("audit_verify")


def test_heads_rewritten_in_the_database_do_not_match_the_signed_root(sealed):
    rewrite_chain(MEMBER_A, _drop_last)
    head = chain_of(MEMBER_A)[-1]
    heads = [list(h) for h in sealed.heads]
    heads[0] = [str(MEMBER_A), head.chain_sequence, str(head.id), head.hash]
    with tampering():
        AuditCheckpoint.objects.filter(pk=sealed.pk).update(heads=heads)
    report = audit_chain_verify()
    assert not report.valid
    assert "does not match its signed statement" in report.checkpoint_problem


def test_rotation_keeps_old_checkpoints_verifiable_with_the_old_public_key(
    sealed, signer, settings
):
    new = Ed25519PrivateKey.generate()
    settings.AUDIT_SIGNING_KEY = private_key_pem(new).decode()
    settings.AUDIT_VERIFY_KEYS = [public_key_text(signer.public_key())]
    append_events(1)
    assert audit_checkpoint_seal().number == 2
    assert len({r["key_id"] for r in sink_records()}) == 2
    assert audit_chain_verify().valid
    settings.AUDIT_VERIFY_KEYS = []
    assert "checkpoint 1: signed by unknown key" in audit_chain_verify().checkpoint_problem


def test_a_failed_sink_append_is_caught_up_by_the_next_run(signer, monkeypatch):
    append_events(2, member_id=MEMBER_A)

    def broken(self, record):
        raise OSError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(JsonLinesSink, "append", broken)
        with pytest.raises(OSError):
            audit_checkpoint_seal()
    assert AuditCheckpoint.objects.count() == 1 and sink_records() == []
    assert "the sink none" in audit_chain_verify().checkpoint_problem
    assert audit_checkpoint_seal() is None  # nothing new to seal; the sink catches up
    assert [r["number"] for r in sink_records()] == [1]
    assert audit_chain_verify().valid


def test_a_checkpoint_removed_from_the_database_stops_the_sealer(sealed):
    with tampering():
        AuditCheckpoint.objects.all().delete()
    append_events(1)
    with pytest.raises(Conflict) as excinfo:
        audit_checkpoint_seal()
    assert excinfo.value.code == "audit_checkpoint_sink_ahead"
    assert "in the sink but not in the database" in audit_chain_verify().checkpoint_problem


def _proof_document(member_id) -> dict:
    return {
        "audit_proof": audit_member_proof(member_id),
        "audit_chain": list(audit_member_chain(member_id)),
    }


def _verify_alone(path: Path, public_key: str) -> subprocess.CompletedProcess:
    """`python -m iris_site.audit.seal`, with no Django settings and no database."""
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(django_settings.BASE_DIR)}
    return subprocess.run(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", "iris_site.audit.seal", str(path), "--public-key", public_key],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_member_verifies_their_own_chain_without_iris(sealed, signer, tmp_path):
    append_events(1, member_id=MEMBER_A)  # after the checkpoint: chained, not yet sealed
    document = _proof_document(MEMBER_A)
    assert document["audit_proof"]["leaf"]["chain_sequence"] == 5
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(document))
    public = public_key_text(signer.public_key())
    done = _verify_alone(path, public)
    assert done.returncode == 0, done.stderr
    assert "6 events chain correctly; event 5 is the head sealed by checkpoint 1" in done.stdout
    # a proof rewritten and recomputed (here: by the platform) no longer verifies
    forged = json.loads(path.read_text())
    events = forged["audit_chain"]
    events[1]["payload"] = {"index": 0}
    previous = events[0]["hash"]
    for event in events[1:]:
        event["previous_hash"] = previous
        event["hash"] = previous = chain_hash(previous, ChainLink.from_dict(event))
    path.write_text(json.dumps(forged))
    done = _verify_alone(path, public)
    assert done.returncode == 1
    assert "sealed-head-mismatch" in done.stderr
    # and a key other than the platform's does not verify the checkpoint
    path.write_text(json.dumps(document))
    other = public_key_text(Ed25519PrivateKey.generate().public_key())
    assert "unknown key" in _verify_alone(path, other).stderr


def test_the_export_bundle_carries_the_members_chain_and_proof(sealed, tmp_path, capsys):
    out = io.BytesIO()
    write_bundle(
        request_id=uuid.uuid4(),
        member_id=MEMBER_B,
        payload=ExportPayload.model_validate({"scopes": ["profile"]}),
        generated_at=timezone.now(),
        out=out,
    )
    bundle = json.loads(out.getvalue())
    assert [e["chain_sequence"] for e in bundle["audit_chain"]] == [1, 2, 3]
    assert bundle["audit_proof"]["checkpoint"]["number"] == 1
    path = tmp_path / "export.json"
    path.write_bytes(out.getvalue())
    call_command("audit_verify_proof", str(path))
    assert "verified: 3 events chain correctly" in capsys.readouterr().out


def test_a_member_with_nothing_sealed_gets_a_chain_without_a_leaf(sealed):
    newcomer = uuid.uuid4()
    append_events(2, member_id=newcomer)
    proof = audit_member_proof(newcomer)
    assert proof["checkpoint"]["number"] == 1 and proof["leaf"] is None
    report = proof_check(_proof_document(newcomer), {})
    assert (report.events, report.checkpoint) == (2, None)


def test_the_seal_job_is_scheduled():
    assert "seal_audit_checkpoint" in {job.name for job in scheduler.get_jobs()}


def test_the_job_seals(signer):
    append_events(1)
    assert tasks.seal_audit_checkpoint.call() == {"number": 1}


def test_a_development_key_file_is_generated_owner_only(settings, tmp_path):
    settings.AUDIT_SIGNING_KEY = ""
    settings.AUDIT_SIGNING_KEY_FILE = str(tmp_path / "audit" / "signing-key.pem")
    settings.AUDIT_CHECKPOINT_PATH = str(tmp_path / "audit" / "checkpoints.jsonl")
    settings.AUDIT_VERIFY_KEYS = []
    append_events(1)
    settings.AUDIT_SIGNING_KEY_GENERATE = False
    with pytest.raises(ImproperlyConfigured):
        audit_checkpoint_seal()
    settings.AUDIT_SIGNING_KEY_GENERATE = True
    assert audit_checkpoint_seal().number == 1
    assert (Path(settings.AUDIT_SIGNING_KEY_FILE).stat().st_mode & 0o777) == 0o600
    assert audit_chain_verify().valid
