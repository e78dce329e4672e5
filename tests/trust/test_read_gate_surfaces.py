"""Issue 15, "Why", over real HTTP: the context bundle, short-term reads and continuation
tokens decide through the one read gate, from facts the server knows. Each test asserts
that the withheld item is absent from the answer *and* counted by reason.

Run on PostgreSQL (`DATABASE_URL=...`) and SQLite alike.
"""

import pytest

from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.models import MemoryEntry
from tests.conftest import http_request
from tests.consent.factories import record
from tests.continuity.factories import token_body
from tests.hierarchy.stm_factories import write as stm_write
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)

OUTSIDE_CONTEXT = "sensitive-category-outside-relevant-context"
NOTE = "panic attacks before exams"
DIAGNOSIS = "diagnosed with generalised anxiety"


def service(consumer: str) -> str:
    _, raw = token_issue(owner=ServiceClientFactory(consumer=consumer))
    return raw


def member_token(member) -> str:
    _, raw = token_issue(owner=member)
    return raw


def bundle(live_server, member, token: str, **body):
    return http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/context-bundle/",
        method="POST",
        token=token,
        body={"scope_id": "s-1", **body},
    )


def withdraw(live_server, member, *consent_types: str) -> None:
    token = member_token(member)
    for consent_type in consent_types:
        response = http_request(
            f"{live_server.url}/api/v1/me/consents/events/",
            method="POST",
            token=token,
            body={"consent_type": consent_type, "kind": "withdrawal"},
        )
        assert response.status == 201, response.body


def bundle_events(member) -> list[AuditEvent]:
    return list(
        AuditEvent.objects.filter(
            action="hierarchy.bundle.resolved", target_member_id=member.pk
        ).order_by("sequence")
    )


def test_withdrawn_base_consents_empty_the_bundles_long_term_part(live_server):
    """`data_processing` and `data_storage` withdrawn: recall used to return every memory
    and keep counting its use."""
    # given
    member = consenting_member()
    entries = [
        remember(member, subject="coffee", body="I take my coffee black").entry,
        remember(member, subject="walks", body="I walk every morning").entry,
    ]
    assistant = service("assistant")
    assert len(bundle(live_server, member, assistant).body["ltm"]["entries"]) == 2
    MemoryEntry.objects.filter(member=member).update(reference_count=0, last_referenced_at=None)
    # when
    withdraw(live_server, member, "data_processing", "data_storage")
    response = bundle(live_server, member, assistant, query="coffee walk")
    # then
    assert response.status == 200, response.body
    assert response.body["cached"] is False
    assert response.body["ltm"]["entries"] == []
    assert response.body["ltm"]["audit_envelope"]["suppression_counts"] == {"scope-suppressed": 2}
    assert bundle_events(member)[-1].payload["ltm_withheld"] == {"scope-suppressed": 2}
    for entry in entries:
        entry.refresh_from_db()
        assert (entry.reference_count, entry.last_referenced_at) == (0, None)


def test_a_briefing_gets_neither_another_surfaces_health_note_nor_health_memory(live_server):
    """A `veritas` client in the general context: the mental-health note Tara kept in
    working memory, and the member's mental-health memory, are absent and counted."""
    # given
    member = consenting_member("category:mental_health")
    tara, veritas = service("tara"), service("veritas")
    written = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/short-term/",
        method="POST",
        token=tara,
        body={
            "scope_kind": "user_session",
            "scope_id": "s-1",
            "category": "mental_health",
            "content": NOTE,
        },
    )
    assert written.status == 201, written.body
    ordinary = stm_write(member, content="wants the morning briefing short")
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    coffee = remember(member, subject="coffee", body="I take my coffee black").entry
    # when
    response = bundle(live_server, member, veritas, query="anxiety coffee", context="general")
    listed = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/short-term/?scope_id=s-1",
        token=veritas,
    )
    # then: the bundle
    assert response.status == 200, response.body
    body = response.body
    assert [r["id"] for r in body["stm"]] == [str(ordinary.pk)]
    assert body["stm_withheld"] == {OUTSIDE_CONTEXT: 1}
    assert [e["id"] for e in body["ltm"]["entries"]] == [str(coffee.pk)]
    assert body["ltm"]["audit_envelope"]["suppression_counts"] == {OUTSIDE_CONTEXT: 1}
    assert all(e["payload"].get("stm_id") != written.body["id"] for e in body["episodic"])
    assert NOTE not in str(body) and DIAGNOSIS not in str(body)
    payload = bundle_events(member)[-1].payload
    assert payload["stm_withheld"] == {OUTSIDE_CONTEXT: 1}
    assert payload["ltm_withheld"] == {OUTSIDE_CONTEXT: 1}
    # and the short-term list
    assert listed.status == 200, listed.body
    assert [r["id"] for r in listed.body["results"]] == [str(ordinary.pk)]
    assert listed.body["withheld"] == {OUTSIDE_CONTEXT: 1}
    # Tara, in the health context it may claim, reads its own note
    own = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/short-term/?scope_id=s-1&context=health",
        token=tara,
    )
    assert [r["content"] for r in own.body["results"]] == [NOTE, ordinary.content]


