"""The episodic chain's pure rules, tested without a database."""

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from iris_site.audit.policy import (
    GENESIS_HASH,
    ChainLink,
    PayloadRejected,
    canonical_json,
    chain_hash,
    first_break,
    vet_payload,
)


def link(sequence: int, **overrides) -> ChainLink:
    fields = {
        "sequence": sequence,
        "chain": "platform",
        "chain_sequence": sequence,
        "event_id": str(uuid.UUID(int=sequence)),
        "action": "memory.entry.created",
        "policy_id": "iris-memory-v1",
        "severity": "info",
        "actor_type": "member",
        "actor_id": None,
        "actor_role": "",
        "target_member_id": None,
        "target_tenant_id": None,
        "payload": {"entry_id": str(uuid.UUID(int=sequence)), "count": sequence},
        "occurred_at": "2026-11-30T10:00:00.000000Z",
    }
    return ChainLink(**{**fields, **overrides})


def chain(length: int) -> list[tuple[ChainLink, str, str]]:
    rows, previous = [], GENESIS_HASH
    for sequence in range(1, length + 1):
        current = link(sequence)
        digest = chain_hash(previous, current)
        rows.append((current, previous, digest))
        previous = digest
    return rows


@pytest.mark.parametrize(
    "payload",
    [
        {"entry_id": "2b0c4f4e-55a1-4c35-9a0f-3d7f1f0e9b11"},
        {"category": "mental_health", "count": 3, "score": 0.5, "flag": True, "none": None},
        {"suppression_counts": {"scope-mismatch": 2, "lifecycle-paused": 1}},
        {"returned_ids": ["a1b2c3d4e5f60718", "session:abc:s-1"]},
        {"at": "2026-11-30T10:00:00Z", "role": "t&s"},
    ],
)
def test_identifiers_enums_and_numbers_are_accepted(payload):
    vet_payload(payload)


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"detail": "I take my coffee black"}, "detail"),
        ({"who": "Alice"}, "who"),
        ({"body": "x"}, "body"),
        ({"note": "ok"}, "note"),
        ({"items": ["fine", "not fine at all"]}, "items[1]"),
        ({"nested": {"justification": "because"}}, "nested.justification"),
        ({"BadKey": 1}, "BadKey"),
        ({"ratio": float("nan")}, "ratio"),
    ],
)
def test_free_text_and_content_keys_are_refused(payload, path):
    with pytest.raises(PayloadRejected) as excinfo:
        vet_payload(payload)
    assert excinfo.value.path == path


@given(st.text(alphabet=st.characters(categories=["Zs"]), min_size=1), st.text(min_size=1))
def test_any_string_with_whitespace_is_refused(space, word):
    with pytest.raises(PayloadRejected):
        vet_payload({"value": f"a{space}{word}"})


def test_canonical_json_is_sorted_compact_utf8():
    assert canonical_json({"b": 1, "a": ["é", None]}) == '{"a":["é",null],"b":1}'.encode()


def test_intact_chain_has_no_break():
    assert first_break(chain(5)) is None


def test_a_changed_field_breaks_at_that_event():
    rows = chain(4)
    tampered = link(3, payload={"entry_id": str(uuid.UUID(int=99)), "count": 3})
    rows[2] = (tampered, rows[2][1], rows[2][2])
    broken = first_break(rows)
    assert (broken.sequence, broken.reason) == (3, "hash-mismatch")


def test_a_missing_event_is_a_sequence_gap():
    rows = chain(4)
    del rows[1]
    broken = first_break(rows)
    assert (broken.sequence, broken.reason) == (3, "sequence-gap")


def test_a_relinked_event_fails_on_previous_hash():
    rows = chain(3)
    current, _, digest = rows[1]
    rows[1] = (current, "f" * 64, digest)
    assert first_break(rows).reason == "previous-hash-mismatch"
