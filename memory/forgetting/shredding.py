"""Crypto-shredding: erasing everything of a member destroys their data keys.

A full clear's purge and a data-rights delete of everything end in `memory_erase` with
`purge` and `everything`; it calls `member_keys_after_purge` in its own transaction. Once
that transaction commits (`transaction.on_commit`: a rolled-back erasure keeps its keys,
so nothing it did not erase becomes unreadable), the member's keys are destroyed in the
key store (`iris_site.keys.envelope.shred`): whatever any copy of the main database
holds of theirs — a replica, a WAL archive, a backup — no longer opens.

Unless something of the member is still sealed after the erasure (content under a
deletion hold the erasure left, a column no store erases): destroying the key would
destroy that content too. Then the key is kept, and the chain says why
(`memory.member_keys.kept`: the tables and counts, never a value); the shred is pending
and happens after a later purge of the member leaves nothing sealed (`memory_erase`
asks on every purge while one is pending: the held content's own erasure when its grace
window ends) or at the scheduled sweep (`member_keys_shred_due`). A destroy that fails
after the erasure committed (the key store down) is a critical event
(`memory.member_keys.shred_failed`, an operator alert) and is pending the same way.

One key per member (per generation): everything the member writes after the erasure and
before a pending shred happens is sealed under the same key and goes with it. The member
writes again after a shred under a new generation (`envelope.write_key`). A write that
lands between the erasure's commit and the destroy (the window of one key-store
statement; the member lock is released at the commit) is sealed under the destroyed
generation and reads as erased.
"""

import logging
from collections import defaultdict
from functools import cache, partial

from django.apps import apps
from django.db import transaction
from django.db.models import Q

from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.keys import envelope
from iris_site.keys.fields import SealedTextField
from iris_site.keys.store import KeyStoreUnavailable
from iris_site.models import AuditEvent
from iris_site.services import member_lock

logger = logging.getLogger("iris.keys")

POLICY_ID = "iris.memory.entries.v1"
SHRED_ACTIONS = (
    AuditAction.MEMORY_MEMBER_KEYS_SHREDDED,
    AuditAction.MEMORY_MEMBER_KEYS_KEPT,
    AuditAction.MEMORY_MEMBER_KEYS_SHRED_FAILED,
)
PENDING = {AuditAction.MEMORY_MEMBER_KEYS_KEPT, AuditAction.MEMORY_MEMBER_KEYS_SHRED_FAILED}


@cache
def sealed_columns() -> tuple[tuple[type, tuple[tuple[str, tuple[str, ...]], ...]], ...]:
    """Every model with sealed fields, each with its member lookups (`member_field` as a
    query path) and the sealed fields under each: the whole inventory, from the models."""
    found = []
    for model in apps.get_models():
        by_member: dict[str, list[str]] = defaultdict(list)
        for field in model._meta.concrete_fields:
            if isinstance(field, SealedTextField):
                by_member[field.member_field.replace(".", "__")].append(field.name)
        if by_member:
            found.append((model, tuple((k, tuple(v)) for k, v in sorted(by_member.items()))))
    return tuple(found)


def _holding(names: tuple[str, ...]) -> Q:
    q = Q()
    for name in names:
        q |= Q(**{f"{name}__isnull": False}) & ~Q(**{name: ""})
    return q


def member_sealed_remaining(member_id) -> dict[str, int]:
    """Rows that still hold a sealed value of the member, by table (counts only)."""
    remaining: dict[str, int] = {}
    for model, lookups in sealed_columns():
        q = Q()
        for lookup, names in lookups:
            q |= Q(**{lookup: member_id}) & _holding(names)
        count = model._base_manager.filter(q).count()
        if count:
            remaining[model._meta.db_table] = count
    return remaining


def member_keys_shred_pending(member_id) -> bool:
    """Whether an erasure of everything kept the member's keys, or failed to destroy
    them, and no shred has happened since."""
    last = (
        AuditEvent.objects.filter(target_member_id=member_id, action__in=SHRED_ACTIONS)
        .order_by("-sequence")
        .values_list("action", flat=True)
        .first()
    )
    return last in PENDING


def _said(action: str, severity: str, *, member_id, reason: str, **counts) -> None:
    with transaction.atomic():
        audit_event_append(
            action=action,
            policy_id=POLICY_ID,
            actor=Actor.system(reason),
            severity=severity,
            target_member_id=member_id,
            payload={"reason": reason, **counts},
        )


def member_keys_after_purge(*, member_id, reason: str, everything: bool) -> bool:
    """Called inside a purge's transaction, after its stores erased. Everything of the
    member erased (or a shred pending): destroy their keys once this commits — unless
    something of theirs is still sealed, then keep them (recorded for an erasure of
    everything; a pending one stays pending quietly). Returns whether a shred is queued."""
    if not everything and not member_keys_shred_pending(member_id):
        return False
    remaining = member_sealed_remaining(member_id)
    if remaining:
        if everything:
            _said(
                AuditAction.MEMORY_MEMBER_KEYS_KEPT,
                Severity.WARNING,
                member_id=member_id,
                reason=reason,
                why="sealed-content-remains",
                remaining=remaining,
                remaining_count=sum(remaining.values()),
            )
        return False
    transaction.on_commit(partial(member_keys_shred, member_id=str(member_id), reason=reason))
    return True


def member_keys_shred(*, member_id, reason: str) -> int | None:
    """Destroy the member's keys now (after the erasure committed) and say so on their
    chain; a key store that cannot be reached leaves the shred pending (critical)."""
    try:
        destroyed = envelope.shred(member_id)
    except KeyStoreUnavailable:
        logger.error(
            "a member's keys could not be destroyed after their erasure",
            extra={"member_id": str(member_id), "alert": "member_keys_shred_failed"},
        )
        _said(
            AuditAction.MEMORY_MEMBER_KEYS_SHRED_FAILED,
            Severity.CRITICAL,
            member_id=member_id,
            reason=reason,
        )
        return None
    _said(
        AuditAction.MEMORY_MEMBER_KEYS_SHREDDED,
        Severity.WARNING,
        member_id=member_id,
        reason=reason,
        destroyed_count=destroyed,
    )
    return destroyed


def member_keys_shred_due() -> int:
    """The sweep: every member whose shred is pending and of whom nothing sealed remains
    now (their held content expired or was erased) has their keys destroyed. Returns
    how many members were shredded."""
    latest: dict[str, str] = {}
    for member_id, action in (
        AuditEvent.objects.filter(action__in=SHRED_ACTIONS)
        .order_by("sequence")
        .values_list("target_member_id", "action")
    ):
        latest[str(member_id)] = action
    shredded = 0
    for member_id, action in sorted(latest.items()):
        if action not in PENDING:
            continue
        with transaction.atomic():
            member_lock(member_id=member_id)  # no write lands between the look and the shred
            if member_sealed_remaining(member_id):
                continue
        if member_keys_shred(member_id=member_id, reason="shred-pending") is not None:
            shredded += 1
    return shredded
