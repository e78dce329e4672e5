"""Refused writes leave a trace: one `memory.write.refused` event per refusal.

Every write path (remember, turn append, short-term writes, consolidation) calls
`audit_write_refused` from an `except` placed *after* its atomic block, so the event is
written in its own transaction (or savepoint) and survives the rolled-back write. The
event carries the write kind, the stable reason code, the HTTP status, the consumer and
the scope kind: identifiers and counts only, never what the surface tried to store.

Usage::

    try:
        with transaction.atomic():
            ...  # the write
    except DomainError as exc:
        audit_write_refused(exc, write="turn", actor=actor, member_id=member.pk,
                            consumer=consumer, scope_kind=None)
        raise
"""

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from django.db import DatabaseError, transaction

from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.policy import PayloadRejected, _vet_string
from iris_site.errors import DomainError
from iris_site.models import AuditEvent

logger = logging.getLogger(__name__)

WRITE_REFUSED_ACTION = AuditAction.MEMORY_WRITE_REFUSED
POLICY_ID = "iris.iris_site.write_refusals.v1"
# A refusal is a policy or permission saying no to a well-formed write; 400s (malformed
# input) and 404s (not there, or not yours) are not counted.
REFUSAL_STATUSES = frozenset({403, 409, 422})


class WriteKind:
    """The `write` values the refusal counter groups by."""

    REMEMBER = "remember"
    TURN = "turn"
    SHORT_TERM = "short-term"
    CONSOLIDATE = "consolidate"
    COPILOT_NOTE = "copilot-note"


def is_write_refusal(exc: BaseException) -> bool:
    return isinstance(exc, DomainError) and exc.status_code in REFUSAL_STATUSES


def _token_or_none(value: Any) -> str | None:
    """A value the chain may keep (an identifier or enum token), else None: a surface's
    free text never reaches the payload even through a field meant for a token."""
    if value is None:
        return None
    text = str(value)
    try:
        _vet_string("", text)
    except PayloadRejected:
        return None
    return text


def refusal_payload(
    *,
    write: str,
    reason: str,
    status: int,
    consumer: str | None,
    scope_kind: str | None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The payload of a `memory.write.refused` event (pure)."""
    payload: dict[str, Any] = {
        "write": write,
        "reason": _token_or_none(reason) or "invalid",
        "status": int(status),
        "consumer": _token_or_none(consumer),
        "scope_kind": _token_or_none(scope_kind),
    }
    for key, value in (extra or {}).items():
        if key not in payload:
            payload[key] = value if isinstance(value, bool | int) else _token_or_none(value)
    return payload


def audit_write_refused(
    exc: BaseException,
    *,
    write: str,
    actor: Actor,
    member_id: uuid.UUID | None,
    consumer: str | None = None,
    scope_kind: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> AuditEvent | None:
    """Record that a write was refused, if `exc` is a refusal (a DomainError with status
    403/409/422); return the event, or None when nothing was recorded.

    Call it outside the failed write's atomic block and re-raise `exc` afterwards. It
    never raises: a refusal must reach the caller as itself, so a failure to audit is
    logged, not substituted for it. When the surrounding transaction is already doomed
    (a caller's atomic block marked for rollback), nothing can be written and it says so
    in the log.
    """
    if not is_write_refusal(exc):
        return None
    payload = refusal_payload(
        write=write,
        reason=exc.code,
        status=exc.status_code,
        consumer=consumer,
        scope_kind=scope_kind,
        extra=extra,
    )
    connection = transaction.get_connection()
    if connection.in_atomic_block and connection.needs_rollback:
        logger.warning("write refusal not audited: transaction marked for rollback (%s)", payload)
        return None
    try:
        return audit_event_append(
            action=WRITE_REFUSED_ACTION,
            policy_id=POLICY_ID,
            actor=actor,
            severity=Severity.WARNING,
            target_member_id=member_id,
            payload=payload,
        )
    except (DatabaseError, DomainError):
        logger.exception("write refusal not audited (%s)", payload)
        return None
