"""Memory test data, written through the one write path every caller uses."""

import json

from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from memory.contracts import MemoryWriteRequest
from memory.services import RememberResult, memory_remember
from tests.consent.factories import record
from tests.iris_site.factories import MemberFactory

# Every stored scope needs processing and storage consent (memory.policy SCOPE_BLUEPRINTS).
BASE_CONSENTS = ("data_processing", "data_storage")


def consenting_member(*consents: str, tenants=()):
    """A member who granted the base consents plus `consents` (e.g. "category:medical")."""
    member = MemberFactory(tenants=list(tenants))
    for consent_type in (*BASE_CONSENTS, *consents):
        record(member, consent_type)
    return member


def write_request(member, **fields) -> MemoryWriteRequest:
    data = {
        "scope": {"kind": "profile"},
        "category": "preference",
        "body": "I take my coffee black",
        "origin": "user-stated",
        **fields,
    }
    return MemoryWriteRequest.model_validate(data, context={"user_id": member.pk})


def remember(member, *, actor=None, consumer=None, now=None, **fields) -> RememberResult:
    """`memory_remember` with a sensible default write; `fields` override it."""
    return memory_remember(
        member=member,
        write=write_request(member, **fields),
        actor=actor or Actor.of(member),
        consumer=consumer,
        now=now,
    )


def memory_audit(member, action: str | None = None):
    """The member's episodic memory events, oldest first."""
    events = AuditEvent.objects.filter(target_member_id=member.pk, action__startswith="memory.")
    if action is not None:
        events = events.filter(action=action)
    return list(events.order_by("sequence"))


def assert_no_audit_mentions(*texts: str) -> None:
    """No audit payload anywhere carries these texts (bodies stay out of the chain)."""
    for event in AuditEvent.objects.all():
        payload = json.dumps(event.payload).casefold()
        for text in texts:
            assert text.casefold() not in payload, (event.action, text)
