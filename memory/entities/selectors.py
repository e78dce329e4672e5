"""Reads of entities and relationships: the member's people and topics, one entity's detail,
the export, and what recall needs (the entries about an entity, what was live at a time,
the graph of the recalled entries).
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Count, Max, Q

from iris_site.audit.actions import AuditAction, current_name
from iris_site.audit.events import iso
from iris_site.audit.selectors import action_q
from iris_site.errors import NotFound
from iris_site.models import AuditEvent
from iris_site.rawsql import RowReader, member_param, one_of, values_of
from memory.entities.derive import LIVE_LIFECYCLES, entity_label, entity_relationships
from memory.entities.policy import FactTime, fact_held_at, valid_at
from memory.enums import EntityKind, EntityState, Lifecycle
from memory.models import MemoryEntity, MemoryEntry, MemoryEntryEntity, MemoryRelationship
from memory.selectors import memory_pending_clear


def member_entity_get(member, entity_id, *, for_update: bool = False) -> MemoryEntity:
    try:
        pk = uuid.UUID(str(entity_id))
    except ValueError:
        raise NotFound() from None
    rows = MemoryEntity.objects.filter(member=member, pk=pk)
    entity = (rows.select_for_update() if for_update else rows).first()
    if entity is None or memory_pending_clear(member_id=member.pk) is not None:
        raise NotFound()  # while a full clear waits, no person or topic is shown
    return entity


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
    valid_from: datetime | None
    valid_to: datetime | None
    decay_at: datetime | None
    source_entry_id: uuid.UUID | None
    valid_from_precision: str = ""
    valid_to_precision: str = ""
    learned_at: datetime | None = None
    end_learned_at: datetime | None = None


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
        valid_from_precision=rel.valid_from_precision,
        valid_to_precision=rel.valid_to_precision,
        learned_at=rel.learned_at,
        end_learned_at=rel.end_learned_at,
    )


def _by_valid_time(rel) -> tuple:
    """Oldest first; a start the member never told first of all (it held before)."""
    return (rel.valid_from is not None, rel.valid_from or rel.learned_at, rel.id)


def periods(relationships) -> list:
    """One relationship per period: its latest statement (every statement of a period
    carries the period's times, `memory.entities.derive`)."""
    latest: dict = {}
    for rel in relationships:
        key = getattr(rel, "period_id", None) or rel.id
        if key not in latest or (rel.created_at, rel.id) > (latest[key].created_at, latest[key].id):
            latest[key] = rel
    return sorted(latest.values(), key=_by_valid_time)


def _visible_entities(member):
    """What the member sees: their entities but the retired (of those Iris holds nothing
    but a digest); none while a full clear waits, as their memories."""
    if memory_pending_clear(member_id=member.pk) is not None:
        return MemoryEntity.objects.none()
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
    # One per period, however often restated.
    for from_id, to_id, _period in (
        MemoryRelationship.objects.filter(Q(from_entity_id__in=ids) | Q(to_entity_id__in=ids))
        .values_list("from_entity_id", "to_entity_id", "period_id")
        .order_by()
        .distinct()
    ):
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
    relationships = [relationship_view(r) for r in periods(entity_relationships(entity))]
    history = [
        EntityEvent(
            action=current_name(action),
            from_state=payload.get("from_state"),
            to_state=payload.get("to_state"),
            occurred_at=occurred_at,
        )
        for action, payload, occurred_at in AuditEvent.objects.filter(
            action_q(AuditAction.MEMORY_ENTITY_CREATE, AuditAction.MEMORY_ENTITY_STATE_TRANSITION),
            target_member_id=member.pk,
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
                "valid_from": iso(r.valid_from) if r.valid_from else None,
                "valid_to": iso(r.valid_to) if r.valid_to else None,
                "valid_from_precision": r.valid_from_precision,
                "valid_to_precision": r.valid_to_precision,
                "learned_at": iso(r.learned_at),
                "end_learned_at": iso(r.end_learned_at) if r.end_learned_at else None,
                # the statements of one period share it (a restatement joins its period)
                "period_id": str(r.period_id),
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
    """The member's entries that held at `at`. Returns (live now, superseded since): an
    entry superseded after `at` was the member's fact then.

    An entry stating the member's relationship to someone answers by when that was TRUE
    (valid time): it held at `at` if the relationship did, even told later ("my partner
    since 2019", said in 2026, held in 2020 — when the member said the start), and not
    once it had ended ("we broke up in March"), whenever Iris heard it. Any other entry
    answers by when its own words said it was true, where they said ("I've lived in
    Lisbon since 2019" told in 2026 held in 2020; "I worked at Acme until March 2025"
    did not hold in April 2025, whenever Iris heard it), else by when Iris learned it:
    created by then and neither superseded nor forgotten by then — the same rule
    (`fact_held_at`). The two statements read the entries learned by then and those whose
    said start was by then, with their times; the rule is applied here, per row."""
    rows = MemoryEntry.objects.filter(member_id=member_id).filter(
        Q(created_at__lte=at) | (~Q(valid_from_precision="") & Q(valid_from__lte=at))
    )
    times = ("created_at", "valid_from", "valid_from_precision", "valid_to", "valid_to_precision")

    def held(row, superseded_at=None) -> bool:
        learned_at, *time = row
        return fact_held_at(
            time=FactTime(*time), learned_at=learned_at, superseded_at=superseded_at, at=at
        )

    live = {
        str(pk)
        for pk, *row in rows.filter(lifecycle__in=LIVE_LIFECYCLES).values_list("pk", *times)
        if held(row)
    }
    superseded = rows.filter(lifecycle=Lifecycle.SUPERSEDED).annotate(
        superseded_at=Max("revisions__created_at", filter=Q(revisions__action="superseded"))
    )
    since = {
        str(pk)
        for pk, when, *row in superseded.values_list("pk", "superseded_at", *times)
        if when and held(row, when)
    }
    stated = MemoryRelationship.objects.filter(
        member_id=member_id,
        from_entity__kind=EntityKind.SELF,
        source_entry__lifecycle__in=[*LIVE_LIFECYCLES, Lifecycle.SUPERSEDED],
    ).values_list(
        "source_entry_id",
        "source_entry__lifecycle",
        "source_entry__created_at",
        "valid_from",
        "valid_from_precision",
        "valid_to",
    )
    held: dict[str, bool] = {}
    told_late: dict[str, str] = {}
    for entry_id, lifecycle, created_at, start, precision, end in stated:
        key = str(entry_id)
        now_held = valid_at(valid_from=start, valid_to=end, at=at)
        held[key] = held.get(key, False) or now_held
        if now_held and precision and created_at > at:
            told_late[key] = lifecycle
    for key, was in held.items():
        if not was:
            live.discard(key)
            since.discard(key)
    for key, lifecycle in told_late.items():
        (since if lifecycle == Lifecycle.SUPERSEDED else live).add(key)
    return live, since


@dataclass(frozen=True, slots=True)
class GraphEntity:
    """An entity as a surface sees it beside a recall: what it is, never its name."""

    id: uuid.UUID
    kind: str
    state: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RecalledGraph:
    entities: list[GraphEntity]
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
                    "valid_from": iso(r.valid_from) if r.valid_from else None,
                    "valid_to": iso(r.valid_to) if r.valid_to else None,
                    "learned_at": iso(r.learned_at),
                    "source_entry_id": str(r.source_entry_id),
                }
                for r in self.relationships
            ],
        }


