"""Checkpoint primitives, without a database: the Merkle tree, statements, keys."""

import base64

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from iris_site.audit.policy import GENESIS_HASH, SealedHead
from iris_site.audit.seal import (
    SealError,
    audit_path,
    deployment_of,
    inclusion_holds,
    key_id,
    keyring,
    merkle_root,
    private_key_load,
    private_key_pem,
    public_key_load,
    public_key_text,
    sequence_check,
    signature_check,
    statement_digest,
    statement_make,
    statement_of,
    statement_sign,
)

DEPLOYMENT = "6f1c1d1e-0000-4000-8000-000000000001"


def heads(count: int) -> list[SealedHead]:
    return [SealedHead(f"chain-{n:04d}", n + 1, f"event-{n}", f"{n:064x}") for n in range(count)]


@given(st.integers(min_value=1, max_value=70), st.data())
def test_every_leaf_has_a_path_to_the_root_and_no_other_leaf_uses_it(size, data):
    tree = heads(size)
    root = merkle_root(tree)
    index = data.draw(st.integers(min_value=0, max_value=size - 1))
    path = audit_path(tree, index)
    assert inclusion_holds(tree[index], index, size, path, root)
    # another chain's head, a changed head, another position or size: no
    other = tree[(index + 1) % size]
    if size > 1:
        assert not inclusion_holds(other, index, size, path, root)
        assert not inclusion_holds(tree[index], (index + 1) % size, size, path, root)
    changed = SealedHead(tree[index].chain, tree[index].chain_sequence + 1, "x", tree[index].hash)
    assert not inclusion_holds(changed, index, size, path, root)
    assert not inclusion_holds(tree[index], size, size, path, root)


def test_the_root_changes_with_any_head():
    tree = heads(5)
    moved = [*tree[:2], SealedHead("chain-0002", 4, "event-2", "f" * 64), *tree[3:]]
    assert merkle_root(tree) != merkle_root(moved)
    assert merkle_root(tree) != merkle_root(tree[:4])


def _signed(key, number=1, previous=GENESIS_HASH, deployment=DEPLOYMENT):
    statement = statement_make(
        number=number,
        sealed_at="2026-12-01T10:00:00.000000Z",
        previous=previous,
        heads=heads(3),
        signer=key.public_key(),
        deployment=deployment,
    )
    return {**statement, "signature": statement_sign(statement, key)}


def _legacy(key, number=1, previous=GENESIS_HASH):
    """A version 1 statement, as sealed before deployment ids: it names no database."""
    record = _signed(key, number, previous)
    del record["deployment"]
    record["version"] = 1
    return {**record, "signature": statement_sign(record, key)}


def test_a_statement_verifies_with_its_key_only():
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    record = _signed(key)
    signature_check(record, keyring([key.public_key()]))
    with pytest.raises(SealError, match="unknown key"):
        signature_check(record, keyring([other.public_key()]))
    # a forger who names the real key id but signs with their own key
    forged = {**record, "root": "e" * 64}
    forged["signature"] = statement_sign(forged, other)
    with pytest.raises(SealError, match="does not verify"):
        signature_check(forged, keyring([key.public_key()]))


def test_checkpoints_chain_by_digest_and_number():
    key = Ed25519PrivateKey.generate()
    keys = keyring([key.public_key()])
    first = _signed(key)
    second = _signed(key, 2, statement_digest(first))
    assert sequence_check([first, second], keys) == second
    with pytest.raises(SealError, match="does not name checkpoint 1"):
        sequence_check([first, _signed(key, 2, "a" * 64)], keys)
    with pytest.raises(SealError, match="expected number 2"):
        sequence_check([first, _signed(key, 3, statement_digest(first))], keys)


def test_keys_load_from_pem_and_from_base64_raw_bytes():
    key = Ed25519PrivateKey.generate()
    raw = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    from_pem = private_key_load(private_key_pem(key).decode())
    from_raw = private_key_load(base64.b64encode(raw).decode())
    assert (
        key_id(from_pem.public_key()) == key_id(from_raw.public_key()) == key_id(key.public_key())
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert key_id(public_key_load(public_pem.decode())) == key_id(key.public_key())
    assert key_id(public_key_load(public_key_text(key.public_key()))) == key_id(key.public_key())
    with pytest.raises(SealError):
        public_key_load(base64.b64encode(b"short").decode())


def test_a_statement_names_its_database_under_its_signature():
    key = Ed25519PrivateKey.generate()
    keys = keyring([key.public_key()])
    record = _signed(key)
    assert (record["version"], deployment_of(record)) == (2, DEPLOYMENT)
    # claimed for another database, the signature no longer holds
    moved = {**record, "deployment": "6f1c1d1e-0000-4000-8000-000000000002"}
    with pytest.raises(SealError, match="does not verify"):
        signature_check(moved, keys)


def test_statements_sealed_before_deployment_ids_still_verify_and_name_none():
    key = Ed25519PrivateKey.generate()
    keys = keyring([key.public_key()])
    old = _legacy(key)
    assert "deployment" not in statement_of(old) and deployment_of(old) is None
    signature_check(old, keys)
    # the sequence goes on from a version 1 statement to version 2 ones
    assert sequence_check([old, _signed(key, 2, statement_digest(old))], keys)["number"] == 2
    # a version 1 record cannot claim a database it was never signed for
    with pytest.raises(SealError, match="does not verify"):
        signature_check({**old, "version": 2, "deployment": DEPLOYMENT}, keys)
    with pytest.raises(SealError, match="unknown format"):
        signature_check({**old, "version": 3}, keys)


def test_a_sequence_carries_on_from_an_inherited_checkpoint():
    key = Ed25519PrivateKey.generate()
    keys = keyring([key.public_key()])
    inherited = _signed(key, 4, "c" * 64, deployment="6f1c1d1e-0000-4000-8000-000000000002")
    fifth = _signed(key, 5, statement_digest(inherited))
    assert sequence_check([fifth], keys, after=inherited) == fifth
    with pytest.raises(SealError, match="expected number 1"):
        sequence_check([fifth], keys)
    with pytest.raises(SealError, match="does not name checkpoint 4"):
        sequence_check([_signed(key, 5, "a" * 64)], keys, after=inherited)
