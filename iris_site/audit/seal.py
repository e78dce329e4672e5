"""Signed checkpoints over the audit chains, and the check of a member's proof.

Pure: the standard library, `cryptography` and `iris_site.audit.policy` only, no Django. So a
member verifies their export with nothing but a checkout of this file's package:

    python -m iris_site.audit.seal export.json --public-key <base64 or PEM file>

A checkpoint is a *statement* (its number, when it was sealed, the digest of the previous
statement, the Merkle root over every chain's head, the tree size, the signing key's id,
and, since version 2, the deployment id of the database it seals), signed with Ed25519.
Version 1 statements, sealed before databases had deployment ids, name no database and
still verify. The Merkle tree is RFC 9162's (leaves 0x00-prefixed, nodes
0x01-prefixed, the left subtree the largest power of two), over the heads sorted by chain.
"""

import argparse
import base64
import hashlib
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from iris_site.audit.policy import GENESIS_HASH, ChainLink, SealedHead, canonical_json, first_break

STATEMENT_FORMAT = "iris-audit-checkpoint"
PROOF_FORMAT = "iris-audit-proof"
VERSION = 1  # of the proof
STATEMENT_VERSION = 2  # of the checkpoint statement
LEGACY_STATEMENT_VERSION = 1  # sealed before deployment ids: names no database
_V1_FIELDS = ("format", "version", "number", "sealed_at", "previous", "root", "tree_size", "key_id")
STATEMENT_FIELDS = {
    LEGACY_STATEMENT_VERSION: _V1_FIELDS,
    STATEMENT_VERSION: (*_V1_FIELDS, "deployment"),
}


class SealError(ValueError):
    """A key, checkpoint or proof that does not hold; the message says which part."""


# --- keys ---------------------------------------------------------------------------------