_ENTITY = RowReader(MemoryEntity, ["id", "kind", "state", "created_at"])
_RELATIONSHIP = RowReader(
    MemoryRelationship,
    [
        "id",
        "from_entity_id",
        "to_entity_id",
        "type",
        "note",
        "state",
        "valid_from",
        "valid_to",
        "decay_at",
        "source_entry_id",
        "valid_from_precision",
        "valid_to_precision",
        "learned_at",
        "end_learned_at",
    ],
)


def _graph_statement(count: int, *, as_of: datetime | None) -> str:
    """The links of ``count`` entries with their entities, then (``part`` 1) the
    relationships those entries state with both ends, as rows of one width."""
    quote = connection.ops.quote_name
    links, entities, rels = (
        quote(m._meta.db_table) for m in (MemoryEntryEntity, MemoryEntity, MemoryRelationship)
    )
    entity_width, rel_width = len(_ENTITY.names), len(_RELATIONSHIP.names)
    nulls = lambda n: ", ".join(["NULL"] * n)  # noqa: E731 - a padding, named once
    held = (
        "r.valid_to IS NULL"
        if as_of is None
        else ("(r.valid_to IS NULL OR r.valid_to > %s) AND r.valid_from <= %s")
    )
    return (
        f"SELECT 0 AS part, l.entry_id, {_ENTITY.select('x')},"  # noqa: S608 - fixed names, values as parameters
        f" {nulls(rel_width + 2 * entity_width)}"
        # Each entity joined as the member's own (as the ORM's read filtered them): a
        # link or relationship naming another member's entity never shows it.
        f" FROM {links} l JOIN {entities} x ON x.id = l.entity_id AND x.member_id = l.member_id"
        f" WHERE l.member_id = %s AND {one_of('l.entry_id', count)} AND x.state <> %s"
        f" UNION ALL SELECT 1, NULL, {nulls(entity_width)}, {_RELATIONSHIP.select('r')},"
        f" {_ENTITY.select('f')}, {_ENTITY.select('t')}"
        f" FROM {rels} r JOIN {entities} f ON f.id = r.from_entity_id AND f.member_id = r.member_id"
        f" JOIN {entities} t ON t.id = r.to_entity_id AND t.member_id = r.member_id"
        f" WHERE r.member_id = %s AND {one_of('r.source_entry_id', count)}"
        f" AND f.state <> %s AND t.state <> %s AND {held}"
    )


