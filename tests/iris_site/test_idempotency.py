"""The idempotency layer's pieces: key rules, the canonical request and its keyed
fingerprint (pure), the reservation's states against the database, the purge, and the
schema every idempotent operation documents."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from iris_site.idempotency import (
    IDEMPOTENCY_TTL,
    STALE_AFTER,
    Outcome,
    canonical_request,
    idempotency_complete,
    idempotency_purge_expired,
    idempotency_records_erase,
    idempotency_release,
    idempotency_reserve,
    key_problem,
    request_fingerprint,
)
from iris_site.models import AuditEvent, IdempotencyRecord
from tests.iris_site.factories import MemberFactory, ServiceClientFactory

PATH = "/api/v1/me/memories/"
BODY = {"scope": {"kind": "profile"}, "category": "preference", "body": "I take my tea green"}


def fingerprint(body=BODY, **overrides) -> str:
    return request_fingerprint(
        **{"method": "POST", "path": PATH, "body": body, "query": (), **overrides}
    )


# --- Pure ----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["k-1", "550e8400-e29b-41d4-a716-446655440000", "é" * 128])
def test_printable_keys_without_spaces_are_accepted(key):
    assert key_problem(key) is None


@pytest.mark.parametrize("key", ["", "has space", "tab\there", "nl\n", "x" * 129, "nul\x00"])
def test_other_keys_are_refused_with_a_reason(key):
    assert key_problem(key)


def test_key_order_and_spacing_do_not_change_the_request():
    shuffled = dict(reversed(list(BODY.items())))
    assert canonical_request(method="POST", path=PATH, body=shuffled) == canonical_request(
        method="post", path=PATH, body=BODY
    )
    assert fingerprint(shuffled) == fingerprint()


@pytest.mark.parametrize(
    "change",
    [
        {"body": {**BODY, "body": "I take my tea black"}},
        {"body": {**BODY, "category": ["preference"]}},
        {"method": "PUT"},
        {"path": "/api/v1/members/x/memories/"},
        {"query": [("session_id", "s-1")]},
    ],
)
def test_anything_else_is_another_request(change):
    assert fingerprint(**change) != fingerprint()


def test_the_fingerprint_is_a_keyed_digest_holding_nothing_of_the_body():
    digest = fingerprint()
    assert len(digest) == 64 and set(digest) <= set("0123456789abcdef")
    assert "tea" not in digest
    with override_settings(IRIS_HASH_SECRET="another-secret-entirely"):
        assert fingerprint() != digest


def test_query_order_does_not_matter():
    assert fingerprint(query=[("a", "1"), ("b", "2")]) == fingerprint(
        query=[("b", "2"), ("a", "1")]
    )


# --- Reservations ----------------------------------------------------------------------------

db = pytest.mark.django_db


@db
def test_a_key_is_reserved_once_then_answered_from_its_record():
    client = ServiceClientFactory()
    first = idempotency_reserve(principal=client, scope="memory.turn", key="k", fingerprint="f1")
    assert first.outcome == Outcome.RESERVED
    # while it runs
    assert (
        idempotency_reserve(
            principal=client, scope="memory.turn", key="k", fingerprint="f1"
        ).outcome
        == Outcome.IN_PROGRESS
    )
    assert idempotency_complete(first, status_code=201, reference={"id": "t-1"})
    again = idempotency_reserve(principal=client, scope="memory.turn", key="k", fingerprint="f1")
    assert again.outcome == Outcome.REPLAY and again.record.reference == {"id": "t-1"}
    other = idempotency_reserve(principal=client, scope="memory.turn", key="k", fingerprint="f2")
    assert other.outcome == Outcome.REUSED
    # another scope or another principal: a different key altogether
    assert (
        idempotency_reserve(principal=client, scope="short-term.write", key="k", fingerprint="f2")
    ).outcome == Outcome.RESERVED
    assert (
        idempotency_reserve(
            principal=ServiceClientFactory(), scope="memory.turn", key="k", fingerprint="f2"
        )
    ).outcome == Outcome.RESERVED


@db
def test_a_released_key_is_free_and_a_stale_reservation_is_taken_over():
    member = MemberFactory()
    first = idempotency_reserve(principal=member, scope="consent.event", key="k", fingerprint="f")
    idempotency_release(first)
    assert not IdempotencyRecord.objects.exists()
    now = timezone.now()
    crashed = idempotency_reserve(
        principal=member, scope="consent.event", key="k", fingerprint="f", now=now
    )
    later = now + STALE_AFTER + timedelta(seconds=1)
    taken = idempotency_reserve(
        principal=member, scope="consent.event", key="k", fingerprint="f", now=later
    )
    assert taken.outcome == Outcome.RESERVED and taken.record.pk == crashed.record.pk
    # the crashed request's late answer no longer counts
    assert not idempotency_complete(crashed, status_code=201, reference={})
    assert idempotency_complete(taken, status_code=201, reference={})


@db
def test_an_expired_key_is_free_again_and_the_purge_forgets_it():
    member = MemberFactory()
    now = timezone.now()
    old = idempotency_reserve(principal=member, scope="consent.event", key="k", fingerprint="f")
    idempotency_complete(old, status_code=201, reference={"id": "e"})
    IdempotencyRecord.objects.update(created_at=now - IDEMPOTENCY_TTL)
    fresh = idempotency_reserve(principal=member, scope="consent.event", key="k", fingerprint="g")
    assert fresh.outcome == Outcome.RESERVED
    IdempotencyRecord.objects.update(created_at=now - IDEMPOTENCY_TTL - timedelta(seconds=1))
    assert idempotency_purge_expired(now=now) == {"idempotency_record_count": 1}
    assert idempotency_purge_expired(now=now) == {"idempotency_record_count": 0}
    [event] = AuditEvent.objects.filter(action="iris_site.idempotency_records.purged")
    assert event.payload == {"idempotency_record_count": 1}


@db
def test_an_erasure_marks_only_the_records_it_concerns_gone():
    member = MemberFactory()
    claims = {}
    for scope, ref in (
        ("memory.remember", {"entry_id": "e-erased"}),
        ("memory.turn", {"id": "t-kept"}),
        ("consent.event", {"id": "c-kept"}),
    ):
        claims[scope] = idempotency_reserve(principal=member, scope=scope, key="k", fingerprint="f")
        idempotency_complete(claims[scope], status_code=201, reference=ref, member_id=member.pk)
    assert idempotency_records_erase(member_id=member.pk, mentions=lambda t: "e-erased" in t) == 1
    states = dict(IdempotencyRecord.objects.values_list("scope", "state"))
    assert states == {
        "memory.remember": "gone",
        "memory.turn": "completed",
        "consent.event": "completed",
    }
    # everything: every content scope, never the consent ledger's
    assert idempotency_records_erase(member_id=member.pk, everything=True) == 1
    assert IdempotencyRecord.objects.get(scope="consent.event").state == "completed"
    gone = idempotency_reserve(principal=member, scope="memory.turn", key="k", fingerprint="x")
    assert gone.outcome == Outcome.GONE


# --- Schema --------------------------------------------------------------------------------

IDEMPOTENT_OPERATIONS = {
    ("/api/v1/me/memories/", "post"),
    ("/api/v1/me/entities/{id}/retire/", "post"),
    ("/api/v1/members/{member_id}/memories/", "post"),
    ("/api/v1/members/{member_id}/sessions/{session_id}/turns/", "post"),
    ("/api/v1/members/{member_id}/short-term/", "post"),
    ("/api/v1/members/{member_id}/short-term/{stm_id}/consolidate/", "post"),
    ("/api/v1/members/{member_id}/continuation-tokens/", "put"),
    ("/api/v1/me/consents/events/", "post"),
    ("/api/v1/me/data-rights/", "post"),
    ("/api/v1/operator/inspections/", "post"),
}


def test_every_idempotent_operation_documents_the_header_409_and_410():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    documented = set()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            headers = {
                p["name"] for p in operation.get("parameters", []) if p.get("in") == "header"
            }
            if "Idempotency-Key" in headers:
                documented.add((path, method))
                assert {"409", "410"} <= set(operation["responses"]), (path, method)
    assert documented == IDEMPOTENT_OPERATIONS
