"""Entities and relationships of long-term memory, derived on the write path.

Derivation (`entry_entities_sync`, called by `memory.revisions` on every revision) uses
only what an entry already carries, no model: its actor handle is a *person*, its
conflict-key subject a *subject*, and an entry about no person is about the member
themself (*self*). A person with a relationship note is related to the member (type: the
first relationship word of the note, `memory.entities.policy.relationship_type`); a person
with a subject is related to it (`about`). A relationship holds while the entry that
states it is live: superseding the entry closes the interval (`valid_to`), nothing is
deleted, so recall can be asked what held *as of* a time.

Entities are matched by a keyed digest (`iris_site.crypto.keyed_digest`, bound to the
member) of the normalised handle or subject, never by name; labels are sealed under the
member's data key (`iris_site.keys.fields.SealedTextField`), never in audit payloads or
logs.
"""

import dataclasses
import re
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from iris_site.audit.actions import AuditAction
from iris_site.audit.enums import Severity
from iris_site.audit.events import Actor, audit_event_append
from iris_site.crypto import ContentUnreadable, decrypt, keyed_digest
from iris_site.errors import Conflict
from memory.controls import member_memory_settings_get, months_to_days
from memory.entities import policy as entity_policy
from memory.entities.when import Stated, stated_times
from memory.enums import EntityKind, EntityState, Lifecycle, Origin
from memory.forgetting import fingerprints
from memory.models import MemoryEntity, MemoryEntry, MemoryEntryEntity, MemoryRelationship
from memory.policy import retention
from memory.policy.names import name_key

POLICY_ID = "iris.memory.entities.v1"
# Lifecycles of an entry whose relationships still hold (a paused fact is still true).
LIVE_LIFECYCLES = frozenset({Lifecycle.ACTIVE, Lifecycle.PAUSED})


def entity_digest(*, member_id, kind: str, value: str = "") -> str:
    """The keyed digest an entity is found again by (never its name): of the value's name
    key (`memory.policy.names.name_key`), so spelling variants a reader could not tell
    apart are one person or topic."""
    key = name_key(value or "")
    return keyed_digest(f"memory-entity\x1f{member_id}\x1f{kind}\x1f{key}", length=64)


# A label written before sealing: a Fernet token under the application key (its version
# byte 0x80 spells `gAAAAA`), until `keys_encrypt` seals it under the member's key.
_LEGACY_LABEL = re.compile(r"gAAAAA[A-Za-z0-9_-]{60,}={0,2}")


def entity_label(entity: MemoryEntity) -> str | None:
    """The member-visible name; None when there is none, or it cannot be read (the
    member's keys were destroyed, or the sealed value failed authentication)."""
    return label_open(entity.label)


def label_open(label: str | None) -> str | None:
    """A stored label as its name: the sealed field has opened it already (an unreadable
    one reads as ""); a legacy Fernet token is decrypted with the application key."""
    if not label:
        return None
    if _LEGACY_LABEL.fullmatch(label):
        try:
            return decrypt(label)
        except ContentUnreadable:
            return None
    return label


def entity_audit(
    action: str, *, member_id, actor: Actor, severity=Severity.INFO, **payload
) -> None:
    audit_event_append(
        action=action,
        policy_id=POLICY_ID,
        actor=actor,
        severity=severity,
        target_member_id=member_id,
        payload=payload,
    )


def entity_transition(
    entity: MemoryEntity, target: str, *, actor: Actor, by_member: bool, reason: str, now
) -> None:
    current = entity.state
    if not entity_policy.entity_transition_allowed(current, target, by_member=by_member):
        raise Conflict(f"An entity cannot move from {current} to {target}.", code="entity-state")
    entity.state = target
    entity.state_changed_at = now
    if target == EntityState.RETIRED:
        entity.label = ""
    # The label is sealed, so no constraint can be checked on it by a query; the database
    # still holds `retired_unlabelled` (and a retired entity's label is "" above).
    entity.full_clean(exclude=["member", "label"])
    entity.save(update_fields=["state", "state_changed_at", "label"])
    entity_audit(
        AuditAction.MEMORY_ENTITY_STATE_TRANSITION,
        member_id=entity.member_id,
        actor=actor,
        entity_id=str(entity.pk),
        kind=entity.kind,
        from_state=current,
        to_state=target,
        reason=reason,
    )
    if target == EntityState.ARCHIVED:
        entity_audit(
            AuditAction.MEMORY_ENTITY_ARCHIVED,
            member_id=entity.member_id,
            actor=actor,
            entity_id=str(entity.pk),
            kind=entity.kind,
            entry_count=entity.entry_links.count(),
            open_relationship_count=entity_relationships(entity).filter(valid_to=None).count(),
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
            label=label,
            created_at=now,
            state_changed_at=now,
        )
        entity.save(force_insert=True)
        entity_audit(
            AuditAction.MEMORY_ENTITY_CREATE,
            member_id=member_id,
            actor=actor,
            entity_id=str(entity.pk),
            kind=kind,
        )
        return entity
    if entity.state == EntityState.RETIRED:
        if not by_member:
            return None
        entity_transition(
            entity, EntityState.ACTIVE, actor=actor, by_member=True, reason="reintroduced", now=now
        )
    elif entity.state == EntityState.ARCHIVED and live:
        entity_transition(
            entity,
            EntityState.ACTIVE,
            actor=actor,
            by_member=by_member,
            reason="mentioned",
            now=now,
        )
    if label and entity_label(entity) != label:
        entity.label = label
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
    # (from, to, type) → (note, when the member said it was true)
    relationships: dict[tuple[uuid.UUID, uuid.UUID, str], tuple[str, Stated]]


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
    relationships: dict = {}
    told = entry.updated_at or now
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
            # The note is the member's words about the relationship, times included
            # ("my partner since 2019", "my ex, we broke up in March").
            note = entry.relationship_note
            key = (me.pk, person.pk, entity_policy.relationship_type(note))
            relationships[key] = (note, stated_times(note, told=told))
        if subject := entities.get("subject"):
            # The fact itself says when the person and the topic went together.
            key = (person.pk, subject.pk, entity_policy.ABOUT)
            relationships[key] = ("", stated_times(entry.body, told=told))
    return _Wanted(entities=entities, relationships=relationships)