def recalled_graph(*, member_id, entry_ids: Sequence[str], as_of: datetime | None = None):
    """The entities and relationships of entries that passed the read gate: the entities
    they are about (never a retired one), and the relationships they state that held at
    `as_of` (now when None), between entities that are not retired.

    One statement whatever the number of entries (the links with their entities, then
    the relationships with both ends): a surface sees ids, kinds and states only, so
    nothing else of an entity is read."""
    ids = [str(i) for i in entry_ids]
    if not ids:
        return RecalledGraph(entities=[], relationships=[], entry_entities={})
    entry_field = MemoryEntryEntity._meta.get_field("entry")
    keys = values_of([entry_field.get_db_prep_value(uuid.UUID(i), connection) for i in ids])
    member = member_param(MemoryRelationship, member_id)  # the links' UUIDs alike
    times = [] if as_of is None else [as_of, as_of]
    retired = EntityState.RETIRED
    params = [member, *keys, retired, member, *keys, retired, retired, *times]
    with connection.cursor() as cursor:
        cursor.execute(_graph_statement(len(ids), as_of=as_of), params)
        rows = cursor.fetchall()
    entities: dict[uuid.UUID, GraphEntity] = {}
    entry_entities: dict[str, list[str]] = {}
    relationships = []
    width = len(_ENTITY.names)
    for row in rows:
        if row[0] == 0:
            entity = GraphEntity(*_ENTITY.values(row, 2))
            entities[entity.id] = entity
            entry_id = entry_field.to_python(row[1])
            entry_entities.setdefault(str(entry_id), []).append(str(entity.id))
            continue
        start = 2 + width
        relationships.append(RelationshipView(*_RELATIONSHIP.values(row, start)))
        start += len(_RELATIONSHIP.names)
        for end in (start, start + width):
            entity = GraphEntity(*_ENTITY.values(row, end))
            entities[entity.id] = entity
    return RecalledGraph(
        entities=sorted(entities.values(), key=lambda e: (e.kind, e.created_at, e.id)),
        relationships=sorted(relationships, key=_by_valid_time),
        entry_entities=entry_entities,
    )
