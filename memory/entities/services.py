"""Entities and relationships of long-term memory: derived on the write path, retired
through the erasure service, read by the member and by recall.

Derivation (`entry_entities_sync`, called by `memory.services` on every revision) uses
only what an entry already carries, no model: its actor handle is a *person*, its
conflict-key subject a *subject*, and an entry about no person is about the member
themself (*self*). A person with a relationship note is related to the member (type: the
first relationship word of the note, `memory.entities.policy.relationship_type`); a person
with a subject is related to it (`about`). A relationship holds while the entry that
states it is live: superseding the entry closes the interval (`valid_to`), nothing is
deleted, so recall can be asked what held *as of* a time.

Retirement (`entity_retire`, the member's "forget everything about Sam") erases every
entry about the entity through `memory.forgetting.erasure.memory_erase` (the entity store below
removes its links and relationships there), erases its label and keeps only its keyed
digest. What a later mention does: a write tagging a retired person is refused
(`actor-retired`, `memory.forgetting.fingerprints`), a write about a retired subject is stored but
not linked to it; only the member stating it themselves (a member-origin write)
re-introduces the entity.

Entities are matched by a keyed digest (`iris_site.crypto.keyed_digest`, bound to the
member) of the normalised handle or subject, never by name; labels are Fernet tokens
(`iris_site.crypto.encrypt`), never in audit payloads or logs.
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append, iso
from iris_site.crypto import ContentUnreadable, decrypt, encrypt, keyed_digest
from iris_site.errors import Conflict, NotFound
from iris_site.models import AuditEvent
from iris_site.services import member_lock
from memory import policy
from memory.entities import policy as entity_policy
from memory.enums import EntityKind, EntityState, Lifecycle, Origin
from memory.forgetting import fingerprints
from memory.forgetting.erasure import memory_erase
from memory.forgetting.stores import ContentStore, Erasure, content_store_register
from memory.models import MemoryEntity, MemoryEntry, MemoryEntryEntity, MemoryRelationship

POLICY_ID = "iris-memory-entities-v1"
RETIRE_REASON = "entity-retired"
# Lifecycles of an entry whose relationships still hold (a paused fact is still true).
LIVE_LIFECYCLES = frozenset({Lifecycle.ACTIVE, Lifecycle.PAUSED})


def entity_digest(*, member_id, kind: str, value: str = "") -> str:
    """The keyed digest an entity is found again by (never its name)."""
    normalised = " ".join((value or "").casefold().split())
    return keyed_digest(f"memory-entity\x1f{member_id}\x1f{kind}\x1f{normalised}", length=64)


def entity_label(entity: MemoryEntity) -> str | None:
    """The member-visible name, decrypted; None when there is none (or it is unreadable)."""
    if not entity.label:
        return None
    try:
        return decrypt(entity.label)
    except ContentUnreadable:
        return None


def _audit(action: str, *, member_id, actor: Actor, severity=Severity.INFO, **payload) -> None:
    audit_event_append(
        action=action,
        policy_id=POLICY_ID,
        actor=actor,
        severity=severity,
        target_member_id=member_id,
        payload=payload,
    )


def _transition(
    entity: MemoryEntity, target: str, *, actor: Actor, by_member: bool, reason: str, now
) -> None:
    current = entity.state
    if not entity_policy.entity_transition_allowed(current, target, by_member=by_member):
        raise Conflict(f"An entity cannot move from {current} to {target}.", code="entity-state")
    entity.state = target
    entity.state_changed_at = now
    if target == EntityState.RETIRED:
        entity.label = ""
    entity.full_clean(exclude=["member"])
    entity.save(update_fields=["state", "state_changed_at", "label"])
    _audit(
        "memory.entity.state_transition",
        member_id=entity.member_id,
        actor=actor,
        entity_id=str(entity.pk),
        kind=entity.kind,
        from_state=current,
        to_state=target,
        reason=reason,
    )
    if target == EntityState.ARCHIVED:
        _audit(
            "memory.govern.archived_entity_audit",
            member_id=entity.member_id,
            actor=actor,
            entity_id=str(entity.pk),
            kind=entity.kind,
            entry_count=entity.entry_links.count(),
            open_relationship_count=_relationships_of(entity).filter(valid_to=None).count(),
        )


def _entity(
    *,
    member_id,
    kind: str,
    value: str,
    actor: Actor,
    by_member: bool,
    now,
    label: str = "",
    live: bool = True,
) -> MemoryEntity | None:
    """The member's entity for this handle/subject, created when new, brought back from
    archived by a `live` mention; None for a retired one unless the member re-introduces
    it."""
    digest = entity_digest(member_id=member_id, kind=kind, value=value)
    entity = MemoryEntity.objects.filter(member_id=member_id, kind=kind, digest=digest).first()
    if entity is None:
        entity = MemoryEntity(
            member_id=member_id,
            kind=kind,
            digest=digest,
            label=encrypt(label) if label else "",
            created_at=now,
            state_changed_at=now,
        )
        entity.save(force_insert=True)
        _audit(
            "memory.entity.create",
            member_id=member_id,
            actor=actor,
            entity_id=str(entity.pk),
            kind=kind,
        )
        return entity
    if entity.state == EntityState.RETIRED:
        if not by_member:
            return None
        _transition(
            entity, EntityState.ACTIVE, actor=actor, by_member=True, reason="reintroduced", now=now
        )
    elif entity.state == EntityState.ARCHIVED and live:
        _transition(
            entity,
            EntityState.ACTIVE,
            actor=actor,
            by_member=by_member,
            reason="mentioned",
            now=now,
        )
    if label and entity_label(entity) != label:
        entity.label = encrypt(label)
        entity.save(update_fields=["label"])
    return entity


# --- The write path ---------------------------------------------------------------------------


def person_introduce(
    *, member_id, actor_handle: str, name: str | None, actor: Actor, origin: str, now: datetime
) -> None:
    """A write mentions a person: their entity (created, or re-introduced by the member),
    labelled with the name the write gave, if any. Called before the entry is stored."""
    _entity(
        member_id=member_id,
        kind=EntityKind.PERSON,
        value=actor_handle,
        actor=actor,
        by_member=fingerprints.restated_by_member(actor=actor, origin=origin),
        now=now,
        label=name or "",
    )


@dataclass(frozen=True, slots=True)
class _Wanted:
    entities: dict[str, MemoryEntity]  # role (person / subject / self) → entity
    relationships: set[tuple[uuid.UUID, uuid.UUID, str, str]]  # from, to, type, note


def _wanted(entry: MemoryEntry, *, actor: Actor, now) -> _Wanted:
    by_member = fingerprints.restated_by_member(actor=actor, origin=entry.origin)
    live = entry.lifecycle in LIVE_LIFECYCLES
    found: dict[str, MemoryEntity | None] = {}
    if entry.actor_handle:
        found["person"] = _entity(
            member_id=entry.member_id,
            kind=EntityKind.PERSON,
            value=entry.actor_handle,
            actor=actor,
            by_member=by_member,
            now=now,
            live=live,
        )
    else:
        found["self"] = _entity(
            member_id=entry.member_id,
            kind=EntityKind.SELF,
            value="",
            actor=actor,
            by_member=by_member,
            now=now,
            live=live,
        )
    if entry.subject.strip():
        found["subject"] = _entity(
            member_id=entry.member_id,
            kind=EntityKind.SUBJECT,
            value=entry.subject,
            actor=actor,
            by_member=by_member,
            now=now,
            live=live,
            label=" ".join(entry.subject.split()),
        )
    entities = {role: e for role, e in found.items() if e is not None}
    relationships: set = set()
    if live and (person := entities.get("person")):
        if entry.relationship_note:
            me = _entity(
                member_id=entry.member_id,
                kind=EntityKind.SELF,
                value="",
                actor=actor,
                by_member=by_member,
                now=now,
            )
            note = entry.relationship_note
            relationships.add((me.pk, person.pk, entity_policy.relationship_type(note), note))
        if subject := entities.get("subject"):
            relationships.add((person.pk, subject.pk, entity_policy.ABOUT, ""))
    return _Wanted(entities=entities, relationships=relationships)


def entry_decay_at(entry: MemoryEntry) -> datetime | None:
    """When the entry decays under its envelope and the member's current auto-forget
    choice (`memory.entities.policy.decay_days`), counted from its last assertion."""
    # Imported here: member settings are read by the layers above recall.
    from memory.controls import member_memory_settings_get, months_to_days

    months = member_memory_settings_get(member_id=entry.member_id).auto_forget_months.get(
        entry.scope_kind
    )
    envelope = policy.retention_envelope_for_kind(entry.scope_kind)
    days = entity_policy.decay_days(
        expiry_action=envelope.expiry_action,
        raw_days=envelope.raw_days,
        summary_days=envelope.summary_days,
        summary=entry.origin == Origin.SUMMARIZED_FROM_SESSION,
        auto_forget_days=None if months is None else months_to_days(months),
    )
    return entity_policy.decay_at(asserted_at=entry.updated_at, days=days)


def entry_entities_sync(*, entry: MemoryEntry, actor: Actor, now: datetime) -> None:
    """Bring an entry's entity links, relationships and `decay_at` in line with its new
    revision, just stored. A tombstoned entry is the erasure's: its links and
    relationships went with its text (the entity store)."""
    if entry.lifecycle == Lifecycle.TOMBSTONED:
        return
    decay_at = entry_decay_at(entry)
    if decay_at != entry.decay_at:
        entry.decay_at = decay_at
        MemoryEntry.objects.filter(pk=entry.pk).update(decay_at=decay_at)
    wanted = _wanted(entry, actor=actor, now=now)
    entity_ids = {e.pk for e in wanted.entities.values()}
    links = MemoryEntryEntity.objects.filter(entry=entry)
    links.exclude(entity_id__in=entity_ids).delete()
    have = set(links.values_list("entity_id", flat=True))
    MemoryEntryEntity.objects.bulk_create(
        MemoryEntryEntity(entry=entry, entity_id=pk, member_id=entry.member_id, created_at=now)
        for pk in entity_ids - have
    )
    open_ = MemoryRelationship.objects.filter(source_entry=entry, valid_to=None)
    keep: set = set()
    for rel in open_:
        key = (rel.from_entity_id, rel.to_entity_id, rel.type, rel.note)
        if key in wanted.relationships:
            keep.add(key)
            if rel.decay_at != entry.decay_at:
                rel.decay_at = entry.decay_at
                rel.save(update_fields=["decay_at"])
        else:
            rel.valid_to = now
            rel.save(update_fields=["valid_to"])
    MemoryRelationship.objects.bulk_create(
        MemoryRelationship(
            member_id=entry.member_id,
            from_entity_id=from_id,
            to_entity_id=to_id,
            source_entry=entry,
            type=type_,
            note=note,
            valid_from=now,
            decay_at=entry.decay_at,
            created_at=now,
        )
        for from_id, to_id, type_, note in wanted.relationships - keep
    )


# --- Retirement -------------------------------------------------------------------------------


def _relationships_of(entity: MemoryEntity):
    return MemoryRelationship.objects.filter(
        Q(from_entity=entity) | Q(to_entity=entity), member_id=entity.member_id
    )


def _erasable(entries) -> list:
    return list(
        entries.filter(~Q(lifecycle=Lifecycle.TOMBSTONED) | Q(erased_digest=""))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _retire(entity: MemoryEntity, *, entry_ids: Sequence, actor: Actor, now) -> tuple:
    """Retire the entity (label gone, digest kept), then erase its entries and every
    relationship it is in. Returns the ids of the entries tombstoned now."""
    if entity.state != EntityState.RETIRED:
        _transition(
            entity, EntityState.RETIRED, actor=actor, by_member=False, reason=RETIRE_REASON, now=now
        )
    _relationships_of(entity).delete()
    entity.entry_links.all().delete()
    if not entry_ids:
        return ()
    report = memory_erase(
        member_id=entity.member_id,
        entry_ids=entry_ids,
        actor=actor,
        reason=RETIRE_REASON,
        fingerprint=True,
        now=now,
    )
    return report.tombstoned_ids


@transaction.atomic
def person_forget(*, member, actor_handle: str, actor: Actor) -> list[uuid.UUID]:
    """Forget every mention of a person: their entries are erased, their entity retired,
    and the handle refused from now on unless the member introduces them again."""
    member_lock(member_id=member.pk)
    now = timezone.now()
    ids = _erasable(MemoryEntry.objects.filter(member=member, actor_handle=actor_handle))
    digest = entity_digest(member_id=member.pk, kind=EntityKind.PERSON, value=actor_handle)
    entity = MemoryEntity.objects.filter(
        member=member, kind=EntityKind.PERSON, digest=digest
    ).first()
    if entity is not None:
        # Retired first: the erasure drops entities nothing is about, never a retired one.
        tombstoned = _retire(entity, entry_ids=ids, actor=actor, now=now)
    elif ids:
        tombstoned = memory_erase(
            member_id=member.pk,
            entry_ids=ids,
            actor=actor,
            reason=RETIRE_REASON,
            fingerprint=True,
            now=now,
        ).tombstoned_ids
    else:
        tombstoned = ()
    # The next mention must not bring the person back (`memory.forgetting.fingerprints`).
    fingerprints.actor_handle_retire(member_id=member.pk, actor_handle=actor_handle)
    _audit(
        "memory.actor.forgotten",
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


def _member_entity(member, entity_id, *, for_update: bool = False) -> MemoryEntity:
    try:
        pk = uuid.UUID(str(entity_id))
    except ValueError:
        raise NotFound() from None
    rows = MemoryEntity.objects.filter(member=member, pk=pk)
    entity = (rows.select_for_update() if for_update else rows).first()
    if entity is None:
        raise NotFound()
    return entity


@transaction.atomic
def entity_retire(*, member, entity_id, actor: Actor) -> RetireResult:
    """ "Forget everything about them": every entry about the entity (for a person, every
    entry tagging their handle) is erased through `memory_erase`, its relationships and
    label go, and it stays retired (only its digest kept) until the member re-introduces
    it. Idempotent: retiring a retired entity erases nothing more. The member themself
    is not an entity one retires (that is the full clear): 409 `entity-self`. Another
    member's entity, or none: 404."""
    member_lock(member_id=member.pk)
    entity = _member_entity(member, entity_id, for_update=True)
    before = entity.state
    outcome = "already-retired" if before == EntityState.RETIRED else "retired"
    if entity.kind == EntityKind.SELF:
        outcome = "refused-self"
    _audit(
        "memory.govern.retire_attempt",
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
    erased = len(_retire(entity, entry_ids=_erasable(linked), actor=actor, now=now))
    if entity.kind == EntityKind.PERSON:
        for handle in handles:
            fingerprints.actor_handle_retire(member_id=member.pk, actor_handle=handle)
    return RetireResult(entity_id=entity.pk, outcome=outcome, erased_count=erased)


# --- The entity store (erasure and residue search) -------------------------------------------


def _doomed_links(erasure: Erasure):
    if erasure.purge and erasure.everything:
        return MemoryEntryEntity.objects.filter(member_id=erasure.member_id)
    return MemoryEntryEntity.objects.filter(
        member_id=erasure.member_id, entry_id__in=erasure.entry_ids
    )


def _doomed_relationships(erasure: Erasure):
    """Relationships the erased entries stated, or whose note repeats their text."""
    rows = MemoryRelationship.objects.filter(member_id=erasure.member_id)
    if erasure.purge and erasure.everything:
        return rows
    repeating = [
        pk
        for pk, note in rows.exclude(note="").values_list("pk", "note")
        if erasure.matcher.text_in(note)
    ]
    return rows.filter(Q(source_entry_id__in=erasure.entry_ids) | Q(pk__in=repeating))


def _orphans(member_id):
    """Entities nothing is about and nothing relates to any more. A retired one stays
    (its digest is what keeps the person from coming back); the others go, with their
    encrypted label."""
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
    rels, _ = _doomed_relationships(erasure).delete()
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
    # Labels are Fernet tokens: a plain-text search of the schema cannot see them.
    encrypted=True,
    tables=(
        MemoryEntity._meta.db_table,
        MemoryEntryEntity._meta.db_table,
        MemoryRelationship._meta.db_table,
    ),
)


