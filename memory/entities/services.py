"""Forgetting people and topics: retirement (`entity_retire`, the member's "forget everything
about Sam"; `person_forget`, every mention of an actor handle), the entity content store
the erasure service reaches, and the jobs that archive idle entities and decayed
relationships.

Retirement erases every entry about the entity through
`memory.forgetting.erasure.memory_erase` (the entity store below removes its links and
relationships there), erases its label and keeps only its keyed digest. What a later
mention does: a write tagging a retired person is refused (`actor-retired`,
`memory.forgetting.fingerprints`), a write about a retired subject is stored but not linked
to it; only the member stating it themselves (a member-origin write) re-introduces the
entity.
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor
from iris_site.crypto import keyed_digest
from iris_site.errors import Conflict
from iris_site.services import member_lock
from memory.entities.derive import (
    LIVE_LIFECYCLES,
    entity_audit,
    entity_digest,
    entity_label,
    entity_relationships,
    entity_transition,
    period_replay,
)
from memory.entities.selectors import member_entity_get
from memory.enums import EntityKind, EntityState, Lifecycle
from memory.forgetting import fingerprints
from memory.forgetting.erasure import memory_erase
from memory.forgetting.stores import ContentStore, Erasure, ExtentKind, content_store_register
from memory.models import MemoryEntity, MemoryEntry, MemoryEntryEntity, MemoryRelationship
from memory.policy.names import MentionMatcher

RETIRE_REASON = "entity-retired"


def _erasable(entries) -> list:
    return list(
        entries.filter(~Q(lifecycle=Lifecycle.TOMBSTONED) | Q(erased_digest=""))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _mentioning(*, member_id, names: Sequence[str]) -> list:
    """The member's entries holding text that mention one of these names (body, subject,
    relationship note), in any spelling a reader could not tell apart."""
    matcher = MentionMatcher(names)
    if matcher.empty:
        return []
    rows = (
        MemoryEntry.objects.filter(member_id=member_id, erased_digest="")
        .values_list("pk", "body", "subject", "relationship_note")
        .iterator(chunk_size=2000)
    )
    return [pk for pk, *texts in rows if any(matcher.in_text(t) for t in texts)]


def _retire(
    entity: MemoryEntity, *, entry_ids: Sequence, names: Sequence[str], actor: Actor, now
) -> tuple:
    """Retire the entity (label gone, digest kept), then erase the person extent: its
    entries, every entry, turn, short-term row, relationship and export that mentions one
    of its names; the names are kept as keyed digests so nothing brings them back by
    itself. Returns the ids of the entries tombstoned now."""
    if entity.state != EntityState.RETIRED:
        entity_transition(
            entity, EntityState.RETIRED, actor=actor, by_member=False, reason=RETIRE_REASON, now=now
        )
    entity_relationships(entity).delete()
    entity.entry_links.all().delete()
    return _person_erase(
        member_id=entity.member_id,
        entry_ids=entry_ids,
        names=names,
        actor=actor,
        now=now,
        entity_ids=[entity.pk],
    )


def _person_erase(
    *, member_id, entry_ids: Sequence, names: Sequence[str], actor: Actor, now, entity_ids=()
):
    names = [n for n in names if n]
    wanted = sorted(
        {*map(str, entry_ids), *map(str, _mentioning(member_id=member_id, names=names))}
    )
    report = memory_erase(
        member_id=member_id,
        entry_ids=wanted,
        actor=actor,
        reason=RETIRE_REASON,
        fingerprint=True,
        kind=ExtentKind.PERSON,
        names=names,
        entity_ids=entity_ids,
        now=now,
    )
    fingerprints.names_retire(member_id=member_id, names=names)
    return report.tombstoned_ids


@transaction.atomic
def person_forget(*, member, actor_handle: str, actor: Actor) -> list[uuid.UUID]:
    """Forget every mention of a person: their entries and everything mentioning them are
    erased, their entity retired, and their names refused from now on unless the member
    introduces them again."""
    member_lock(member_id=member.pk)
    now = timezone.now()
    ids = _erasable(MemoryEntry.objects.filter(member=member, actor_handle=actor_handle))
    digest = entity_digest(member_id=member.pk, kind=EntityKind.PERSON, value=actor_handle)
    entity = MemoryEntity.objects.filter(
        member=member, kind=EntityKind.PERSON, digest=digest
    ).first()
    names = [actor_handle]
    if entity is not None:
        names.append(entity_label(entity) or "")
        # Retired first: the erasure drops entities nothing is about, never a retired one.
        tombstoned = _retire(entity, entry_ids=ids, names=names, actor=actor, now=now)
    else:
        tombstoned = _person_erase(
            member_id=member.pk, entry_ids=ids, names=names, actor=actor, now=now
        )
    entity_audit(
        AuditAction.MEMORY_ACTOR_FORGOTTEN,
        member_id=member.pk,
        actor=actor,
        # The handle stands for a person: the chain keeps a keyed digest of it only.
        actor_digest=keyed_digest(actor_handle),
        tombstoned_count=len(tombstoned),
    )
    return list(tombstoned)


@dataclass(frozen=True, slots=True)
class RetireResult:
    entity_id: uuid.UUID
    outcome: str  # "retired", or "already-retired"
    erased_count: int


@transaction.atomic
def entity_retire(*, member, entity_id, actor: Actor) -> RetireResult:
    """ "Forget everything about them": the person (or topic) extent — every entry about
    the entity (for a person, every entry tagging their handle), every entry, turn,
    short-term row, relationship and export file mentioning one of its names (the label
    and, for a person, their handles; `memory.policy.names` decides what is the same
    name) — is erased through `memory_erase`; its label goes, and it stays retired (only
    its digest kept, its names as keyed digests the write paths refuse) until the member
    re-introduces it. Idempotent: retiring a retired entity erases nothing more. The
    member themself is not an entity one retires (that is the full clear): 409
    `entity-self`. Another member's entity, or none: 404."""
    member_lock(member_id=member.pk)
    entity = member_entity_get(member, entity_id, for_update=True)
    before = entity.state
    outcome = "already-retired" if before == EntityState.RETIRED else "retired"
    if entity.kind == EntityKind.SELF:
        outcome = "refused-self"
    entity_audit(
        AuditAction.MEMORY_ENTITY_RETIRE_ATTEMPTED,
        member_id=member.pk,
        actor=actor,
        severity=Severity.WARNING,
        entity_id=str(entity.pk),
        kind=entity.kind,
        from_state=before,
        outcome=outcome,
    )
    if entity.kind == EntityKind.SELF:
        raise Conflict(
            "You are not forgotten one topic at a time; clear all memory instead.",
            code="entity-self",
        )
    if before == EntityState.RETIRED:
        return RetireResult(entity_id=entity.pk, outcome=outcome, erased_count=0)
    linked = MemoryEntry.objects.filter(member=member, entity_links__entity=entity)
    handles = sorted(set(linked.exclude(actor_handle="").values_list("actor_handle", flat=True)))
    now = timezone.now()
    if entity.kind == EntityKind.PERSON:
        linked = MemoryEntry.objects.filter(
            Q(pk__in=linked.values("pk")) | Q(actor_handle__in=handles), member=member
        )
    names = [entity_label(entity) or "", *handles]
    erased = len(_retire(entity, entry_ids=_erasable(linked), names=names, actor=actor, now=now))
    return RetireResult(entity_id=entity.pk, outcome=outcome, erased_count=erased)


