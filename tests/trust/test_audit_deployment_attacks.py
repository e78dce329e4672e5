"""Attacks (review): a deployment id added by hand does not lower the bar of `audit_verify`.

The append-only guard lets anyone who can write the database INSERT a `Deployment` row.
One naming the last checkpoint as `inherited` gave the database an empty default sink,
and the chains were then checked against no checkpoint at all: a member's whole chain
could be erased and `audit_verify` passed. Now the inherited checkpoint (its signature on
its row) is what the chains are checked against until the new deployment seals, a row
that `audit_deployment --new` did not make is reported, and the seal refuses to seal
under it.
"""

import uuid

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import CommandError, call_command
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.checkpoint import JsonLinesSink, audit_checkpoint_seal, deployment_current
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.seal import heads_from_rows, merkle_root, private_key_pem
from iris_site.audit.selectors import audit_chain_verify
from iris_site.errors import Conflict
from iris_site.models import AuditCheckpoint, AuditEvent, Deployment
from tests.hierarchy.factories import append_events, tampering
from tests.iris_site.test_audit_sinks import signer  # noqa: F401 - one key, the default sink

pytestmark = pytest.mark.django_db

MEMBER = uuid.UUID("00000000-0000-4000-8000-00000000000b")


def sealed_then_erased() -> AuditCheckpoint:
    """Two chains sealed, then the member's erased by someone who owns the tables."""
    append_events(3, member_id=MEMBER)
    append_events(2)
    checkpoint = audit_checkpoint_seal()
    with tampering():
        AuditEvent.objects.filter(chain_key=str(MEMBER)).delete()
    report = audit_chain_verify()
    assert (report.valid, report.checkpoint) == (False, checkpoint.number)
    assert report.first_break.reason == "sealed-head-missing"
    return checkpoint


def inserted_deployment(inherited: int) -> Deployment:
    """The attacker's one extra step: an INSERT, which the append-only guard allows."""
    return Deployment.objects.create(created_at=timezone.now(), inherited=inherited)


def test_an_inserted_deployment_row_does_not_hide_an_erased_chain(signer):  # noqa: F811
    checkpoint = sealed_then_erased()
    row = inserted_deployment(checkpoint.number)
    # then: still checked against the inherited checkpoint, and the row is reported
    report = audit_chain_verify()
    assert not report.valid
    assert (report.checkpoint, report.deployment) == (checkpoint.number, str(row.deployment_id))
    assert report.first_break.reason == "sealed-head-missing"
    assert report.first_break.chain == str(MEMBER)
    assert f"deployment {row.deployment_id}, inheriting checkpoint 1, was not given by" in (
        report.checkpoint_problem
    )
    with pytest.raises(CommandError, match=r"not given by manage.py audit_deployment --new.*"):
        call_command("audit_verify")


def test_a_forged_renewal_event_still_leaves_the_inherited_checkpoint_in_force(signer):  # noqa: F811
    # given: the attacker also appends the event audit_deployment --new would have written
    # (the chain's hashes are public, so an INSERT can carry one)
    checkpoint = sealed_then_erased()
    row = inserted_deployment(checkpoint.number)
    audit_event_append(
        action=AuditAction.IRIS_SITE_DEPLOYMENT_RENEWED,
        policy_id="iris.iris_site.audit_checkpoint.v1",
        actor=Actor.system(),
        payload={
            "previous_deployment": None,
            "deployment": str(row.deployment_id),
            "inherited_checkpoint": checkpoint.number,
            "sink_checkpoint": checkpoint.number,
        },
    )
    # then: the row passes as renewed, but the signed checkpoint 1 still seals the chain
    report = audit_chain_verify()
    assert report.checkpoint_problem is None
    assert (report.valid, report.checkpoint) == (False, checkpoint.number)
    assert report.first_break.reason == "sealed-head-missing"


def test_the_seal_refuses_to_seal_under_an_inserted_deployment(signer):  # noqa: F811
    # otherwise the next seal job would seal the erasure under the new id
    checkpoint = sealed_then_erased()
    row = inserted_deployment(checkpoint.number)
    append_events(1)
    with pytest.raises(Conflict) as refused:
        audit_checkpoint_seal()
    assert refused.value.code == "audit_deployment_unrecorded"
    assert AuditCheckpoint.objects.count() == 1
    assert list(JsonLinesSink(deployment=str(row.deployment_id)).records()) == []
    assert not audit_chain_verify().valid