def entities_store_register() -> None:
    content_store_register(ENTITY_STORE)


# --- The member's reads -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntitySummary:
    id: uuid.UUID
    kind: str
    state: str
    label: str | None
    entry_count: int
    relationship_count: int
    created_at: datetime
    state_changed_at: datetime


@dataclass(frozen=True, slots=True)
class RelationshipView:
    id: uuid.UUID
    from_entity_id: uuid.UUID
    to_entity_id: uuid.UUID
    type: str
    note: str
    state: str
    valid_from: datetime
    valid_to: datetime | None
    decay_at: datetime | None
    source_entry_id: uuid.UUID | None


@dataclass(frozen=True, slots=True)
class EntityEvent:
    action: str
    from_state: str | None
    to_state: str | None
    occurred_at: datetime


@dataclass(frozen=True, slots=True)
class EntityDetail:
    entity: EntitySummary
    entries: list[MemoryEntry]
    relationships: list[RelationshipView]
    history: list[EntityEvent]


def relationship_view(rel: MemoryRelationship) -> RelationshipView:
    return RelationshipView(
        id=rel.pk,
        from_entity_id=rel.from_entity_id,
        to_entity_id=rel.to_entity_id,
        type=rel.type,
        note=rel.note,
        state=rel.state,
        valid_from=rel.valid_from,
        valid_to=rel.valid_to,
        decay_at=rel.decay_at,
        source_entry_id=rel.source_entry_id,
    )