# --- The entity store (erasure and residue search) -------------------------------------------


def _doomed_links(erasure: Erasure):
    if erasure.purge and erasure.everything:
        return MemoryEntryEntity.objects.filter(member_id=erasure.member_id)
    return MemoryEntryEntity.objects.filter(
        member_id=erasure.member_id, entry_id__in=erasure.entry_ids
    )


def _doomed_relationships(erasure: Erasure):
    """Relationships the erased entries stated, or whose note repeats their text or
    mentions a forgotten person."""
    rows = MemoryRelationship.objects.filter(member_id=erasure.member_id)
    if erasure.purge and erasure.everything:
        return rows
    repeating = [
        pk for pk, note in rows.exclude(note="").values_list("pk", "note") if erasure.holds(note)
    ]
    return rows.filter(Q(source_entry_id__in=erasure.entry_ids) | Q(pk__in=repeating))


def _orphans(member_id):
    """Entities nothing is about and nothing relates to any more. A retired one stays
    (its digest is what keeps the person from coming back); the others go, with their
    sealed label."""
    return (
        MemoryEntity.objects.filter(member_id=member_id)
        .exclude(state=EntityState.RETIRED)
        .filter(entry_links=None, relationships_out=None, relationships_in=None)
    )


def _entity_store_erase(erasure: Erasure) -> int:
    if erasure.purge and erasure.everything:
        rels, _ = MemoryRelationship.objects.filter(member_id=erasure.member_id).delete()
        rest, _ = MemoryEntity.objects.filter(member_id=erasure.member_id).delete()
        return rels + rest
    doomed = _doomed_relationships(erasure)
    periods = set(doomed.values_list("period_id", flat=True))
    rels, _ = doomed.delete()
    for period_id in periods:  # what only the forgotten statements said goes with them
        period_replay(period_id)
    links, _ = _doomed_links(erasure).delete()
    orphans, _ = _orphans(erasure.member_id).delete()
    return rels + links + orphans


