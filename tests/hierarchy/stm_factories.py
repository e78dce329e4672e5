"""Short-term memory test data, written through the services every caller uses."""

import json

from hierarchy.stm import stm_write
from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory, ServiceClientFactory

BASE_CONSENTS = ("data_processing", "data_storage")


def member_with(*consents: str, tenants=()):
    member = MemberFactory(tenants=list(tenants))
    for consent_type in (*BASE_CONSENTS, *consents):
        record(member, consent_type)
    return member


def service_actor(consumer: str = "assistant") -> Actor:
    return Actor.of(ServiceClientFactory(consumer=consumer))


def write(member, *, actor=None, **fields):
    data = {
        "scope_kind": "user_session",
        "scope_id": "s-1",
        "category": "preference",
        "content": "prefers morning walks",
        **fields,
    }
    return stm_write(member=member, actor=actor or service_actor(), **data)


def events(action: str, **payload) -> list[AuditEvent]:
    found = AuditEvent.objects.filter(action=action).order_by("sequence")
    return [e for e in found if all(e.payload.get(k) == v for k, v in payload.items())]


def assert_no_content_in_chain(*texts: str) -> None:
    for event in AuditEvent.objects.all():
        payload = json.dumps(event.payload).casefold()
        for text in texts:
            assert text.casefold() not in payload, (event.action, text)
