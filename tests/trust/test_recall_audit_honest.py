"""The recall audit is honest (issue 42, item 4), over real HTTP: a recall whose certified
shortlist never read a withheld memory still counts it under its reason, in the answer's
`audit_envelope`, the member's recall record and the audit event, and the event's
severity is `warning` whenever anything was withheld.

Before: an active mental-health memory that did not match the query appeared in no count
("19 of 38 entries evaluated"), and a recall that withheld a paused memory was logged at
`info` with no counts."""

import pytest

from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.models import AuditEvent
from iris_site.services import token_issue
from memory.models import RecallRecord
from memory.pauses import memory_pause
from tests.conftest import http_request
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db(transaction=True)
OUTSIDE_CONTEXT = "sensitive-category-outside-relevant-context"


def member_with_coffee(*consents, n=36):
    """A member with many memories matching "coffee": the shortlist fills the answer from
    them and reads nothing else."""
    member = consenting_member(*consents)
    for i in range(n):
        remember(member, subject=f"cup {i}", body=f"I take my coffee with oat milk, cup {i}")
    return member


def recall(live_server, member, query="coffee"):
    _, token = token_issue(owner=ServiceClientFactory(consumer=Consumer.ASSISTANT))
    response = http_request(
        f"{live_server.url}/api/v1/members/{member.pk}/recall/",
        method="POST",
        token=token,
        body={"surface": "assistant", "scope": {"kind": "profile"}, "query": query},
        timeout=30,
    )
    assert response.status == 200, response.body
    return response


def recall_event(member) -> AuditEvent:
    return AuditEvent.objects.get(target_member_id=member.pk, action="memory.recall.resolved")


def test_a_withheld_sensitive_memory_the_query_does_not_match_is_counted(live_server):
    # given an active mental-health memory (consented) and a paused one, neither matching
    member = member_with_coffee("category:mental_health")
    remember(
        member, category="mental_health", subject="therapy", body="Sees a therapist on Mondays"
    )
    paused = remember(member, subject="train", body="Takes the night train on Fridays").entry
    memory_pause(entry=paused, actor=Actor.of(member))
    # when the assistant recalls "coffee" in the general context
    response = recall(live_server, member)
    # then both are counted under their reasons, exactly
    envelope = response.body["audit_envelope"]
    assert len(response.body["entries"]) == 12
    assert envelope["suppression_counts"] == {OUTSIDE_CONTEXT: 1, "user-pause": 1}
    assert envelope["evaluated_count"] >= 2 + 12
    # and so do the member's record and the audit event, at warning
    record = RecallRecord.objects.get(member=member)
    assert record.suppression_counts == {OUTSIDE_CONTEXT: 1, "user-pause": 1}
    event = recall_event(member)
    assert event.severity == "warning"
    assert event.payload["suppression_counts"] == {OUTSIDE_CONTEXT: 1, "user-pause": 1}
    assert "therap" not in str(event.payload) and "train" not in str(event.payload)


def test_a_recall_that_withheld_a_paused_memory_is_a_warning_with_its_count(live_server):
    # given only a paused memory besides the matching ones
    member = member_with_coffee()
    paused = remember(member, subject="train", body="Takes the night train on Fridays").entry
    memory_pause(entry=paused, actor=Actor.of(member))
    # when
    response = recall(live_server, member)
    # then
    assert response.body["audit_envelope"]["suppression_counts"] == {"user-pause": 1}
    event = recall_event(member)
    assert (event.severity, event.payload["suppression_counts"]) == ("warning", {"user-pause": 1})


def test_a_clean_recall_stays_info_with_no_counts(live_server):
    member = member_with_coffee(n=14)
    response = recall(live_server, member)
    assert response.body["audit_envelope"]["suppression_counts"] == {}
    event = recall_event(member)
    assert (event.severity, event.payload["suppression_counts"]) == ("info", {})
