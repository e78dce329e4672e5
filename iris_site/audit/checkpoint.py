"""Signed checkpoints of the audit chains: the key, the sink, the seal, a member's proof.

A periodic job (`iris_site.tasks.seal_audit_checkpoint`, or `manage.py audit_checkpoint`)
reads every chain's head, builds the Merkle root over them (`iris_site.audit.seal`), signs a
statement naming that root and the previous checkpoint with an Ed25519 key that lives
outside the database, stores the heads beside the statement (`AuditCheckpoint`) and
writes the signed statement to an append-only sink outside the database. Someone who can
rewrite the database can recompute every hash of a chain, but not re-sign the sink's
statement: `audit_verify` finds the chain no longer ending in the sealed head.

Each database has a deployment id (`Deployment`, made by migration); every statement names
it, the default sink is the database's own file (`<AUDIT_CHECKPOINT_DIR>/<deployment
id>/checkpoints.jsonl`), and a sink holding another database's checkpoints is refused, by
the seal and by `audit_verify` alike. Statements sealed before deployment ids (version 1)
name no database: a sink may begin with them only if this database holds each one as
sealed, and the first seal adopts the old default file (`<AUDIT_CHECKPOINT_DIR>/
checkpoints.jsonl`) into the database's own on that condition. A restored copy served
beside its original gets a new id (`audit_deployment_renew`, `manage.py audit_deployment
--new`): its checkpoints carry on from the last one it inherited, in a sink of its own,
and that inherited checkpoint (its signature on its row) stands as the sink's first
record, so a new id never leaves the chains checked against no checkpoint. An id the
command did not give (no `iris_site.deployment.renewed` event names it: a row inserted by
hand) is reported by `audit_verify` and refused by the seal.

Settings (docs/design.md, "Tamper evidence"):
- `AUDIT_SIGNING_KEY`: the Ed25519 private key, PEM or base64 of its 32 raw bytes. Unset:
  the key file `AUDIT_SIGNING_KEY_FILE`, generated with mode 0600 on first use when
  `AUDIT_SIGNING_KEY_GENERATE` (development; production settings switch it off).
- `AUDIT_VERIFY_KEYS`: older public keys (base64 or PEM) still accepted after a rotation;
  the signing key's own public key is always accepted.
- `AUDIT_CHECKPOINT_SINK`: dotted path of the sink class, made with `deployment=`;
  `AUDIT_CHECKPOINT_PATH`: the JSON-lines file of the default sink (unset: the
  database's own file under `AUDIT_CHECKPOINT_DIR`).
"""

import bisect
import json
import os
import uuid
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from iris_site.audit.actions import AuditAction, stored_names
from iris_site.audit.events import Actor, audit_event_append, iso, link_of
from iris_site.audit.policy import GENESIS_HASH, SealedHead
from iris_site.audit.seal import (
    LEGACY_STATEMENT_VERSION,
    PROOF_FORMAT,
    STATEMENT_FORMAT,
    STATEMENT_VERSION,
    VERSION,
    SealError,
    audit_path,
    deployment_of,
    heads_from_rows,
    keyring,
    private_key_load,
    private_key_pem,
    public_key_load,
    statement_digest,
    statement_make,
    statement_sign,
)
from iris_site.errors import Conflict
from iris_site.models import AuditCheckpoint, AuditEvent, Deployment

# Arbitrary constant: the checkpoint job's advisory lock (one sealer at a time; never
# taken on a request path).
CHECKPOINT_LOCK_KEY = 0x1215_0002


# --- keys ----------------------------------------------------------------------------------


def signing_key(*, generate: bool | None = None) -> Ed25519PrivateKey | None:
    """The configured key, else the key file; a missing file is generated (mode 0600) when
    `generate` (default `AUDIT_SIGNING_KEY_GENERATE`), else None."""
    configured = getattr(settings, "AUDIT_SIGNING_KEY", "")
    if configured:
        return private_key_load(configured)
    path = Path(settings.AUDIT_SIGNING_KEY_FILE)
    if generate is None:
        generate = settings.AUDIT_SIGNING_KEY_GENERATE
    if not path.exists():
        if not generate:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process generated it first
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(private_key_pem(Ed25519PrivateKey.generate()))
    return private_key_load(path.read_text())