def test_an_inherited_checkpoint_rewritten_to_match_the_erasure_does_not_verify(signer):  # noqa: F811
    # given: the inherited checkpoint's heads and root recomputed without the chain
    checkpoint = sealed_then_erased()
    inserted_deployment(checkpoint.number)
    heads = [h for h in checkpoint.heads if h[0] != str(MEMBER)]
    with tampering():
        AuditCheckpoint.objects.filter(pk=checkpoint.pk).update(
            heads=heads, root=merkle_root(heads_from_rows(heads)), tree_size=len(heads)
        )
    # then: its signature (on its row) no longer verifies
    report = audit_chain_verify()
    assert not report.valid
    assert "checkpoint 1: the signature does not verify" in report.checkpoint_problem


def test_an_inherited_checkpoint_signed_by_an_unknown_key_is_a_problem(signer, settings):  # noqa: F811
    checkpoint = sealed_then_erased()
    inserted_deployment(checkpoint.number)
    settings.AUDIT_SIGNING_KEY = private_key_pem(Ed25519PrivateKey.generate()).decode()
    report = audit_chain_verify()
    assert not report.valid
    assert "checkpoint 1: signed by unknown key" in report.checkpoint_problem


def test_an_inserted_row_naming_no_inherited_checkpoint_does_not_verify(signer):  # noqa: F811
    sealed_then_erased()
    Deployment.objects.create(created_at=timezone.now())
    report = audit_chain_verify()
    assert not report.valid
    assert "the database holds checkpoints, the sink none" in report.checkpoint_problem


def test_a_genuine_renewal_verifies_and_still_catches_an_erasure(signer, capsys):  # noqa: F811
    # given: sealed under the first id, then renewed by the command (default sinks)
    append_events(3, member_id=MEMBER)
    append_events(2)
    first = audit_checkpoint_seal()
    original = deployment_current().deployment_id
    call_command("audit_deployment", "--new")
    renewed = deployment_current()
    assert (renewed.inherited, renewed.deployment_id != original) == (first.number, True)
    assert "sealed its checkpoint 2" in capsys.readouterr().out
    # then: it verifies, against the checkpoint it sealed under its new id
    report = audit_chain_verify()
    assert (report.valid, report.checkpoint, report.checkpoint_problem) == (True, 2, None)
    call_command("audit_verify")
    assert "against signed checkpoint 2" in capsys.readouterr().out
    # and it seals on
    append_events(1, member_id=MEMBER)
    assert audit_checkpoint_seal().number == 3
    assert audit_chain_verify().valid
    # when: the member's chain is erased
    with tampering():
        AuditEvent.objects.filter(chain_key=str(MEMBER)).delete()
    # then
    report = audit_chain_verify()
    assert (report.valid, report.first_break.reason) == (False, "sealed-head-missing")


def test_a_second_genuine_renewal_verifies(signer):  # noqa: F811
    append_events(2, member_id=MEMBER)
    audit_checkpoint_seal()
    call_command("audit_deployment", "--new")
    append_events(1)
    audit_checkpoint_seal()
    call_command("audit_deployment", "--new")
    assert Deployment.objects.count() == 3
    report = audit_chain_verify()
    assert (report.valid, report.checkpoint, report.checkpoint_problem) == (True, 4, None)


def test_the_seal_never_seals_over_a_chain_rewritten_since_the_last_checkpoint(signer):  # noqa: F811
    """Found with the review: without a new id, erasing a sealed chain and waiting for the
    next seal (every ten minutes) laundered it, since the new checkpoint sealed the heads
    as they then were and `audit_verify` checks against the latest. The seal now refuses
    while a head the last checkpoint sealed is not in its chain as sealed."""
    checkpoint = sealed_then_erased()
    append_events(1)  # something new, so there is something to seal
    with pytest.raises(Conflict) as refused:
        audit_checkpoint_seal()
    assert refused.value.code == "audit_chain_broken"
    assert AuditCheckpoint.objects.order_by("-number").first().number == checkpoint.number
    report = audit_chain_verify()
    assert (report.valid, report.checkpoint) == (False, checkpoint.number)


def test_a_rewritten_sealed_event_also_stops_the_seal(signer):  # noqa: F811
    append_events(3, member_id=MEMBER)
    audit_checkpoint_seal()
    head = AuditEvent.objects.filter(chain_key=str(MEMBER)).order_by("-chain_sequence").first()
    with tampering():
        AuditEvent.objects.filter(pk=head.pk).update(hash="0" * 64)
    append_events(1)
    with pytest.raises(Conflict):
        audit_checkpoint_seal()
    # an untouched history seals on as before
    with tampering():
        AuditEvent.objects.filter(pk=head.pk).update(hash=head.hash)
    assert audit_checkpoint_seal().number == 2