def private_key_load(text: str) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM (PKCS#8) or base64 of its 32 raw bytes."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_private_key(text.encode(), password=None)
    else:
        key = Ed25519PrivateKey.from_private_bytes(_raw32(text))
    if not isinstance(key, Ed25519PrivateKey):
        raise SealError("the audit signing key must be an Ed25519 key")
    return key


def public_key_load(text: str) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM (SubjectPublicKeyInfo) or base64 of its 32 raw bytes."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_public_key(text.encode())
    else:
        key = Ed25519PublicKey.from_public_bytes(_raw32(text))
    if not isinstance(key, Ed25519PublicKey):
        raise SealError("an audit verify key must be an Ed25519 key")
    return key


def _raw32(text: str) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError as exc:
        raise SealError("expected PEM or base64 of 32 raw key bytes") from exc
    if len(raw) != 32:
        raise SealError(f"expected 32 raw key bytes, got {len(raw)}")
    return raw


def private_key_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def public_key_text(key: Ed25519PublicKey) -> str:
    """Base64 of the 32 raw bytes: the form `AUDIT_VERIFY_KEYS` and `--public-key` take."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def key_id(key: Ed25519PublicKey) -> str:
    """Names a key in every checkpoint it signs: the first 16 hex of SHA-256 of its bytes."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def keyring(keys: Iterable[Ed25519PublicKey]) -> dict[str, Ed25519PublicKey]:
    return {key_id(key): key for key in keys}


# --- the Merkle tree over chain heads ------------------------------------------------------


def leaf_hash(head: SealedHead) -> bytes:
    body = {
        "chain": head.chain,
        "chain_sequence": head.chain_sequence,
        "event_id": head.event_id,
        "hash": head.hash,
    }
    return hashlib.sha256(b"\x00" + canonical_json(body)).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(size: int) -> int:
    """The largest power of two smaller than `size` (size >= 2)."""
    return 1 << ((size - 1).bit_length() - 1)


def _root(leaves: Sequence[bytes]) -> bytes:
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return _node(_root(leaves[:k]), _root(leaves[k:]))


def merkle_root(heads: Sequence[SealedHead]) -> str:
    if not heads:
        return hashlib.sha256(b"").hexdigest()
    return _root([leaf_hash(head) for head in heads]).hex()


def audit_path(heads: Sequence[SealedHead], index: int) -> list[str]:
    """The sibling hashes from leaf `index` up to the root (RFC 9162 inclusion path)."""

    def path(leaves: Sequence[bytes], m: int) -> list[bytes]:
        if len(leaves) == 1:
            return []
        k = _split(len(leaves))
        if m < k:
            return [*path(leaves[:k], m), _root(leaves[k:])]
        return [*path(leaves[k:], m - k), _root(leaves[:k])]

    return [h.hex() for h in path([leaf_hash(head) for head in heads], index)]


def inclusion_holds(
    head: SealedHead, index: int, tree_size: int, path: Sequence[str], root: str
) -> bool:
    """RFC 9162 section 2.1.3.2: does `path` lead from this leaf to `root`?"""
    if not 0 <= index < tree_size:
        return False
    fn, sn, r = index, tree_size - 1, leaf_hash(head)
    for sibling in path:
        p = bytes.fromhex(sibling)
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = _node(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = _node(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r.hex() == root


def heads_from_rows(rows: Iterable[Sequence[Any]]) -> list[SealedHead]:
    """Heads as a checkpoint row stores them: `[chain, chain_sequence, event_id, hash]`."""
    return [SealedHead(str(c), int(n), str(e), str(h)) for c, n, e, h in rows]


# --- statements ----------------------------------------------------------------------------


def statement_make(
    *,
    number: int,
    sealed_at: str,
    previous: str,
    heads: Sequence[SealedHead],
    signer: Ed25519PublicKey,
    deployment: str,
) -> dict[str, Any]:
    return {
        "format": STATEMENT_FORMAT,
        "version": STATEMENT_VERSION,
        "number": number,
        "sealed_at": sealed_at,
        "previous": previous,
        "root": merkle_root(heads),
        "tree_size": len(heads),
        "key_id": key_id(signer),
        "deployment": deployment,
    }


def statement_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """The signed fields of a record, as its version has them; raises KeyError for a
    field it lacks, ValueError for a format or version this code does not know."""
    fields = STATEMENT_FIELDS.get(record["version"])
    if record["format"] != STATEMENT_FORMAT or fields is None:
        raise ValueError("unknown checkpoint format")
    return {field: record[field] for field in fields}


def deployment_of(record: Mapping[str, Any]) -> str | None:
    """The deployment id a checkpoint names; None for one sealed before there were any."""
    return record.get("deployment") if record.get("version") != LEGACY_STATEMENT_VERSION else None


def statement_digest(statement: Mapping[str, Any]) -> str:
    """What the next checkpoint's `previous` names."""
    return hashlib.sha256(canonical_json(statement_of(statement))).hexdigest()


def statement_sign(statement: Mapping[str, Any], key: Ed25519PrivateKey) -> str:
    return base64.b64encode(key.sign(canonical_json(statement_of(statement)))).decode()


def signature_check(record: Mapping[str, Any], keys: Mapping[str, Ed25519PublicKey]) -> None:
    """Raise SealError unless `record` (a statement plus `signature`) is signed by its key."""
    number = record.get("number")
    if record.get("format") != STATEMENT_FORMAT or record.get("version") not in STATEMENT_FIELDS:
        raise SealError(f"checkpoint {number}: unknown format")
    try:
        statement = statement_of(record)
        signature = base64.b64decode(record["signature"], validate=True)
    except (KeyError, ValueError) as exc:
        raise SealError(f"checkpoint {number}: malformed record") from exc
    key = keys.get(statement["key_id"])
    if key is None:
        raise SealError(
            f"checkpoint {number}: signed by unknown key {statement['key_id']} "
            "(add its public key to AUDIT_VERIFY_KEYS)"
        )
    try:
        key.verify(signature, canonical_json(statement))
    except InvalidSignature as exc:
        raise SealError(f"checkpoint {number}: the signature does not verify") from exc


def sequence_check(
    records: Iterable[Mapping[str, Any]],
    keys: Mapping[str, Ed25519PublicKey],
    *,
    after: Mapping[str, Any] | None = None,
):
    """Every record signed, numbered 1, 2, 3… and naming its predecessor's digest; or,
    continuing `after` (the last checkpoint a database inherited before it was given a
    new deployment id), numbered on from it and the first naming its digest.

    Returns the last record (None for none); raises SealError at the first that fails.
    """
    previous, last, start = GENESIS_HASH, None, 1
    if after is not None:
        previous, start = statement_digest(after), after["number"] + 1
    for expected, record in enumerate(records, start=start):
        signature_check(record, keys)
        if record["number"] != expected:
            raise SealError(f"checkpoint {record['number']}: expected number {expected}")
        if record["previous"] != previous:
            raise SealError(f"checkpoint {expected}: does not name checkpoint {expected - 1}")
        previous, last = statement_digest(record), record
    return last


# --- a member's proof ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProofReport:
    events: int
    sealed_sequence: int | None  # the chain position the checkpoint sealed
    checkpoint: int | None
    sealed_at: str | None
    key_id: str | None


def proof_check(document: Mapping[str, Any], keys: Mapping[str, Ed25519PublicKey]) -> ProofReport:
    """Check a member's chain and its inclusion proof (an export bundle, or any JSON object
    with its `audit_proof` and `audit_chain`); raise SealError naming what fails."""
    try:
        proof, events = document["audit_proof"], document["audit_chain"]
        if proof["format"] != PROOF_FORMAT or proof["version"] != VERSION:
            raise SealError("unknown proof format")
        chain = proof["chain"]
        rows = [(ChainLink.from_dict(e), e["previous_hash"], e["hash"]) for e in events]
    except (KeyError, TypeError) as exc:
        raise SealError(f"not an audit proof: missing {exc}") from exc
    for link, _, _ in rows:
        if link.chain != chain:
            raise SealError(f"event {link.event_id} belongs to chain {link.chain}, not {chain}")
    checkpoint, leaf = proof.get("checkpoint"), proof.get("leaf")
    sealed = None
    if checkpoint is not None and leaf is not None:
        signature_check(checkpoint, keys)
        sealed = SealedHead(chain, leaf["chain_sequence"], leaf["event_id"], leaf["hash"])
        if leaf["chain"] != chain or not inclusion_holds(
            sealed,
            proof["leaf_index"],
            checkpoint["tree_size"],
            proof["audit_path"],
            checkpoint["root"],
        ):
            raise SealError(
                f"the chain's head is not included in checkpoint {checkpoint['number']}"
            )
    broken = first_break(rows, sealed=sealed)
    if broken is not None:
        raise SealError(
            f"event {broken.event_id} (chain sequence {broken.sequence}): {broken.reason}"
        )
    return ProofReport(
        events=len(rows),
        sealed_sequence=sealed.chain_sequence if sealed else None,
        checkpoint=checkpoint["number"] if sealed else None,
        sealed_at=checkpoint["sealed_at"] if sealed else None,
        key_id=checkpoint["key_id"] if sealed else None,
    )


def proof_summary(report: ProofReport) -> str:
    if report.checkpoint is None:
        return (
            f"{report.events} events chain correctly; none is sealed in a checkpoint yet, "
            "so a rewrite that recomputed every hash would not show"
        )
    later = report.events - report.sealed_sequence
    return (
        f"{report.events} events chain correctly; event {report.sealed_sequence} is the head "
        f"sealed by checkpoint {report.checkpoint} ({report.sealed_at}, key {report.key_id}); "
        f"{later} later event(s) chain on from it, not yet sealed"
    )


def public_key_argument(value: str) -> Ed25519PublicKey:
    path = Path(value)
    return public_key_load(path.read_text() if path.is_file() else value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m iris_site.audit.seal",
        description="Verify a member's audit chain and its signed inclusion proof.",
    )
    parser.add_argument("file", help="the export bundle (decrypted) or a proof JSON file")
    parser.add_argument(
        "--public-key",
        action="append",
        required=True,
        help="the platform's audit public key: base64 of 32 bytes, or a PEM file; repeatable",
    )
    options = parser.parse_args(argv)
    try:
        keys = keyring(public_key_argument(value) for value in options.public_key)
        document = json.loads(Path(options.file).read_text())
        report = proof_check(document, keys)
    except (SealError, OSError, ValueError) as exc:
        print(f"NOT VERIFIED: {exc}", file=sys.stderr)
        return 1
    print(f"verified: {proof_summary(report)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
