"""Justified reads of member data by operators and the CLI.

Every such read needs a justification; the text is kept in an append-only
`OperatorAccessRecord` (the chain refuses free text) and the audit event names the record.
"""

from django.db import transaction
from django.utils import timezone

from hierarchy.models import OperatorAccessRecord
from iris_site.audit.events import Actor, audit_event_append
from iris_site.errors import InvalidInput

POLICY_ID = "iris.hierarchy.operator_access.v1"
MIN_JUSTIFICATION_CHARS = 10
MAX_JUSTIFICATION_CHARS = 1000


def justification_clean(value: str | None) -> str:
    text = (value or "").strip()
    if "\x00" in text or len(text) < MIN_JUSTIFICATION_CHARS:
        raise InvalidInput(
            "Reading member data needs a justification.",
            code="justification-required",
            fields={
                "justification": [f"Say why, in at least {MIN_JUSTIFICATION_CHARS} characters."]
            },
        )
    if len(text) > MAX_JUSTIFICATION_CHARS:
        raise InvalidInput(
            fields={"justification": [f"At most {MAX_JUSTIFICATION_CHARS} characters."]}
        )
    return text


@transaction.atomic
def access_record_append(
    *,
    action: str,
    actor: Actor,
    justification: str,
    target_member_id=None,
    payload: dict | None = None,
) -> OperatorAccessRecord:
    """Keep the justification, then record the read on the chain by the record's id."""
    record = OperatorAccessRecord(
        action=action,
        actor_type=actor.type,
        actor_id=actor.id,
        actor_role=actor.role,
        target_member_id=target_member_id,
        justification=justification_clean(justification),
        created_at=timezone.now(),
    )
    record.save(force_insert=True)
    audit_event_append(
        action=action,
        policy_id=POLICY_ID,
        actor=actor,
        target_member_id=target_member_id,
        payload={"access_record_id": str(record.pk), **(payload or {})},
    )
    return record


def operator_read_audit(*, action: str, actor: Actor, payload: dict | None = None) -> None:
    """A read of metadata only (counts, the replay timeline): audited, no justification."""
    audit_event_append(action=action, policy_id=POLICY_ID, actor=actor, payload=payload or {})
