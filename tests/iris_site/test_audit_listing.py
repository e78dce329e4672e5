"""Issue 42, item 2: audit listings without special-category facts.

Why: "Operators learn who has sensitive memory without an inspection, even after
erasure." Any operator role listed `memory.entry.created {category: mental_health}` and
`consent.event.grant {consent_type: category:mental_health}` per member from
`GET /api/v1/operator/audit-events/`; platform support saw every member's events; the
rows survived a hard delete with the consent ledger purged; the member's access report did
not show that anyone listed them. Over real HTTP (`live_server`), through the services a
member and the data-rights worker use.
"""

import pytest

from consent.enums import SensitiveCategory
from inspection.enums import InspectionState
from iris_site.audit import events as audit_events
from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.sealing import (
    MARKER,
    SEALED_PREFIX,
    SENSITIVE_KEYS,
    audit_member_key_exists,
    resolver_for,
)
from iris_site.audit.selectors import audit_chain_verify
from iris_site.enums import OperatorRole
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from tests.conftest import http_request
from tests.datarights.factories import ACCESS, process, submit
from tests.inspection.factories import granted
from tests.iris_site.factories import OperatorFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)

SENSITIVE = ("mental_health", "immigration_status")
# A hard delete of the sensitive categories with their consents purged from the ledger.
HARD_DELETE_PURGING = {
    "mode": "hard",
    "scopes": ["profile"],
    "categories": list(SENSITIVE),
    "purge_consent_ledger": True,
    "retention_grace_ms": 0,
}
ROLES = (
    OperatorRole.SUPPORT,
    OperatorRole.ADMIN,
    OperatorRole.TRUST_AND_SAFETY,
    OperatorRole.LEGAL,
)


def sensitive_member():
    member = consenting_member(*(f"category:{c}" for c in SENSITIVE))
    remember(member, category="mental_health", subject="therapy", body="I see a therapist")
    remember(member, category="immigration_status", subject="visa", body="My visa ends in May")
    return member


def listing(live_server, operator, **params) -> tuple[int, dict]:
    _, token = token_issue(owner=operator)
    query = "&".join(f"{k}={v}" for k, v in params.items())
    answer = http_request(f"{live_server.url}/api/v1/operator/audit-events/?{query}", token=token)
    return answer.status, answer.body


def revealed(body) -> list[str]:
    """Every special-category value (a category, a `category:` consent type) in the
    payloads of a listing (or a list of payloads), wherever it sits in them: the same
    words elsewhere (`legal` the operator role) are not categories, so they are looked
    for under the keys that name categories and consent types."""
    payloads = [e["payload"] for e in body["results"]] if isinstance(body, dict) else body
    found: set[str] = set()

    def walk(value, under_key: bool) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, key in SENSITIVE_KEYS)
        elif isinstance(value, list):
            for inner in value:
                walk(inner, under_key)
        elif isinstance(value, str) and under_key:
            found.add(value.removeprefix("category:"))

    walk(payloads, False)
    return sorted(found & set(SensitiveCategory.values))


def payload_of(body, action: str) -> list[dict]:
    return [e["payload"] for e in body["results"] if e["action"] == action]


def test_no_operator_role_learns_who_has_sensitive_memory_even_after_erasure(live_server):
    # given a member with mental-health and immigration-status memory, and their consents
    member = sensitive_member()
    other = sensitive_member()
    operators = {role: OperatorFactory(role=role) for role in ROLES}
    # then the chain holds no such value in the clear: keyed digests under the member's key
    stored = AuditEvent.objects.filter(target_member_id=member.pk)
    assert revealed(list(stored.values_list("payload", flat=True))) == []
    created = stored.filter(action=AuditAction.MEMORY_ENTRY_CREATED)
    assert {e.payload["category"][: len(SEALED_PREFIX)] for e in created} == {SEALED_PREFIX}

    # when every operator role lists the member's events over HTTP
    for role, operator in operators.items():
        status, body = listing(live_server, operator, target_member_id=member.pk)
        # then none learns a special category
        assert status == 200, body
        assert revealed(body) == [], role
        if role == OperatorRole.SUPPORT:
            # support lists only data-rights, inspection and webhook events, counts only
            assert body["results"] == [] or all(
                e["action"].startswith(("datarights.", "inspection.", "webhooks."))
                for e in body["results"]
            )
            continue
        assert {p["category"] for p in payload_of(body, "memory.entry.created")} == {MARKER}
        grants = {p["consent_type"] for p in payload_of(body, "consent.event.grant")}
        assert MARKER in grants and "data_processing" in grants  # the base ones still show

    # and a platform support agent does not see every member's events either
    status, body = listing(live_server, operators[OperatorRole.SUPPORT])
    assert status == 200 and revealed(body) == []
    assert not any(e["action"].startswith(("memory.", "consent.")) for e in body["results"])

    # and each listing is itself in the member's chain, content-free, and in their report
    listed = AuditEvent.objects.filter(
        target_member_id=member.pk, action=AuditAction.IRIS_SITE_AUDIT_EVENTS_LISTED
    )
    assert {e.actor_role for e in listed} >= {"admin", "t&s", "legal"}
    assert all(set(e.payload) >= {"event_count", "marker_count", "cover"} for e in listed)
    assert not AuditEvent.objects.filter(
        target_member_id=other.pk, action=AuditAction.IRIS_SITE_AUDIT_EVENTS_LISTED
    ).exists()  # the other member's events were on no page filtered to this member
    report = process(submit(member, "access", ACCESS)).access_report
    actions = [a["action"] for a in report["operator_actions"]]
    assert AuditAction.IRIS_SITE_AUDIT_EVENTS_LISTED in actions
    words = {a["what"] for a in report["operator_actions"]}
    assert "listed the record of what happened to your memory" in words

    # when the member's sensitive memory is erased: a hard delete, the consent ledger purged
    hashes = dict(stored.values_list("id", "hash"))
    assert audit_member_key_exists(member_id=member.pk)
    delete = process(submit(member, "delete", HARD_DELETE_PURGING))
    assert delete.status == "completed", delete.progress
    # then the key is gone: nothing resolves any more, and the chain still verifies
    assert not audit_member_key_exists(member_id=member.pk)
    assert resolver_for(member.pk) == {}
    assert {k: v for k, v in hashes.items()} == dict(
        AuditEvent.objects.filter(pk__in=hashes).values_list("id", "hash")
    )
    assert audit_chain_verify().valid
    # and what survives lists no special category, to any role
    for operator in operators.values():
        status, body = listing(live_server, operator, target_member_id=member.pk)
        assert status == 200 and revealed(body) == []
    # and the other member's key, untouched, still resolves their own values
    assert audit_member_key_exists(member_id=other.pk)