def test_a_briefing_claiming_the_health_context_is_refused(live_server):
    """`context` is no longer whatever the request body says."""
    member = consenting_member("category:mental_health")
    remember(member, category="mental_health", subject="anxiety", body=DIAGNOSIS)
    veritas = service("veritas")
    response = bundle(live_server, member, veritas, context="health")
    listed = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/short-term/?scope_id=s-1&context=health",
        token=veritas,
    )
    for refused in (response, listed):
        assert refused.status == 403, refused.body
        assert refused.body["error"]["code"] == "context-not-allowed"
        assert DIAGNOSIS not in str(refused.body)
    assert bundle_events(member) == []
    assert MemoryEntry.objects.get(member=member).reference_count == 0


def test_a_device_id_names_a_device_only_for_the_client_that_wrote_from_it(live_server):
    """The continuation guard used to trust a `device_id` query parameter."""
    # given: Psyche's app on the phone writes a sensitive token under a cross-device grant
    member = consenting_member()
    grant = record(member, "cross_device").event
    phone_app, other_app = service("psyche"), service("psyche")
    base = f"{live_server.url}/api/v1/members/{member.pk}/continuation-tokens/"
    written = http_request(
        base,
        method="PUT",
        token=phone_app,
        body=token_body(
            member.pk,
            surface="psyche",
            device_id="phone-1",
            sensitive_categories=["mental_health"],
            cross_device_consent_id=str(grant.pk),
        ),
    )
    assert written.status == 201, written.body
    slot = written.body["id"]
    # and the member withdraws the grant: the token stays on the phone
    withdraw(live_server, member, "cross_device")
    # when another client claims to be the phone
    impostor = http_request(f"{base}?device_id=phone-1", token=other_app)
    impostor_resume = http_request(f"{base}{slot}/resume/?device_id=phone-1", token=other_app)
    # then
    assert impostor.status == 200
    assert impostor.body["results"] == []
    assert impostor.body["withheld"] == {"cross-device-consent-required": 1}
    assert impostor_resume.status == 404
    # while the writing client on its own device still resumes
    own = http_request(f"{base}?device_id=phone-1", token=phone_app)
    assert [t["id"] for t in own.body["results"]] == [slot]
    assert own.body["withheld"] == {}
    resumed = http_request(f"{base}{slot}/resume/?device_id=phone-1", token=phone_app)
    assert resumed.status == 200 and resumed.body["device_id"] == "phone-1"
    # and on another device it does not
    elsewhere = http_request(f"{base}{slot}/resume/?device_id=laptop-1", token=phone_app)
    assert elsewhere.status == 404


def test_a_cached_bundle_is_not_served_after_a_consent_withdrawal(live_server):
    """The 30-second cache must never outlive a consent change. (`data_storage` is
    withdrawn: the entry stays in the store, withheld, so it can be counted; a withdrawn
    category consent forgets its memories outright.)"""
    # given: a bundle holding a long-term memory, resolved and then cached
    member = consenting_member()
    entry = remember(member, subject="coffee", body="I take my coffee black").entry
    row = stm_write(member, content="wants the morning briefing short")
    assistant = service("assistant")
    first = bundle(live_server, member, assistant, query="coffee")
    second = bundle(live_server, member, assistant, query="coffee")
    assert [e["id"] for e in first.body["ltm"]["entries"]] == [str(entry.pk)]
    assert second.body["cached"] is True
    # when
    withdraw(live_server, member, "data_storage")
    after = bundle(live_server, member, assistant, query="coffee")
    # then
    assert after.status == 200, after.body
    assert after.body["cached"] is False
    assert after.body["ltm"]["entries"] == []
    assert "coffee black" not in str(after.body)
    assert after.body["ltm"]["audit_envelope"]["suppression_counts"] == {"scope-suppressed": 1}
    assert bundle_events(member)[-1].payload["ltm_withheld"] == {"scope-suppressed": 1}
    # working memory needs only `data_processing`: still there
    assert [r["id"] for r in after.body["stm"]] == [str(row.pk)]