def _visible_entities(member):
    """What the member sees: their entities but the retired (of those Iris holds nothing
    but a digest)."""
    return MemoryEntity.objects.filter(member=member).exclude(state=EntityState.RETIRED)


def _summaries(entities) -> list[EntitySummary]:
    entities = list(entities)
    ids = [e.pk for e in entities]
    entries = dict(
        MemoryEntryEntity.objects.filter(entity_id__in=ids)
        .exclude(entry__lifecycle=Lifecycle.TOMBSTONED)
        .values_list("entity_id")
        .annotate(n=Count("id"))
        .values_list("entity_id", "n")
    )
    rels: dict = {}
    for from_id, to_id in MemoryRelationship.objects.filter(
        Q(from_entity_id__in=ids) | Q(to_entity_id__in=ids)
    ).values_list("from_entity_id", "to_entity_id"):
        for pk in {from_id, to_id}:
            rels[pk] = rels.get(pk, 0) + 1
    return [
        EntitySummary(
            id=e.pk,
            kind=e.kind,
            state=e.state,
            label=entity_label(e),
            entry_count=entries.get(e.pk, 0),
            relationship_count=rels.get(e.pk, 0),
            created_at=e.created_at,
            state_changed_at=e.state_changed_at,
        )
        for e in entities
    ]


