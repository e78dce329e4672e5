"""Issue 44, "Must show": every kind of change — a correction, a consent withdrawal, a
person forget and a data-rights hard delete of every scope — reaches by webhook exactly
the surfaces that received the memory, over real HTTP to real loopback receivers, by the
task as the worker runs it, each request verified with the Standard Webhooks library; a
surface that received nothing is sent nothing."""

import json

import pytest
from standardwebhooks.webhooks import Webhook

from iris_site.audit.events import Actor
from iris_site.models import ServiceClient
from memory.entities.services import entity_retire
from memory.enums import EntityKind, ScopeKind
from memory.models import MemoryEntity
from tests.conftest import http_request
from tests.consent.factories import record
from tests.datarights.factories import HARD_DELETE, process, submit
from tests.memory.factories import consenting_member, remember
from tests.memory.test_change_events import COFFEE, PENICILLIN, Surfaces
from tests.memory.test_full_clear import token_of
from tests.webhooks.factories import endpoint_for
from webhooks.tasks import deliver_webhooks

pytestmark = pytest.mark.django_db(transaction=True)

CONSUMERS = ("assistant", "shell", "tara")


class Hooks:
    """A loopback receiver and an endpoint for each surface; what each was sent since
    the last look, every request verified with its client's secret."""

    def __init__(self, receivers) -> None:
        self.receivers, self.secrets, self.seen = {}, {}, dict.fromkeys(CONSUMERS, 0)
        for consumer in CONSUMERS:
            self.receivers[consumer] = receivers()
            client = ServiceClient.objects.get(consumer=consumer)
            _, self.secrets[consumer] = endpoint_for(self.receivers[consumer].url, client=client)

    def deliver(self) -> dict[str, list[dict]]:
        """Run the task until nothing is left to send; each surface's new events."""
        while True:
            counts = deliver_webhooks.call()
            assert counts["failed"] == 0, counts
            if not counts["delivered"]:
                break
        sent = {}
        for consumer, receiver in self.receivers.items():
            new = receiver.requests[self.seen[consumer] :]
            self.seen[consumer] = len(receiver.requests)
            sent[consumer] = [
                Webhook(self.secrets[consumer]).verify(r.body, r.headers) for r in new
            ]
            for request, event in zip(new, sent[consumer], strict=True):
                assert request.headers["webhook-id"] == event["id"]
        return sent


def test_every_change_type_reaches_the_webhooks_of_its_recipients_and_no_other(
    live_server, webhook_settings, receivers
):
    member = consenting_member("category:medical")
    coffee = remember(member, subject="coffee", body=COFFEE).entry
    allergy = remember(member, category="medical", subject="allergy", body=PENICILLIN).entry
    surfaces = Surfaces(live_server, member)  # the service clients of the three surfaces
    hooks = Hooks(receivers)
    surfaces.recall("shell", "coffee")  # before the sister is mentioned: never given her
    remember(
        member,
        category="relationship",
        body="My sister Quorvex7 lives by the harbour",
        multi_actor={"actor_name": "Quorvex7", "relationship_note": "sister"},
    )
    assert str(allergy.pk) in surfaces.recall("assistant", "coffee penicillin", "health")
    surfaces.recall("assistant", "harbour sister")
    # tara recalls nothing: it is given nothing, and must be sent nothing
    me = token_of(member)

    # a correction: the member edits the coffee fact; both recipients refresh
    edited = http_request(
        f"{live_server.url}/api/v1/me/memories/{coffee.pk}/",
        method="PATCH",
        token=me,
        body={"body": "I take my coffee with oat milk"},
    )
    assert edited.status == 200, edited.body
    sent = hooks.deliver()
    for consumer in ("assistant", "shell"):
        [event] = sent[consumer]
        assert event["type"] == "memory.corrected" and event["entry_ids"] == [str(coffee.pk)]
        assert event["member_id"] == str(member.pk)
        assert "coffee" not in json.dumps(event)
    assert sent["tara"] == []

    # a consent withdrawal: told, by name, only to the surface given medical memory
    record(member, "category:medical", kind="withdrawal")
    sent = hooks.deliver()
    told = [e for e in sent["assistant"] if e["type"] == "consent.withdrawn"]
    assert len(told) == 1, sent["assistant"]
    assert told[0]["consent_type"] == "category:medical"
    assert told[0]["entry_ids"] == [str(allergy.pk)]
    assert sent["shell"] == [] and sent["tara"] == []

    # a person forget: told to the surface given memory about them
    person = MemoryEntity.objects.get(member=member, kind=EntityKind.PERSON)
    entity_retire(member=member, entity_id=person.pk, actor=Actor.of(member))
    sent = hooks.deliver()
    [event] = sent["assistant"]
    assert event["type"] == "person.forgotten" and event["entity_ids"] == [str(person.pk)]
    assert "Quorvex" not in json.dumps(event)
    assert sent["shell"] == [] and sent["tara"] == []

    # a data-rights hard delete of every scope: every surface ever given memory is told
    every_scope = {**HARD_DELETE, "scopes": list(ScopeKind.values)}
    request = process(submit(member, "delete", every_scope))
    assert request.status == "completed", request.progress
    sent = hooks.deliver()
    for consumer in ("assistant", "shell"):
        erased = [e for e in sent[consumer] if e["type"] == "member.erased"]
        assert len(erased) == 1, sent[consumer]
        assert erased[0]["member_id"] == str(member.pk)
    assert sent["tara"] == []
    assert hooks.receivers["tara"].connections == 0  # not even a connection
