import uuid
from datetime import UTC, datetime

from continuity.contracts import token_parse
from continuity.services import continuation_token_write
from iris_site.audit.events import Actor
from iris_site.audit.policy import vet_payload
from iris_site.models import AuditEvent
from tests.conftest import bearer_client
from tests.iris_site.factories import ServiceClientFactory

T0 = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)


def token_body(member_id=None, **overrides) -> dict:
    """A valid ContinuationToken body (snake_case wire form) for `member_id`."""
    surface = overrides.pop("surface", "tara")
    body = {
        "token_id": str(uuid.uuid4()),
        "user_id": str(member_id or uuid.uuid4()),
        "scope_key": "session:s-1",
        "device_id": "laptop-1",
        "surface_context": {"surface": surface, "session_id": "s-1", "tenant_id": None},
        "anchor_ref": {"surface": surface, "anchor_id": "chapter-4", "cursor": "00:14:32"},
        "posture": "listening",
        "sensitive_categories": [],
        "cross_device_consent_id": None,
        "idempotency_key": f"k-{uuid.uuid4().hex[:12]}",
        "last_updated_at": "2026-11-30T10:00:00Z",
    }
    body.update(overrides)
    return body


def write(member, *, now=None, consumer=None, client=None, **overrides):
    """Write through the one service, as a surface of the token's own kind: as the
    authenticated service `client` when given (it is recorded as the writer), else as a
    system write that records none."""
    contract = token_parse(token_body(member.pk, **overrides))
    return continuation_token_write(
        member=member,
        contract=contract,
        consumer=consumer or (client.consumer if client else contract.surface),
        actor=Actor.of(client) if client else Actor.system("test"),
        client=client,
        now=now,
    )


def surface_client(consumer: str):
    return bearer_client(ServiceClientFactory(consumer=consumer))


def audit_events(action: str, member=None) -> list[AuditEvent]:
    events = AuditEvent.objects.filter(action=action).order_by("sequence")
    if member is not None:
        events = events.filter(target_member_id=member.pk)
    return list(events)


def assert_no_free_text(event: AuditEvent, *forbidden: str) -> None:
    """The payload passes the chain's vetting and none of the client's strings leaked."""
    vet_payload(event.payload)
    flat = repr(event.payload)
    for text in forbidden:
        assert text not in flat, f"{text!r} leaked into {event.action}"