def member_entities(member, *, kind: str | None = None, state: str | None = None):
    """The people and topics Iris holds memories about for this member (never the
    retired), people first. `kind` / `state` narrow the list."""
    entities = _visible_entities(member)
    if kind:
        entities = entities.filter(kind=kind)
    if state:
        entities = entities.filter(state=state)
    return _summaries(entities.order_by("kind", "created_at", "id"))


def entity_detail(member, entity_id) -> EntityDetail:
    """What Iris holds about one entity: the entries about it (live and superseded, not
    the forgotten), every relationship it is in with its interval (the history of what
    held when), and its lifecycle events. A retired entity, another member's, or none:
    404."""
    try:
        pk = uuid.UUID(str(entity_id))
    except ValueError:
        raise NotFound() from None
    entity = _visible_entities(member).filter(pk=pk).first()
    if entity is None:
        raise NotFound()
    entries = list(
        MemoryEntry.objects.filter(member=member, entity_links__entity=entity)
        .exclude(lifecycle=Lifecycle.TOMBSTONED)
        .order_by("-updated_at", "id")
    )
    relationships = [
        relationship_view(r) for r in _relationships_of(entity).order_by("valid_from", "id")
    ]
    history = [
        EntityEvent(
            action=action,
            from_state=payload.get("from_state"),
            to_state=payload.get("to_state"),
            occurred_at=occurred_at,
        )
        for action, payload, occurred_at in AuditEvent.objects.filter(
            target_member_id=member.pk,
            action__in=["memory.entity.create", "memory.entity.state_transition"],
            payload__entity_id=str(entity.pk),
        )
        .order_by("sequence")
        .values_list("action", "payload", "occurred_at")
    ]
    [summary] = _summaries([entity])
    return EntityDetail(
        entity=summary, entries=entries, relationships=relationships, history=history
    )


