"""Fail closed: a ledger that does not verify closes every consent gate of its member.

Pure checks of `first_untrusted` (no database), then a forged ledger end to end over
HTTP: the write gate refuses, recall withholds, the operators get one alert and a
dashboard notice.
"""

import uuid

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st

from consent.integrity import BROKEN_ACTION
from consent.models import ConsentEvent, ConsentLedgerHead
from consent.policy import (
    LedgerHead,
    LedgerRow,
    compute_event_fingerprint,
    compute_event_hash,
    first_untrusted,
)
from consent.selectors import consent_active
from consent.services import consent_ledger_purge
from iris_site.audit.policy import GENESIS_HASH
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.models import MemoryEntry
from tests.conftest import http_request
from tests.consent.factories import record
from tests.iris_site.factories import OperatorFactory, ServiceClientFactory
from tests.memory.factories import consenting_member, remember
from tests.tamper import owner_tamper

TYPES = ["data_storage", "data_processing", "category:medical", "cross_device"]


# --- The check, pure ----------------------------------------------------------------------


def _ledger(steps: list[tuple[str, str]]) -> list[LedgerRow]:
    """A chained ledger of (consent type, kind) steps, as `consent_event_append` writes it."""
    rows, previous = [], GENESIS_HASH
    for sequence, (consent_type, kind) in enumerate(steps, start=1):
        body = {
            "sequence": sequence,
            "id": str(uuid.UUID(int=sequence)),
            "consent_type": consent_type,
            "kind": kind,
            "status": {"grant": "granted", "withdrawal": "withdrawn"}[kind],
            "terms_version": "v1",
            "terms_hash": "0" * 64,
        }
        fingerprint = compute_event_fingerprint(body)
        digest = compute_event_hash(previous, body, fingerprint)
        rows.append(LedgerRow(body["id"], body, fingerprint, previous, digest))
        previous = digest
    return rows


def _head(rows: list[LedgerRow]) -> LedgerHead:
    last = rows[-1]
    return LedgerHead(last.body["sequence"], last.event_id, last.hash)


def _flip(row: LedgerRow) -> LedgerRow:
    """A withdrawal turned into a grant in place, the stored hashes left as they were."""
    body = {**row.body, "kind": "grant", "status": "granted"}
    return LedgerRow(row.event_id, body, row.fingerprint, row.previous_hash, row.hash)


STEPS = [("data_storage", "grant"), ("category:medical", "grant")]
STEPS += [("category:medical", "withdrawal"), ("cross_device", "grant")]


def test_an_intact_ledger_is_trusted_and_so_are_events_chained_after_its_head():
    rows = _ledger([*STEPS, ("cross_device", "withdrawal")])
    assert first_untrusted(rows, head=_head(rows)) is None
    assert first_untrusted(rows, head=_head(rows[:-1])) is None  # appended since the check
    assert first_untrusted([], head=LedgerHead(0, "", GENESIS_HASH)) is None


def test_a_withdrawal_flipped_into_a_grant_is_caught_where_a_decision_reads_it():
    rows = _ledger([*STEPS[:3]])  # the withdrawal is the newest medical event
    forged = [*rows[:2], _flip(rows[2])]
    broken = first_untrusted(forged, head=_head(rows))
    assert (broken.event_id, broken.reason) == (rows[2].event_id, "fingerprint-mismatch")


def test_a_removed_newest_event_is_caught_by_the_head():
    rows = _ledger(STEPS)
    broken = first_untrusted(rows[:-1], head=_head(rows))
    assert (broken.event_id, broken.reason) == (rows[-1].event_id, "head-missing")


def test_a_removed_or_inserted_event_breaks_a_link():
    rows = _ledger(STEPS)
    broken = first_untrusted([*rows[:2], rows[3]], head=_head(rows))
    assert (broken.event_id, broken.reason) == (rows[3].event_id, "previous-hash-mismatch")


def test_without_a_head_the_whole_ledger_is_verified_with_one_only_what_decides():
    # given: a withdrawal that a later grant of the same type has superseded
    rows = _ledger([*STEPS, ("category:medical", "grant")])
    forged = [_flip(r) if i == 2 else r for i, r in enumerate(rows)]
    # then: a first check verifies everything; later checks recompute the latest event
    # of each type (what decisions read); the member's full verification covers the rest
    assert first_untrusted(forged, head=None).reason == "fingerprint-mismatch"
    assert first_untrusted(forged, head=_head(rows)) is None


