"""The revision layer every writer of an entry shares: a snapshot of the entry as a new
immutable revision, the head moved to it, its audit event, its entities re-derived; and
the row lock every writer takes on an entry before it changes it.

The write path (`memory.services`) and the erasure service (`memory.forgetting.erasure`)
both append revisions here, so neither imports the other for it.
"""

from datetime import datetime

from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, actor_token, audit_event_append, iso, member_chain_lock
from iris_site.errors import Conflict
from memory.changes import entry_corrected
from memory.entities.derive import entry_entities_sync
from memory.enums import EntryAuditAction, Lifecycle
from memory.models import (
    MemoryEntry,
    MemoryRevision,
)
from memory.selectors import (
    multi_actor_of,
    scope_of,
    suppression_of,
)

POLICY_ID = "iris.memory.entries.v1"
# What a revision snapshots: the entry's contract content, not its usage counters.
CONTENT_FIELDS = (
    "scope",
    "category",
    "subject",
    "body",
    "origin",
    "lifecycle",
    "confidence",
    "suppression",
    "multi_actor",
    "provenance_chain",
    "consent",
    "expires_at",
)


def entry_content(entry: MemoryEntry) -> dict:
    suppression = suppression_of(entry)
    multi_actor = multi_actor_of(entry)
    return {
        "scope": scope_of(entry),
        "category": entry.category,
        "subject": entry.subject,
        "body": entry.body,
        "origin": entry.origin,
        "lifecycle": entry.lifecycle,
        "confidence": entry.confidence,
        "suppression": suppression.model_dump(mode="json") if suppression else None,
        "multi_actor": multi_actor.model_dump(mode="json") if multi_actor else None,
        "provenance_chain": entry.provenance_chain,
        "consent": entry.consent,
        "expires_at": iso(entry.expires_at) if entry.expires_at else None,
    }


def entry_audit(
    action: str,
    *,
    entry: MemoryEntry,
    actor: Actor,
    severity: str = Severity.INFO,
    **payload,
) -> None:
    audit_event_append(
        action=AuditAction.of("memory.entry", action),
        policy_id=POLICY_ID,
        actor=actor,
        severity=severity,
        target_member_id=entry.member_id,
        target_tenant_id=entry.tenant_id,
        payload={
            "entry_id": str(entry.pk),
            "revision_id": str(entry.revision_id),
            "category": entry.category,
            "scope_kind": entry.scope_kind,
            **payload,
        },
    )


def revision_append(
    entry: MemoryEntry, *, action: str, actor: Actor, now: datetime, restated: bool = True
) -> None:
    """Snapshot the entry as a new immutable revision and move the head to it.

    ``restated=False``: the revision changes whether the memory is used, not what it
    states (a pause, a resume), so its ``updated_at`` stays: recency, a conflict's
    freshness, retention and the member's auto-forget all count from when it was last
    stated, and pausing then resuming a memory must not restart its auto-forget clock."""
    content = entry_content(entry)
    previous = entry.revision
    changed = (
        sorted(k for k in CONTENT_FIELDS if previous.content.get(k) != content.get(k))
        if previous
        else []
    )
    revision = MemoryRevision(
        entry=entry,
        member_id=entry.member_id,
        previous_revision=previous,
        number=entry.revision_count + 1,
        action=action,
        actor=actor_token(actor),
        content=content,
        changed_fields=changed,
        created_at=now,
    )
    revision.save(force_insert=True)
    entry.revision = revision
    entry.revision_count = revision.number
    if restated:
        entry.updated_at = now
    entry.save()
    entry_audit(action, entry=entry, actor=actor, revision_number=revision.number)
    entry_entities_sync(entry=entry, actor=actor, now=now)
    if previous is not None and (
        action == EntryAuditAction.SUPERSEDED or (action == EntryAuditAction.EDITED and changed)
    ):
        # What a surface was given is no longer the fact: it refreshes.
        entry_corrected(entry, replaced_revision_id=previous.pk, now=now)


def entry_lock(entry: MemoryEntry) -> MemoryEntry:
    """Re-read the entry under a row lock so concurrent edits queue, never interleave.

    The member's audit chain first (`member_chain_lock`, re-entrant: a member-locked
    writer already holds it): a recall holds the chain while it counts the entries it
    returned, so a pause or resume that locked the entry and then waited for the chain
    to record it deadlocked against that recall."""
    member_chain_lock(entry.member_id)
    # The head revision is read after the lock, never joined into the locking query: on
    # PostgreSQL a waiter re-checks only the locked row and would keep the joined (old)
    # revision, linking its new revision to the wrong predecessor.
    locked = MemoryEntry.objects.select_for_update().get(pk=entry.pk)
    refuse_tombstoned(locked)
    return locked


def refuse_tombstoned(entry: MemoryEntry) -> None:
    if entry.lifecycle == Lifecycle.TOMBSTONED:
        raise Conflict("This memory was forgotten; it can no longer change.", code="tombstoned")