def entities_export(*, member_id, scope_kinds: Sequence[str]) -> dict:
    """For the member's data-rights export: the people and topics the exported entries
    are about (with the names Iris knows them by; never the retired, of which Iris holds
    only a digest) and every relationship between them with the interval it held."""
    kinds = list(scope_kinds)
    relationships = list(
        MemoryRelationship.objects.filter(member_id=member_id, source_entry__scope_kind__in=kinds)
        .exclude(
            Q(from_entity__state=EntityState.RETIRED) | Q(to_entity__state=EntityState.RETIRED)
        )
        .order_by("valid_from", "id")
    )
    ends = {r.from_entity_id for r in relationships} | {r.to_entity_id for r in relationships}
    entities = list(
        MemoryEntity.objects.filter(
            Q(entry_links__entry__scope_kind__in=kinds) | Q(pk__in=ends), member_id=member_id
        )
        .exclude(state=EntityState.RETIRED)
        .distinct()
        .order_by("kind", "created_at", "id")
    )
    return {
        "entities": [
            {
                "id": str(e.pk),
                "kind": e.kind,
                "state": e.state,
                "name": entity_label(e),
                "created_at": iso(e.created_at),
            }
            for e in entities
        ],
        "relationships": [
            {
                "id": str(r.pk),
                "from_entity_id": str(r.from_entity_id),
                "to_entity_id": str(r.to_entity_id),
                "type": r.type,
                "note": r.note,
                "state": r.state,
                "valid_from": iso(r.valid_from),
                "valid_to": iso(r.valid_to) if r.valid_to else None,
                "source_entry_id": str(r.source_entry_id) if r.source_entry_id else None,
            }
            for r in relationships
        ],
    }