def entry_decay_at(entry: MemoryEntry) -> datetime | None:
    """When the entry decays under its envelope and the member's current auto-forget
    choice (`memory.entities.policy.decay_days`), counted from its last assertion."""
    months = member_memory_settings_get(member_id=entry.member_id).auto_forget_months.get(
        entry.scope_kind
    )
    envelope = retention.retention_envelope_for_kind(entry.scope_kind)
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
    stated = {}
    for rel in MemoryRelationship.objects.filter(source_entry=entry):
        key = (rel.from_entity_id, rel.to_entity_id, rel.type)
        if key in wanted.relationships and key not in stated:
            stated[key] = rel
            note = wanted.relationships[key][0]
            if (rel.decay_at, rel.note) != (entry.decay_at, note):
                reworded = rel.note != note
                rel.decay_at, rel.note = entry.decay_at, note
                rel.save(update_fields=["decay_at", "note"])
                if reworded:  # the times it said may be others, or none
                    period_replay(rel.period_id)
        else:
            _statement_withdrawn(rel, now=now)
    for key in wanted.relationships.keys() - stated.keys():
        note, when = wanted.relationships[key]
        _statement_made(entry, key, note=note, stated=when, now=now)


_PERIOD_FIELDS = [f.name for f in dataclasses.fields(entity_policy.Period)]


def _period(rel: MemoryRelationship) -> entity_policy.Period:
    return entity_policy.Period(**{name: getattr(rel, name) for name in _PERIOD_FIELDS})


def _period_set(period_id, period: entity_policy.Period) -> None:
    """Every statement of one period carries its times."""
    MemoryRelationship.objects.filter(period_id=period_id).update(**dataclasses.asdict(period))


def period_replay(period_id) -> None:
    """Tell one period again from the statements still stored for it, each read from its
    own words as said (`entity_policy.period_replayed`): after a statement was forgotten
    or reworded, no time only it gave remains on the others."""
    rows = list(MemoryRelationship.objects.filter(period_id=period_id).order_by("created_at", "id"))
    if not rows:
        return
    statements = [(stated_times(rel.note, told=rel.created_at), rel.created_at) for rel in rows]
    period = entity_policy.period_replayed(statements, was=_period(rows[0]))
    if period != _period(rows[0]):
        _period_set(period_id, period)


def _statement_withdrawn(rel: MemoryRelationship, *, now) -> None:
    """The entry no longer states `rel` (superseded, forgotten, or its note changed): its
    period ends now, as Iris learned, unless another live statement carries it on."""
    carried = (
        MemoryRelationship.objects.filter(
            period_id=rel.period_id, source_entry__lifecycle__in=LIVE_LIFECYCLES
        )
        .exclude(source_entry_id=rel.source_entry_id)
        .exists()
    )
    if not carried:
        period = entity_policy.period_superseded(_period(rel), now=now)
        if period != _period(rel):
            _period_set(rel.period_id, period)


def _statement_made(entry: MemoryEntry, key, *, note: str, stated: Stated, now) -> None:
    """The entry states a relationship: a restatement of one whose period still holds (or
    whose last statement this very write superseded) extends that period; anything else
    is a new period, true from when the member said, else from now."""
    from_id, to_id, type_ = key
    latest = (
        MemoryRelationship.objects.filter(
            member_id=entry.member_id, from_entity_id=from_id, to_entity_id=to_id, type=type_
        )
        .order_by("-created_at", "-id")
        .first()
    )
    if latest is not None and entity_policy.period_joins(_period(latest), now=now):
        period_id = latest.period_id
        period = entity_policy.period_restated(_period(latest), stated, now=now)
        _period_set(period_id, period)
    else:
        period_id, period = uuid.uuid4(), entity_policy.period_told(stated, now=now)
    MemoryRelationship.objects.create(
        member_id=entry.member_id,
        from_entity_id=from_id,
        to_entity_id=to_id,
        source_entry=entry,
        type=type_,
        note=note,
        period_id=period_id,
        decay_at=entry.decay_at,
        created_at=now,
        **dataclasses.asdict(period),
    )


# --- Retirement -------------------------------------------------------------------------------


def entity_relationships(entity: MemoryEntity):
    return MemoryRelationship.objects.filter(
        Q(from_entity=entity) | Q(to_entity=entity), member_id=entity.member_id
    )