@given(
    steps=st.lists(
        st.tuples(st.sampled_from(TYPES), st.sampled_from(["grant", "withdrawal"])),
        min_size=1,
        max_size=12,
    ),
    data=st.data(),
)
def test_any_removal_or_any_change_a_decision_reads_is_caught(steps, data):
    # given: an intact ledger, checked up to its newest event
    rows = _ledger(steps)
    head = _head(rows)
    assert first_untrusted(rows, head=head) is None
    # when: one event goes, or the latest event of some type is rewritten in place
    if data.draw(st.booleans(), label="remove"):
        index = data.draw(st.integers(0, len(rows) - 1), label="removed")
        tampered = rows[:index] + rows[index + 1 :]
    else:
        latest = {r.body["consent_type"]: i for i, r in enumerate(rows)}
        index = data.draw(st.sampled_from(sorted(latest.values())), label="rewritten")
        field = data.draw(st.sampled_from(["kind", "status", "consent_type", "sequence"]))
        row = rows[index]
        body = {**row.body, field: "forged" if field != "sequence" else 10_000}
        tampered = [*rows[:index], LedgerRow(row.event_id, body, *_tail(row)), *rows[index + 1 :]]
    # then
    assert first_untrusted(tampered, head=head) is not None


def _tail(row: LedgerRow) -> tuple[str, str, str]:
    return row.fingerprint, row.previous_hash, row.hash


# --- A forged ledger, end to end ------------------------------------------------------------


def _forge_withdrawal_into_grant(event: ConsentEvent) -> None:
    """What someone holding the tables would do: rewrite the row, leave the hashes."""
    with transaction.atomic(), owner_tamper(ConsentEvent):
        ConsentEvent.objects.filter(pk=event.pk).update(
            kind="grant", status="granted", supersedes=None
        )


@pytest.mark.django_db(transaction=True)
def test_a_forged_ledger_fails_closed_on_the_write_gate_and_on_recall(live_server):
    # given: a member with memories, who granted and then withdrew financial consent
    member = consenting_member("category:medical")
    remember(member, subject="coffee", body="I take my coffee black")
    remember(member, category="medical", subject="allergy", body="allergic to penicillin")
    record(member, "category:financial")
    withdrawal = record(member, "category:financial", "withdrawal").event
    _, mine = token_issue(owner=member)
    _, assistant = token_issue(owner=ServiceClientFactory(consumer="assistant"))
    base = live_server.url + "/api/v1"
    recall = f"{base}/members/{member.pk}/recall/"
    query = {"surface": "assistant", "scope": {"kind": "profile"}, "query": ""}
    assert len(http_request(recall, method="POST", token=assistant, body=query).body["entries"])
    # when: the withdrawal is flipped into a grant behind Iris's back
    _forge_withdrawal_into_grant(withdrawal)
    # then: the write gate refuses what the forged grant would allow, and everything else
    money = {
        "scope": {"kind": "profile"},
        "category": "financial",
        "body": "I am saving for a flat",
    }
    refused = http_request(f"{base}/me/memories/", method="POST", token=mine, body=money)
    assert refused.status == 422, refused.body
    # no base consent in force: the scope itself is suppressed, before the category check
    assert refused.body["error"]["code"] == "scope-suppressed"
    assert not MemoryEntry.objects.filter(member=member, category="financial").exists()
    ordinary = {**money, "category": "preference", "body": "I like tea"}
    plain = http_request(f"{base}/me/memories/", method="POST", token=mine, body=ordinary)
    assert plain.status == 422, plain.body
    # recall withholds every entry: nothing counts as consented
    recalled = http_request(recall, method="POST", token=assistant, body=query)
    assert recalled.status == 200 and recalled.body["entries"] == []
    assert sum(recalled.body["audit_envelope"]["suppression_counts"].values()) >= 2
    assert consent_active(member_id=member.pk).types == frozenset()
    # the member's verification names the forged event
    verify = http_request(f"{base}/me/consents/verify/", token=mine)
    assert verify.body["valid"] is False
    assert verify.body["first_invalid_event_id"] == str(withdrawal.pk)
    assert verify.body["reason"] == "fingerprint-mismatch"
    # one operator alert for the detection (ids only), however often the gates asked
    (alert,) = AuditEvent.objects.filter(action=BROKEN_ACTION)
    assert alert.target_member_id == member.pk and alert.severity == "critical"
    assert alert.payload == {"event_id": str(withdrawal.pk), "reason": "fingerprint-mismatch"}
    head = ConsentLedgerHead.objects.get(member=member)
    assert head.broken_at is not None and head.broken_event_id == str(withdrawal.pk)