# --- Recall's reads ---------------------------------------------------------------------------


def recall_entity_entry_ids(*, member_id, entity_id) -> set[str]:
    """The entries about one of the member's entities, for an entity-filtered recall.
    Another member's entity, a retired one, or none: 404."""
    try:
        pk = uuid.UUID(str(entity_id))
    except ValueError:
        raise NotFound() from None
    if (
        not MemoryEntity.objects.filter(member_id=member_id, pk=pk)
        .exclude(state=EntityState.RETIRED)
        .exists()
    ):
        raise NotFound()
    return {
        str(i)
        for i in MemoryEntryEntity.objects.filter(member_id=member_id, entity_id=pk).values_list(
            "entry_id", flat=True
        )
    }


def entries_live_at(*, member_id, at: datetime) -> tuple[set[str], set[str]]:
    """The member's entries that held at `at`: created by then and neither superseded
    nor forgotten by then. Returns (live now, superseded since): an entry superseded
    after `at` was the member's fact then."""
    rows = MemoryEntry.objects.filter(member_id=member_id, created_at__lte=at)
    live = {str(i) for i in rows.filter(lifecycle__in=LIVE_LIFECYCLES).values_list("pk", flat=True)}
    superseded = rows.filter(lifecycle=Lifecycle.SUPERSEDED).annotate(
        superseded_at=Max("revisions__created_at", filter=Q(revisions__action="superseded"))
    )
    since = {
        str(pk) for pk, when in superseded.values_list("pk", "superseded_at") if when and when > at
    }
    return live, since


