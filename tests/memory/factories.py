"""Memory test data, written through the one write path every caller uses."""

import dataclasses
import json
import uuid

from iris_site.audit.enums import ActorType
from iris_site.audit.events import Actor
from iris_site.audit.selectors import action_prefix_q, action_q
from iris_site.models import AuditEvent
from memory.contracts import MemoryWriteRequest
from memory.services import RememberResult, memory_confirm, memory_remember
from memory.sweeps.auto_forget import member_memory_settings_set
from memory.turns import conversation_turn_append
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


# An operator writing copilot notes in tests (origins are bound to the writer).
TEST_OPERATOR = Actor(ActorType.OPERATOR, uuid.UUID(int=7), "support")
INFERENCE_JOB = Actor.system("test-inference")


def writer_for(member, origin: str) -> Actor:
    """The writer that may assert `origin` (`memory.access.origins`): the member for their own
    word, an operator for copilot notes, a job for inferences, summaries and imports."""
    if origin == "user-stated":
        return Actor.of(member)
    if origin == "operator-copilot":
        return TEST_OPERATOR
    return INFERENCE_JOB


def remember(
    member, *, actor=None, consumer=None, now=None, session_id=None, **fields
) -> RememberResult:
    """`memory_remember` with a sensible default write; `fields` override it. Without an
    `actor`, the write comes from whoever may assert its origin; `user-confirmed` is an
    inference the member then confirms, the only way that origin arises."""
    if fields.get("origin") == "user-confirmed" and actor is None:
        result = remember(
            member, consumer=consumer, now=now, **fields | {"origin": "model-inferred"}
        )
        if not result.created:
            return result
        entry = memory_confirm(entry=result.entry, actor=Actor.of(member))
        return dataclasses.replace(result, entry=entry)
    write = write_request(member, **fields)
    actor = actor or writer_for(member, write.origin)
    if session_id is None:
        # A surface writes from a conversation (a profile write without one is refused).
        session_id = "s-1" if actor.type == ActorType.SERVICE else ""
    return memory_remember(
        member=member,
        write=write,
        actor=actor,
        consumer=consumer,
        session_id=session_id,
        now=now,
    )


def memory_audit(member, action: str | None = None):
    """The member's episodic memory events, oldest first (those once or still named
    `memory.*`: the short-term ones are `hierarchy.stm.*` now)."""
    events = AuditEvent.objects.filter(action_prefix_q("memory."), target_member_id=member.pk)
    if action is not None:
        events = events.filter(action_q(action))
    return list(events.order_by("sequence"))


def assert_no_audit_mentions(*texts: str) -> None:
    """No audit payload anywhere carries these texts (bodies stay out of the chain)."""
    for event in AuditEvent.objects.all():
        payload = json.dumps(event.payload).casefold()
        for text in texts:
            assert text.casefold() not in payload, (event.action, text)


def member_turn(member, text: str = "I said so myself", session_id: str = "s-1") -> str:
    """A turn the member spoke, stored; its id, for `session-turn` provenance."""
    turn = conversation_turn_append(
        member=member,
        session_id=session_id,
        speaker="member",
        text=text,
        consumer="assistant",
        actor=INFERENCE_JOB,
    )
    return str(turn.pk)


def quoting(*turn_ids: str) -> list[dict]:
    """`session-turn` provenance naming the member's turns: what lets a surface write the
    member's own word (`user-stated`)."""
    return [
        {"kind": "session-turn", "ref": turn_id, "captured_at": "2026-11-30T10:00:00Z"}
        for turn_id in turn_ids
    ]


def memory_settings(member, **fields):
    """The member's own memory settings, as they set them: ``fields`` over the defaults
    (nothing stopped, no auto-forget, no paused surface)."""
    values = {"stop_using": False, "auto_forget_months": {}, "paused_consumers": [], **fields}
    return member_memory_settings_set(member=member, actor=Actor.of(member), **values)


def stored(instance, field: str):
    """What the database holds in ``field`` of ``instance``'s row (no field converts it:
    a sealed column reads as its `iris1:` token)."""
    from django.db import connection

    meta = type(instance)._meta
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {quote(meta.get_field(field).column)} FROM {quote(meta.db_table)}"
            f" WHERE {quote(meta.pk.column)} = %s",
            [meta.pk.get_db_prep_value(instance.pk, connection)],
        )
        return cursor.fetchone()[0]