def _entity_store_residue(erasure: Erasure) -> int:
    if erasure.purge and erasure.everything:
        return (
            MemoryRelationship.objects.filter(member_id=erasure.member_id).count()
            + MemoryEntity.objects.filter(member_id=erasure.member_id).count()
        )
    retired_labelled = MemoryEntity.objects.filter(
        member_id=erasure.member_id, state=EntityState.RETIRED
    ).exclude(label="")
    return (
        _doomed_relationships(erasure).count()
        + _doomed_links(erasure).count()
        + retired_labelled.count()
    )


ENTITY_STORE = ContentStore(
    name="entities",
    erase=_entity_store_erase,
    residue=_entity_store_residue,
    order=20,
    # Labels and notes are sealed under the member's key: a plain-text search of the
    # schema cannot see them.
    encrypted=True,
    tables=(
        MemoryEntity._meta.db_table,
        MemoryEntryEntity._meta.db_table,
        MemoryRelationship._meta.db_table,
    ),
    extents={
        ExtentKind.FACT: "deletes the fact's links and the relationships it states or repeats",
        ExtentKind.PERSON: "retires the entity (label gone, keyed digest kept), deletes its "
        "links and every relationship it is in or whose note mentions it",
        ExtentKind.CONVERSATION: "deletes the links and relationships of its erased entries",
        ExtentKind.SCOPE: "deletes the links and relationships of the scope's erased entries",
        ExtentKind.CATEGORY: "deletes the links and relationships of the erased entries",
        ExtentKind.EVERYTHING: "deletes every entity, link and relationship",
    },
)


def entities_store_register() -> None:
    content_store_register(ENTITY_STORE)


# --- Decay and archiving (the retention sweep) ------------------------------------------------


def relationships_decay_due(*, now: datetime) -> int:
    """Archive the relationships whose `decay_at` has come: kept, their interval closed
    at `decay_at` if still open. Returns how many."""
    due = MemoryRelationship.objects.filter(decay_at__lte=now, state=EntityState.ACTIVE)
    count = 0
    for rel in due.iterator():
        rel.state = EntityState.ARCHIVED
        if rel.valid_to is None:
            rel.valid_to = max(rel.decay_at, rel.valid_from)
        rel.save(update_fields=["state", "valid_to"])
        count += 1
    return count


def entities_archive_idle(*, now: datetime, actor: Actor, member_id=None) -> int:
    """Archive the active entities no live entry is about any more (every entry about
    them superseded, drafted or forgotten): shown to the member, not linked as current.
    A new mention makes them active again. Returns how many."""
    entities = MemoryEntity.objects.filter(state=EntityState.ACTIVE).exclude(
        entry_links__entry__lifecycle__in=LIVE_LIFECYCLES
    )
    if member_id is not None:
        entities = entities.filter(member_id=member_id)
    count = 0
    for entity in entities.order_by("member_id", "pk"):
        with transaction.atomic():
            entity_transition(
                entity, EntityState.ARCHIVED, actor=actor, by_member=False, reason="idle", now=now
            )
        count += 1
    return count