def test_a_covered_listing_shows_its_members_values_and_nobody_elses(live_server):
    # given two members with sensitive memory
    member, other = sensitive_member(), sensitive_member()
    legal = OperatorFactory(role=OperatorRole.LEGAL)
    inspection = granted(legal, member, InspectionState.DSAR_FULFILLMENT, include_sensitive=True)
    plain = granted(OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY), member)

    # when legal lists inside its granted inspection that includes sensitive categories
    status, body = listing(live_server, legal, inspection=inspection.pk)
    # then that member's values show, and only that member's events are listed
    assert status == 200, body
    assert set(revealed(body)) == set(SENSITIVE)
    assert {e["target_member_id"] for e in body["results"]} == {str(member.pk)}
    record = AuditEvent.objects.filter(
        target_member_id=member.pk, action=AuditAction.IRIS_SITE_AUDIT_EVENTS_LISTED
    ).latest("sequence")
    assert record.payload["cover"] == "inspection"
    assert record.payload["cover_id"] == str(inspection.pk)
    assert record.payload["revealed_count"] >= 4 and record.payload["marker_count"] == 0

    # when an inspection that does not include sensitive categories covers the listing
    status, body = listing(live_server, plain.operator, inspection=plain.pk)
    # then the values stay markers
    assert status == 200 and revealed(body) == []

    # when someone else names that inspection, or support names any cover
    for intruder, params in (
        (OperatorFactory(role=OperatorRole.LEGAL), {"inspection": inspection.pk}),
        (OperatorFactory(role=OperatorRole.SUPPORT), {"inspection": inspection.pk}),
    ):
        status, body = listing(live_server, intruder, **params)
        # then it is refused, with a code
        assert status == 403 and body["error"]["code"] == "audit_cover_refused"

    # when legal handles an open data-rights request of the other member
    request = submit(other, "access", ACCESS)
    assert request.status == "verified"  # signed in: verified, open until processed
    status, body = listing(live_server, legal, data_rights_request=request.pk)
    assert status == 200 and set(revealed(body)) == set(SENSITIVE)
    assert {e["target_member_id"] for e in body["results"]} == {str(other.pk)}
    # but trust & safety does not handle data-rights requests
    status, body = listing(
        live_server,
        OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY),
        data_rights_request=request.pk,
    )
    assert status == 403


def test_rows_written_before_sealing_are_neutralised_when_listed(live_server, monkeypatch):
    # given a row written as before: the category in the clear
    member = consenting_member()
    monkeypatch.setattr(audit_events, "payload_seal", lambda body, member_id: dict(body))
    audit_event_append(
        action=AuditAction.MEMORY_ENTRY_CREATED,
        policy_id="iris.memory.write.v1",
        actor=Actor.of(member),
        target_member_id=member.pk,
        payload={"category": "mental_health", "entry_id": str(member.pk)},
    )
    monkeypatch.undo()
    assert AuditEvent.objects.get(target_member_id=member.pk, action="memory.entry.created")
    # when an operator lists it
    status, body = listing(live_server, OperatorFactory(role=OperatorRole.ADMIN))
    # then it shows as the marker, and the chain still verifies
    assert status == 200 and revealed(body) == []
    assert audit_chain_verify().valid
