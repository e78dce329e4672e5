"""The consent ledger's pure rules, without a database."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from consent import policy
from consent.enums import ConsentEventKind, ConsentStatus
from consent.policy import (
    ConsentState,
    LedgerRow,
    compute_event_fingerprint,
    compute_event_hash,
    compute_terms_hash,
    decide,
    first_invalid,
    fnv1a_64,
    is_in_force,
)
from iris_site.audit.policy import GENESIS_HASH

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # Published FNV-1a 64-bit test vectors (Fowler/Noll/Vo reference test suite).
        (b"", 0xCBF29CE484222325),
        (b"a", 0xAF63DC4C8601EC8C),
        (b"b", 0xAF63DF4C8601F1A5),
        (b"foobar", 0x85944171F73967E8),
    ],
)
def test_fnv1a_64_matches_the_published_vectors(data, expected):
    assert fnv1a_64(data) == expected


def test_the_memoised_fnv_answers_as_the_loop_does_and_keeps_no_event_bytes(monkeypatch):
    # given an event body naming a member and a witness, verified once already
    monkeypatch.setattr(policy, "_FNV_MEMO", {})
    data = b'{"member_id":"7c1e","witness":"ip:203.0.113.9"}'
    first = fnv1a_64(data)
    # when it is verified again, and a tampered copy too
    again, tampered = fnv1a_64(data), fnv1a_64(data.replace(b"203", b"204"))
    # then the memo changes no verdict, and holds digests, never the bytes it saw
    assert again == first != tampered
    monkeypatch.setattr(policy, "_FNV_MEMO", {})
    assert fnv1a_64(data) == first  # the same value computed afresh
    assert all(len(key) == 32 and b"203.0.113" not in key for key in policy._FNV_MEMO)


def test_the_fnv_memo_stays_bounded(monkeypatch):
    monkeypatch.setattr(policy, "_FNV_MEMO", {})
    monkeypatch.setattr(policy, "_FNV_MEMO_SIZE", 3)
    for i in range(10):
        fnv1a_64(bytes([i]))
    assert len(policy._FNV_MEMO) <= 3
    assert fnv1a_64(b"a") == 0xAF63DC4C8601EC8C


def body(**overrides) -> dict:
    return {
        "record_version": 1,
        "id": "00000000-0000-0000-0000-000000000001",
        "consent_type": "category:medical",
        "kind": "grant",
        "status": "granted",
        "terms_hash": compute_terms_hash("terms v1"),
        "witness": "session",
        "occurred_at": "2026-11-30T12:00:00.000000Z",
        **overrides,
    }


def test_fingerprint_is_sixteen_hex_digits_of_fnv_over_canonical_json():
    fingerprint = compute_event_fingerprint({"b": 1, "a": "x"})
    assert fingerprint == f"{fnv1a_64(b'{"a":"x","b":1}'):016x}"
    assert len(fingerprint) == 16


def test_fingerprint_does_not_depend_on_key_order():
    forward = body()
    backward = dict(reversed(list(forward.items())))
    assert compute_event_fingerprint(forward) == compute_event_fingerprint(backward)


def test_changed_terms_change_the_fingerprint():
    drifted = body(terms_hash=compute_terms_hash("terms v1, quietly edited"))
    assert compute_event_fingerprint(drifted) != compute_event_fingerprint(body())


def test_terms_hash_ignores_line_ending_style_only():
    assert compute_terms_hash("a\r\nb") == compute_terms_hash("a\nb")
    assert compute_terms_hash("a b") != compute_terms_hash("a  b")


def _chain(bodies: list[dict]) -> list[LedgerRow]:
    rows, previous = [], GENESIS_HASH
    for item in bodies:
        fingerprint = compute_event_fingerprint(item)
        digest = compute_event_hash(previous, item, fingerprint)
        rows.append(LedgerRow(item["id"], item, fingerprint, previous, digest))
        previous = digest
    return rows


def _bodies(count: int) -> list[dict]:
    return [body(id=f"00000000-0000-0000-0000-00000000000{n}") for n in range(1, count + 1)]


def test_intact_ledger_verifies():
    assert first_invalid(_chain(_bodies(3))) is None


def test_an_edited_body_fails_its_fingerprint():
    rows = _chain(_bodies(3))
    rows[1] = replace(rows[1], body={**rows[1].body, "kind": "denial"})
    broken = first_invalid(rows)
    assert (broken.event_id, broken.reason) == (rows[1].event_id, "fingerprint-mismatch")


def test_a_removed_event_breaks_the_chain_at_the_next_one():
    rows = _chain(_bodies(3))
    del rows[1]
    broken = first_invalid(rows)
    assert (broken.event_id, broken.reason) == (rows[1].event_id, "previous-hash-mismatch")


def test_terms_drift_is_reported_against_the_published_text():
    rows = _chain([body(terms_version="v1")])
    assert first_invalid(rows, terms_hashes={"v1": rows[0].body["terms_hash"]}) is None
    drift = first_invalid(rows, terms_hashes={"v1": compute_terms_hash("new words")})
    assert drift.reason == "terms-drift"


def state(status: ConsentStatus, valid_until=None) -> ConsentState:
    return ConsentState("data_storage", status, "e1", valid_until)


@pytest.mark.parametrize(
    ("current", "kind", "action", "code"),
    [
        (None, ConsentEventKind.GRANT, "append", ""),
        (ConsentStatus.GRANTED, ConsentEventKind.GRANT, "noop", "already-granted"),
        (ConsentStatus.WITHDRAWN, ConsentEventKind.GRANT, "append", ""),
        (None, ConsentEventKind.WITHDRAWAL, "refuse", "consent-not-granted"),
        (ConsentStatus.WITHDRAWN, ConsentEventKind.WITHDRAWAL, "refuse", "consent-not-granted"),
        (ConsentStatus.GRANTED, ConsentEventKind.WITHDRAWAL, "append", ""),
        (ConsentStatus.GRANTED, ConsentEventKind.DENIAL, "refuse", "consent-currently-granted"),
        (ConsentStatus.DENIED, ConsentEventKind.DENIAL, "noop", "already-denied"),
        (None, ConsentEventKind.DENIAL, "append", ""),
        (ConsentStatus.GRANTED, ConsentEventKind.EXPIRY, "refuse", "consent-not-expirable"),
    ],
)
def test_decisions_follow_the_current_state(current, kind, action, code):
    decision = decide(state(current) if current else None, kind, NOW)
    assert (decision.action, decision.code) == (action, code)


def test_a_lapsed_grant_is_not_in_force_and_can_be_regranted_or_expired():
    lapsed = state(ConsentStatus.GRANTED, valid_until=NOW - timedelta(seconds=1))
    assert not is_in_force(lapsed, NOW)
    assert decide(lapsed, ConsentEventKind.GRANT, NOW).action == "append"
    assert decide(lapsed, ConsentEventKind.EXPIRY, NOW).action == "append"
    assert decide(lapsed, ConsentEventKind.WITHDRAWAL, NOW).action == "refuse"