def verify_keys() -> dict[str, Ed25519PublicKey]:
    """Key id → public key: every older key kept for rotation, and the signing key's if
    one is configured (verifying never generates one)."""
    keys = [public_key_load(text) for text in getattr(settings, "AUDIT_VERIFY_KEYS", [])]
    current = signing_key(generate=False)
    if current is not None:
        keys.append(current.public_key())
    return keyring(keys)


# --- the deployment ------------------------------------------------------------------------


def deployment_current(*, create: bool = False) -> Deployment | None:
    """This database's deployment (its newest id); None if it has none (emptied since its
    migration), unless `create`, which makes one."""
    row = Deployment.objects.order_by("-id").first()
    if row is None and create:
        row = Deployment.objects.create(created_at=timezone.now())
    return row


def deployment_unrecorded() -> Deployment | None:
    """The first of this database's deployment ids that `audit_deployment --new` did not
    give it; None when every one was.

    A database's first id (made by migration, or by the first seal of a database emptied
    since) inherits no checkpoint and needs no record. Any other, and any that inherits a
    checkpoint, must be named, with the checkpoint it inherited, by an
    `iris_site.deployment.renewed` event (`audit_deployment_renew` writes the row and the
    event in one transaction). A row inserted by hand is not.
    """
    rows = list(Deployment.objects.order_by("id"))
    if len(rows) == 1 and rows[0].inherited is None:
        return None
    events = AuditEvent.objects.filter(
        action__in=stored_names(AuditAction.IRIS_SITE_DEPLOYMENT_RENEWED)
    )
    renewals = {
        (str(payload.get("deployment")), payload.get("inherited_checkpoint"))
        for payload in events.values_list("payload", flat=True)
        if isinstance(payload, dict)
    }
    for index, row in enumerate(rows):
        if index == 0 and row.inherited is None:
            continue
        if (str(row.deployment_id), row.inherited) not in renewals:
            return row
    return None


def unrecorded_message(row: Deployment) -> str:
    inherits = f", inheriting checkpoint {row.inherited}," if row.inherited is not None else ""
    return (
        f"deployment {row.deployment_id}{inherits} was not given by manage.py "
        "audit_deployment --new: no iris_site.deployment.renewed event names it (a row "
        "added to iris_site_deployment by hand)"
    )


# --- the sink ------------------------------------------------------------------------------


class CheckpointSink(Protocol):
    """Where one database's signed statements go, outside the database; only ever appended
    to. Made with `deployment=` (the database's deployment id); `where` names it in
    messages."""

    where: str

    def append(self, record: dict[str, Any]) -> None: ...

    def records(self) -> Iterator[dict[str, Any]]: ...


