"""Data-rights test helpers: requests are made and processed through the services."""

from datarights.models import DataRightsRequest
from datarights.processing import datarights_process
from datarights.services import datarights_request_submit
from iris_site.audit.events import Actor
from iris_site.models import AuditEvent
from tests.memory.factories import consenting_member, remember

__all__ = ["consenting_member", "remember"]

EXPORT = {
    "scopes": ["profile", "session"],
    "format": "json",
    "include_consents": True,
    "include_opt_outs": True,
    "include_notebooks": True,
    "include_session_memory": True,
    "delivery_channel": "download",
    "encrypted": False,
}
HARD_DELETE = {
    "mode": "hard",
    "scopes": ["profile"],
    "categories": [],
    "purge_consent_ledger": False,
    "retention_grace_ms": 0,
}
DAY_MS = 86_400_000
SOFT_DELETE = {"mode": "soft", "scopes": ["profile"], "retention_grace_ms": 2 * DAY_MS}
ACCESS = {"include_operator_actions": True}
PAYLOADS = {"export": EXPORT, "delete": HARD_DELETE, "access": ACCESS}


def submit(member, kind: str = "export", payload=None, *, session=True, passphrase=None, now=None):
    return datarights_request_submit(
        member=member,
        kind=kind,
        payload=PAYLOADS[kind] if payload is None else payload,
        actor=Actor.of(member),
        signed_in_session=session,
        passphrase=passphrase,
        now=now,
    )


def process(request, *, now=None) -> DataRightsRequest:
    datarights_process(request_id=request.pk, now=now)
    request.refresh_from_db()
    return request


def trail_events(request) -> list[str]:
    return list(request.trail.order_by("sequence").values_list("event", flat=True))


def audit_for(request, action: str | None = None) -> list[AuditEvent]:
    """The episodic events that name this request, oldest first."""
    events = [
        e
        for e in AuditEvent.objects.filter(target_member_id=request.member_id).order_by("sequence")
        if e.payload.get("request_id") == str(request.pk)
        or e.payload.get("dsar_request_id") == str(request.pk)
    ]
    if action is not None:
        events = [e for e in events if e.action == action]
    return events
