"""Signed checkpoints of the audit chains: the key, the sink, the seal, a member's proof.

A periodic job (`iris_site.tasks.seal_audit_checkpoint`, or `manage.py audit_checkpoint`)
reads every chain's head, builds the Merkle root over them (`iris_site.audit.seal`), signs a
statement naming that root and the previous checkpoint with an Ed25519 key that lives
outside the database, stores the heads beside the statement (`AuditCheckpoint`) and
writes the signed statement to an append-only sink outside the database. Someone who can
rewrite the database can recompute every hash of a chain, but not re-sign the sink's
statement: `audit_verify` finds the chain no longer ending in the sealed head.

Settings (docs/design.md, "Tamper evidence"):
- `AUDIT_SIGNING_KEY`: the Ed25519 private key, PEM or base64 of its 32 raw bytes. Unset:
  the key file `AUDIT_SIGNING_KEY_FILE`, generated with mode 0600 on first use when
  `AUDIT_SIGNING_KEY_GENERATE` (development; production settings switch it off).
- `AUDIT_VERIFY_KEYS`: older public keys (base64 or PEM) still accepted after a rotation;
  the signing key's own public key is always accepted.
- `AUDIT_CHECKPOINT_SINK`: dotted path of the sink class; `AUDIT_CHECKPOINT_PATH`: the
  JSON-lines file of the default sink.
"""

import bisect
import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from iris_site.audit.events import iso, link_of
from iris_site.audit.policy import GENESIS_HASH, SealedHead
from iris_site.audit.seal import (
    PROOF_FORMAT,
    STATEMENT_FORMAT,
    VERSION,
    audit_path,
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
from iris_site.models import AuditCheckpoint, AuditEvent

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


# --- the sink ------------------------------------------------------------------------------


class CheckpointSink(Protocol):
    """Where signed statements go, outside the database; only ever appended to."""

    def append(self, record: dict[str, Any]) -> None: ...

    def records(self) -> Iterator[dict[str, Any]]: ...


class JsonLinesSink:
    """One JSON object per line in `AUDIT_CHECKPOINT_PATH`, appended with O_APPEND and
    fsynced. Ship the file to write-once storage (or another sink) to keep it out of reach
    of whoever holds the database."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path or settings.AUDIT_CHECKPOINT_PATH)

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


def checkpoint_sink() -> CheckpointSink:
    return import_string(settings.AUDIT_CHECKPOINT_SINK)()


def _last(records: Iterator[dict[str, Any]]) -> dict[str, Any] | None:
    last = None
    for last in records:  # noqa: B007 - the loop keeps the final record
        pass
    return last


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


def _rows(heads: list[SealedHead]) -> list[list[Any]]:
    return [[h.chain, h.chain_sequence, h.event_id, h.hash] for h in heads]


def record_of(checkpoint: AuditCheckpoint) -> dict[str, Any]:
    """The signed statement as the sink and a member's proof carry it."""
    return {
        "format": STATEMENT_FORMAT,
        "version": VERSION,
        "number": checkpoint.number,
        "sealed_at": iso(checkpoint.sealed_at),
        "previous": checkpoint.previous,
        "root": checkpoint.root,
        "tree_size": checkpoint.tree_size,
        "key_id": checkpoint.key_id,
        "signature": checkpoint.signature,
    }


def _lock_sealer() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CHECKPOINT_LOCK_KEY])


@transaction.atomic
def _seal(now: datetime) -> AuditCheckpoint | None:
    _lock_sealer()
    latest = AuditCheckpoint.objects.order_by("-number").first()
    sunk = _last(checkpoint_sink().records())
    if sunk is not None and sunk["number"] > (latest.number if latest else 0):
        raise Conflict(
            f"the checkpoint sink holds checkpoint {sunk['number']}, the database does not: "
            "restore the database's checkpoints before sealing again",
            code="audit_checkpoint_sink_ahead",
        )
    heads = audit_chain_heads()
    if not heads or (latest is not None and latest.heads == _rows(heads)):
        return None  # nothing new to seal
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
    )


@transaction.atomic
def _sink_catch_up() -> int:
    """Append to the sink every committed checkpoint it lacks (a failed append before)."""
    _lock_sealer()
    sink = checkpoint_sink()
    sunk = _last(sink.records())
    missing = AuditCheckpoint.objects.filter(number__gt=sunk["number"] if sunk else 0)
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