class JsonLinesSink:
    """One JSON object per line in `AUDIT_CHECKPOINT_PATH` (unset: the deployment's own
    `<AUDIT_CHECKPOINT_DIR>/<deployment id>/checkpoints.jsonl`), appended with O_APPEND
    and fsynced, under the sealer's lock. Ship the file to write-once storage (or another
    sink) to keep it out of reach of whoever holds the database."""

    def __init__(self, path: str | os.PathLike | None = None, *, deployment: str = "") -> None:
        configured = path or settings.AUDIT_CHECKPOINT_PATH
        if not configured and not deployment:
            raise ImproperlyConfigured("the default checkpoint sink needs a deployment id")
        self.default = not configured
        self.path = Path(configured or Path(settings.AUDIT_CHECKPOINT_DIR) / deployment / NAME)
        self.where = str(self.path)

    def append(self, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        try:
            os.write(fd, line.encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    def records(self) -> Iterator[dict[str, Any]]:
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    yield json.loads(line)


NAME = "checkpoints.jsonl"


def legacy_sink() -> JsonLinesSink:
    """The default sink of before deployment ids, which every database shared."""
    return JsonLinesSink(Path(settings.AUDIT_CHECKPOINT_DIR) / NAME)


def checkpoint_sink(deployment: Deployment | None) -> CheckpointSink:
    """The configured sink of this deployment (of none: only a sink with a fixed place)."""
    named = str(deployment.deployment_id) if deployment is not None else ""
    return import_string(settings.AUDIT_CHECKPOINT_SINK)(deployment=named)


def sink_records(records: Iterable[dict[str, Any]], current: Deployment, where: str):
    """The sink's records if they are this database's, and the checkpoint they carry on
    from (the last one a database held when it was given a new deployment id; else None).

    Each must name this deployment, or be one sealed before deployment ids (only before
    any that names one) that this database holds exactly as sealed; the first is number
    1, or the one after the inherited checkpoint. Raises SealError saying whose the sink
    is and which database this is.
    """
    records, deployment = list(records), str(current.deployment_id)
    legacy = {
        row.number: row for row in AuditCheckpoint.objects.filter(deployment=None).defer("heads")
    }
    named_any = False
    for record in records:
        named, number = deployment_of(record), record.get("number")
        if named is not None and named != deployment:
            raise SealError(
                f"the checkpoint sink {where} holds checkpoint {number} of deployment {named}; "
                f"this database is deployment {deployment}: each database needs a sink of "
                "its own (unset AUDIT_CHECKPOINT_PATH for the default, which is per "
                "deployment; a restored copy served beside its original: "
                "manage.py audit_deployment --new)"
            )
        if named is not None:
            named_any = True
        elif named_any or record.get("version") != LEGACY_STATEMENT_VERSION:
            raise SealError(f"checkpoint {number} in {where} names no deployment")
        elif number not in legacy or record_of(legacy[number]) != record:
            raise SealError(
                f"the checkpoint sink {where} holds checkpoint {number}, sealed before "
                "deployment ids, which is not this database's (deployment "
                f"{deployment}): it {'differs from' if number in legacy else 'is not in'} "
                "this database's checkpoints"
            )
    start = (current.inherited or 0) + 1
    if records and records[0]["number"] != start:
        raise SealError(
            f"the checkpoint sink {where} begins at checkpoint {records[0]['number']}, "
            f"not {start}: this database's checkpoints before it are not in it"
        )
    if start == 1:
        return records, None
    inherited = AuditCheckpoint.objects.filter(number=start - 1).defer("heads").first()
    if inherited is None:
        raise SealError(f"this database no longer holds checkpoint {start - 1}, its sink's start")
    return records, record_of(inherited)


def _last(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    return records[-1] if records else None


# --- the seal ------------------------------------------------------------------------------


def audit_chain_heads() -> list[SealedHead]:
    """Every chain's newest event, sorted by chain, read in one statement (one snapshot)."""
    events = AuditEvent.objects.order_by("chain_key", "-chain_sequence")
    fields = ("chain_key", "chain_sequence", "id", "hash")
    if connection.vendor == "postgresql":
        rows = events.distinct("chain_key").values_list(*fields)
    else:
        # SQLite: the newest of each chain is the first of its run in this order.
        newest: dict[str, tuple] = {}
        for row in events.values_list(*fields):
            newest.setdefault(row[0], row)
        rows = newest.values()
    return heads_from_rows(rows)


def _sealed_heads_gone(checkpoint: AuditCheckpoint, *, batch: int = 500) -> int:
    """How many of the heads `checkpoint` sealed are no longer in their chains as sealed
    (the event gone, moved, or its hash changed). Each checkpoint is sealed only over the
    last one's heads, so verifying the chains against the latest checks them all."""
    sealed = heads_from_rows(checkpoint.heads)
    gone = 0
    for start in range(0, len(sealed), batch):
        chunk = sealed[start : start + batch]
        found = {
            (chain, sequence, str(event_id), hash_)
            for chain, sequence, event_id, hash_ in AuditEvent.objects.filter(
                id__in=[head.event_id for head in chunk]
            ).values_list("chain_key", "chain_sequence", "id", "hash")
        }
        gone += sum(
            (head.chain, head.chain_sequence, head.event_id, head.hash) not in found
            for head in chunk
        )
    return gone


def _rows(heads: list[SealedHead]) -> list[list[Any]]:
    return [[h.chain, h.chain_sequence, h.event_id, h.hash] for h in heads]


def record_of(checkpoint: AuditCheckpoint) -> dict[str, Any]:
    """The signed statement as the sink and a member's proof carry it (version 1, naming
    no deployment, for a checkpoint sealed before there were any)."""
    record = {
        "format": STATEMENT_FORMAT,
        "version": LEGACY_STATEMENT_VERSION,
        "number": checkpoint.number,
        "sealed_at": iso(checkpoint.sealed_at),
        "previous": checkpoint.previous,
        "root": checkpoint.root,
        "tree_size": checkpoint.tree_size,
        "key_id": checkpoint.key_id,
        "signature": checkpoint.signature,
    }
    if checkpoint.deployment is not None:
        record.update(version=STATEMENT_VERSION, deployment=str(checkpoint.deployment))
    return record


def _lock_sealer() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CHECKPOINT_LOCK_KEY])


def _refused(exc: SealError) -> Conflict:
    return Conflict(str(exc), code="audit_checkpoint_sink_not_this_database")


def _own_records(sink: CheckpointSink, current: Deployment) -> list[dict[str, Any]]:
    """The sink's records, checked to be this database's. An empty default sink first
    adopts the old shared file's records when they are all this database's; an empty sink
    of a database holding checkpoints sealed before deployment ids is refused (they were
    written to another sink, which is the one to use)."""
    try:
        records, _ = sink_records(sink.records(), current, sink.where)
        legacy_rows = AuditCheckpoint.objects.filter(
            deployment=None, number__gt=current.inherited or 0
        )
        if records or not legacy_rows.exists():
            return records
        if getattr(sink, "default", False):
            legacy = legacy_sink()
            adopted, _ = sink_records(legacy.records(), current, legacy.where)
            if adopted:
                for record in adopted:
                    sink.append(record)
                return adopted
        raise SealError(
            f"this database holds checkpoints sealed before deployment ids, which its sink "
            f"{sink.where} lacks: set AUDIT_CHECKPOINT_PATH to the sink they were written to"
        )
    except SealError as exc:
        raise _refused(exc) from exc


@transaction.atomic
def _seal(now: datetime, *, force: bool = False) -> AuditCheckpoint | None:
    _lock_sealer()
    current = deployment_current(create=True)
    latest = AuditCheckpoint.objects.order_by("-number").first()
    sunk = _last(_own_records(checkpoint_sink(current), current))
    unrecorded = deployment_unrecorded()
    if unrecorded is not None:  # sealing under it would hide what it inherited
        raise Conflict(
            f"{unrecorded_message(unrecorded)}; not sealing",
            code="audit_deployment_unrecorded",
        )
    if sunk is not None and sunk["number"] > (latest.number if latest else 0):
        raise Conflict(
            f"the checkpoint sink holds checkpoint {sunk['number']}, the database does not: "
            "restore the database's checkpoints before sealing again (or, if this database "
            "is a restored copy served beside its original, give it its own deployment id: "
            "manage.py audit_deployment --new)",
            code="audit_checkpoint_sink_ahead",
        )
    heads = audit_chain_heads()
    if not heads or (not force and latest is not None and latest.heads == _rows(heads)):
        return None  # nothing new to seal
    gone = _sealed_heads_gone(latest) if latest is not None else 0
    if gone:  # a new checkpoint over them would launder the rewrite
        raise Conflict(
            f"{gone} chain head(s) sealed by checkpoint {latest.number} are no longer in "
            "their chains as sealed: not sealing over them (audit_verify names the first)",
            code="audit_chain_broken",
        )
    key = signing_key()
    if key is None:
        raise ImproperlyConfigured(
            "no audit signing key: set AUDIT_SIGNING_KEY or provide AUDIT_SIGNING_KEY_FILE"
        )
    statement = statement_make(
        number=(latest.number + 1) if latest else 1,
        sealed_at=iso(now),
        previous=statement_digest(record_of(latest)) if latest else GENESIS_HASH,
        heads=heads,
        signer=key.public_key(),
        deployment=str(current.deployment_id),
    )
    return AuditCheckpoint.objects.create(
        number=statement["number"],
        sealed_at=now,
        previous=statement["previous"],
        root=statement["root"],
        tree_size=statement["tree_size"],
        key_id=statement["key_id"],
        signature=statement_sign(statement, key),
        heads=_rows(heads),
        deployment=current.deployment_id,
    )


@transaction.atomic
def _sink_catch_up() -> int:
    """Append to the sink every committed checkpoint of this deployment it lacks (a
    failed append before)."""
    _lock_sealer()
    current = deployment_current(create=True)
    sink = checkpoint_sink(current)
    sunk = _last(_own_records(sink, current))
    missing = AuditCheckpoint.objects.filter(
        deployment=current.deployment_id, number__gt=sunk["number"] if sunk else 0
    )
    count = 0
    for checkpoint in missing.order_by("number"):
        sink.append(record_of(checkpoint))
        count += 1
    return count


def audit_checkpoint_seal(*, now: datetime | None = None) -> AuditCheckpoint | None:
    """Seal the current chain heads (None when nothing changed since the last seal), then
    bring the sink up to date. Idempotent; safe to run from several places at once."""
    checkpoint = _seal(now or timezone.now())
    _sink_catch_up()
    return checkpoint


def audit_deployment_renew(*, sink_checkpoint: int | None) -> AuditCheckpoint | None:
    """Give this database a new deployment id and seal its first checkpoint under it, in
    its own sink, carrying on from the last checkpoint it holds. For a restored copy
    served beside its original: the caller has verified the copy against the original's
    sink (`sink_checkpoint`: the last checkpoint there). Recorded on the platform chain:
    both ids and the two checkpoint numbers. Refused, changing nothing, when the sink the
    new id resolves to holds another database's checkpoints."""
    with transaction.atomic():
        _lock_sealer()
        previous = deployment_current()
        latest = AuditCheckpoint.objects.order_by("-number").values_list("number", flat=True)
        inherited = latest.first()
        renewed = Deployment.objects.create(
            deployment_id=uuid.uuid4(), created_at=timezone.now(), inherited=inherited
        )
        audit_event_append(
            action=AuditAction.IRIS_SITE_DEPLOYMENT_RENEWED,
            policy_id="iris.iris_site.audit_checkpoint.v1",
            actor=Actor.system(),
            payload={
                "previous_deployment": str(previous.deployment_id) if previous else None,
                "deployment": str(renewed.deployment_id),
                "inherited_checkpoint": inherited,
                "sink_checkpoint": sink_checkpoint,
            },
        )
        checkpoint = _seal(timezone.now(), force=True)
    _sink_catch_up()
    return checkpoint


# --- a member's chain and proof ------------------------------------------------------------


def audit_member_chain(member_id) -> Iterator[dict[str, Any]]:
    """The member's chain, oldest first, each event as hashed plus its two hashes."""
    events = AuditEvent.objects.filter(chain_key=str(member_id)).order_by("chain_sequence")
    for event in events.iterator(chunk_size=500):
        yield {
            **link_of(event).as_dict(),
            "previous_hash": event.previous_hash,
            "hash": event.hash,
        }


def audit_member_proof(member_id) -> dict[str, Any]:
    """The latest signed checkpoint and the Merkle path from the member's sealed head to
    its root: with `audit_member_chain` (read after this), what `python -m iris_site.audit.seal`
    checks. No checkpoint yet, or none since the member's first event: no leaf."""
    chain = str(member_id)
    proof: dict[str, Any] = {
        "format": PROOF_FORMAT,
        "version": VERSION,
        "chain": chain,
        "checkpoint": None,
        "leaf": None,
        "leaf_index": None,
        "audit_path": [],
    }
    checkpoint = AuditCheckpoint.objects.order_by("-number").first()
    if checkpoint is None:
        return proof
    proof["checkpoint"] = record_of(checkpoint)
    heads = heads_from_rows(checkpoint.heads)
    index = bisect.bisect_left([h.chain for h in heads], chain)
    if index == len(heads) or heads[index].chain != chain:
        return proof
    head = heads[index]
    proof["leaf"] = {
        "chain": head.chain,
        "chain_sequence": head.chain_sequence,
        "event_id": head.event_id,
        "hash": head.hash,
    }
    proof["leaf_index"] = index
    proof["audit_path"] = audit_path(heads, index)
    return proof
