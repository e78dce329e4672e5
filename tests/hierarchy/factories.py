import contextlib
from collections.abc import Iterator

from django.db import transaction

from iris_site.audit.actions import AuditAction
from iris_site.audit.events import Actor, audit_event_append
from iris_site.models import AuditCheckpoint, AuditEvent
from tests.tamper import owner_tamper


def append_events(count: int, *, member_id=None) -> list:
    return [
        audit_event_append(
            action=AuditAction.IRIS_SITE_AUDIT_BENCH_APPENDED,
            policy_id="iris-test-v1",
            actor=Actor.system(),
            target_member_id=member_id,
            payload={"index": index},
        )
        for index in range(count)
    ]


@contextlib.contextmanager
def tampering() -> Iterator[None]:
    """Act as an attacker who holds the database itself (the tables' owner), not as
    Iris: the audit tables' append-only guard is off for one transaction."""
    with transaction.atomic(), owner_tamper(AuditEvent, AuditCheckpoint):
        yield