@dataclass(frozen=True, slots=True)
class RecalledGraph:
    entities: list[EntitySummary]
    relationships: list[RelationshipView]
    # entry id → the ids of the entities it is about
    entry_entities: dict[str, list[str]]

    def as_output(self) -> dict:
        """For a surface: ids, kinds and states (never a person's name), and the
        relationships with their interval."""
        return {
            "entities": [
                {"id": str(e.id), "kind": e.kind, "state": e.state} for e in self.entities
            ],
            "relationships": [
                {
                    "id": str(r.id),
                    "from_entity_id": str(r.from_entity_id),
                    "to_entity_id": str(r.to_entity_id),
                    "type": r.type,
                    "note": r.note,
                    "valid_from": iso(r.valid_from),
                    "valid_to": iso(r.valid_to) if r.valid_to else None,
                    "source_entry_id": str(r.source_entry_id),
                }
                for r in self.relationships
            ],
        }


def recalled_graph(*, member_id, entry_ids: Sequence[str], as_of: datetime | None = None):
    """The entities and relationships of entries that passed the read gate: the entities
    they are about (never a retired one), and the relationships they state that held at
    `as_of` (now when None), between entities that are not retired."""
    ids = [str(i) for i in entry_ids]
    links = list(
        MemoryEntryEntity.objects.filter(member_id=member_id, entry_id__in=ids)
        .exclude(entity__state=EntityState.RETIRED)
        .values_list("entry_id", "entity_id")
    )
    rels = MemoryRelationship.objects.filter(member_id=member_id, source_entry_id__in=ids).exclude(
        Q(from_entity__state=EntityState.RETIRED) | Q(to_entity__state=EntityState.RETIRED)
    )
    if as_of is None:
        rels = rels.filter(valid_to=None)
    else:
        rels = rels.filter(Q(valid_to=None) | Q(valid_to__gt=as_of), valid_from__lte=as_of)
    relationships = [relationship_view(r) for r in rels.order_by("valid_from", "id")]
    entity_ids = {e for _, e in links}
    entity_ids |= {r.from_entity_id for r in relationships} | {
        r.to_entity_id for r in relationships
    }
    entry_entities: dict[str, list[str]] = {}
    for entry_id, entity_id in links:
        entry_entities.setdefault(str(entry_id), []).append(str(entity_id))
    return RecalledGraph(
        entities=_summaries(
            MemoryEntity.objects.filter(member_id=member_id, pk__in=entity_ids).order_by(
                "kind", "created_at", "id"
            )
        ),
        relationships=relationships,
        entry_entities=entry_entities,
    )


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
            _transition(
                entity, EntityState.ARCHIVED, actor=actor, by_member=False, reason="idle", now=now
            )
        count += 1
    return count