@pytest.mark.django_db
def test_a_broken_ledger_stays_closed_and_the_dashboard_says_so(client):
    # given
    member = consenting_member()
    record(member, "category:financial")
    withdrawal = record(member, "category:financial", "withdrawal").event
    _forge_withdrawal_into_grant(withdrawal)
    assert consent_active(member_id=member.pk).types == frozenset()
    # when: the member keeps using the ledger (a withdrawal must always go through)
    record(member, "data_storage", "withdrawal")
    record(member, "data_storage")
    # then: still closed, still one alert
    assert consent_active(member_id=member.pk).types == frozenset()
    assert AuditEvent.objects.filter(action=BROKEN_ACTION).count() == 1
    # and the operator dashboard carries the notice (a count, no member detail)
    client.force_login(OperatorFactory(role="admin"))
    page = client.get("/dashboard/admin/memory-hierarchy").content.decode()
    assert 'data-testid="broken-ledgers"' in page
    assert "Consent ledgers that failed verification: <strong>1</strong>" in page
    assert str(member.pk) not in page


@pytest.mark.django_db
def test_an_intact_ledger_raises_no_alert_and_appends_move_the_head():
    member = consenting_member("category:medical")
    record(member, "category:medical", "withdrawal")
    assert "data_storage" in consent_active(member_id=member.pk).types
    head = ConsentLedgerHead.objects.get(member=member)
    newest = ConsentEvent.objects.filter(member=member).order_by("-sequence").first()
    assert (head.sequence, head.hash, head.broken_at) == (newest.sequence, newest.hash, None)
    assert not AuditEvent.objects.filter(action=BROKEN_ACTION).exists()


@pytest.mark.django_db
def test_a_purge_does_not_launder_a_forged_ledger():
    # given: a forged withdrawal, then a data-rights purge of another type re-chains
    member = consenting_member()
    record(member, "category:financial")
    withdrawal = record(member, "category:financial", "withdrawal").event
    record(member, "cross_device")
    _forge_withdrawal_into_grant(withdrawal)
    # when
    consent_ledger_purge(
        member=member, consent_types=["cross_device"], dsar_request_id=uuid.uuid4()
    )
    # then: the forgery was recorded before the hashes were recomputed; gates stay closed
    assert consent_active(member_id=member.pk).types == frozenset()
    (alert,) = AuditEvent.objects.filter(action=BROKEN_ACTION)
    assert alert.payload["event_id"] == str(withdrawal.pk)


@pytest.mark.django_db
def test_the_ledger_a_gate_verifies_is_read_in_one_statement_and_an_emptied_one_fails_closed():
    # given a member whose ledger was checked (the head names its newest event)
    member = consenting_member()
    with CaptureQueriesContext(connection) as captured:
        active = consent_active(member_id=member.pk)
    assert "data_storage" in active.types
    ledger = [
        q["sql"]
        for q in captured.captured_queries
        if "consent_consentevent" in q["sql"] or "consent_consentledgerhead" in q["sql"]
    ]
    assert len(ledger) == 1
    assert "consent_consentledgerhead" in ledger[0] and "consent_consentevent" in ledger[0]
    # when someone holding the tables deletes every event under the head
    with transaction.atomic(), owner_tamper(ConsentEvent):
        ConsentEvent.objects.filter(member=member).delete()
    # then the head no longer finds its event: the gates close and the operators hear once
    assert consent_active(member_id=member.pk).types == frozenset()
    assert ConsentLedgerHead.objects.get(member=member).broken_reason == "head-missing"
    assert AuditEvent.objects.filter(action=BROKEN_ACTION).count() == 1
