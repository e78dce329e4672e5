"""A deterministic generator of one synthetic member's memory, for the benchmarks.

`populate` writes N entries (a revision each, postings and corpus statistics) in bulk
for one member, from a long-tailed vocabulary and a mix of categories, origins,
lifecycles and scopes like a real member's; `consents_grant` gives a synthetic member
the consents the recalls need. Used by ``bench_recall --scale`` (`memory.bench.recall_scale`)
and ``bench_load``'s seed (`memory.bench.load_setup`).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction

from consent.services import consent_event_append
from iris_site.audit.events import Actor
from iris_site.models import Tenant, User
from memory.enums import (
    EntryAuditAction,
    Lifecycle,
    MemoryCategory,
    Origin,
    ProvenanceKind,
    ScopeKind,
    SuppressionReason,
    is_sensitive_category,
)
from memory.models import MemoryEntry, MemoryRevision
from memory.policy import conflicts, handles, storage
from memory.recall import TermStats, term_stats_for
from memory.recall.store import member_index_load, term_stats_keyed

_ONSETS = [
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "ch",
    "dr",
    "fl",
    "gr",
    "kl",
    "pr",
    "sh",
    "st",
    "tr",
]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y"]
_CODAS = ["", "", "n", "r", "s", "l", "m", "th", "x", "nd", "rt", "ck"]

RELATIONS = [
    "sister",
    "brother",
    "mother",
    "father",
    "aunt",
    "uncle",
    "cousin",
    "daughter",
    "son",
    "grandmother",
    "grandfather",
    "friend",
    "neighbour",
    "colleague",
    "boss",
    "partner",
    "roommate",
    "mentor",
]
FOODS = [
    "coffee",
    "tea",
    "pasta",
    "sushi",
    "ramen",
    "tacos",
    "curry",
    "salad",
    "pizza",
    "bread",
    "cheese",
    "chocolate",
    "oatmeal",
    "pancakes",
    "dumplings",
    "falafel",
    "risotto",
    "lentils",
    "mango",
    "avocado",
    "espresso",
    "kimchi",
    "bagels",
    "noodles",
    "soup",
    "paella",
    "burritos",
    "yogurt",
    "granola",
    "smoothies",
]
HOBBIES = [
    "running",
    "swimming",
    "climbing",
    "painting",
    "knitting",
    "chess",
    "guitar",
    "piano",
    "photography",
    "gardening",
    "hiking",
    "cycling",
    "yoga",
    "pottery",
    "baking",
    "reading",
    "birdwatching",
    "surfing",
    "sketching",
    "woodworking",
    "dancing",
    "skating",
    "fishing",
    "camping",
    "podcasts",
]
PLACES_COMMON = [
    "Lisbon",
    "Berlin",
    "Tokyo",
    "Kyoto",
    "Oslo",
    "Paris",
    "Madrid",
    "Boston",
    "Chicago",
    "Denver",
    "Seattle",
    "Toronto",
    "Dublin",
    "Prague",
    "Vienna",
    "Seoul",
    "Lima",
    "Nairobi",
    "Cairo",
    "Sydney",
]
EVENTS = [
    "wedding",
    "conference",
    "interview",
    "concert",
    "marathon",
    "reunion",
    "vacation",
    "funeral",
    "graduation",
    "party",
    "workshop",
    "hackathon",
    "appointment",
    "surgery",
    "recital",
    "meeting",
    "festival",
    "picnic",
    "barbecue",
    "retreat",
]
JOBS = [
    "nurse",
    "teacher",
    "engineer",
    "designer",
    "accountant",
    "chef",
    "lawyer",
    "pharmacist",
    "architect",
    "librarian",
    "electrician",
    "researcher",
    "manager",
    "developer",
    "translator",
    "therapist",
]
THINGS = [
    "bike",
    "laptop",
    "car",
    "apartment",
    "garden",
    "kitchen",
    "guitar",
    "camera",
    "passport",
    "keys",
    "phone",
    "backpack",
    "notebook",
    "jacket",
    "umbrella",
    "plants",
    "aquarium",
    "sofa",
    "balcony",
    "desk",
]
FEELINGS = [
    "happy",
    "anxious",
    "tired",
    "excited",
    "nervous",
    "proud",
    "relieved",
    "frustrated",
    "calm",
    "hopeful",
    "grateful",
    "overwhelmed",
    "curious",
    "lonely",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
TOPICS = [
    "budget",
    "taxes",
    "mortgage",
    "promotion",
    "deadline",
    "project",
    "vacation",
    "diet",
    "sleep",
    "exercise",
    "therapy",
    "medication",
    "allergies",
    "vaccines",
    "insurance",
    "rent",
    "moving",
    "school",
    "homework",
    "election",
    "climate",
    "recipes",
    "movies",
    "books",
    "music",
    "podcasts",
    "garden",
]

TEMPLATES = (
    "I really like {food}, especially {when}",
    "I can't stand {food} anymore",
    "My {relation} {name} lives in {place} and works as a {job}",
    "{name}'s birthday is on {month} {day}",
    "We went to {place} for a {event} with {name}",
    "I started {hobby} in {month} and I am {feeling} about it",
    "My {relation} {name} recommended a book about {topic}",
    "Remember to fix the {thing} before {weekday}",
    "I left my {thing} at {name}'s place after the {event}",
    "I felt {feeling} after the {event} in {place}",
    "I want to learn {hobby} with my {relation} this year",
    "{name} and I talked about {topic} and {topic2} over {food}",
    "The {event} is planned for {weekday} {month} {day} in {place}",
    "I work as a {job} and my {relation} {name} is a {job2}",
    "My favourite {food} place is near the {thing} shop in {place}",
    "Every {weekday} I go {hobby} with {name}",
    "I am saving money for a trip to {place} in {month}",
    "My {relation} gave me a {thing} for my birthday",
    "I need to call {name} about the {topic} on {weekday}",
    "Order number {number} for the new {thing} arrived late",
)
SENSITIVE_TEMPLATES = {
    MemoryCategory.MEDICAL: "My doctor changed my {topic} medication after the {event}",
    MemoryCategory.MENTAL_HEALTH: "I felt {feeling} and talked to my therapist about {topic}",
    MemoryCategory.FINANCIAL: "My {topic} payment of {number} is due in {month}",
    MemoryCategory.SAFETY: "Safety plan: call my {relation} {name} if I feel {feeling}",
}

_CATEGORIES = (
    [MemoryCategory.FACT] * 30
    + [MemoryCategory.PREFERENCE] * 25
    + [MemoryCategory.GOAL] * 8
    + [MemoryCategory.RELATIONSHIP] * 10
    + [MemoryCategory.COMMITMENT] * 6
    + [MemoryCategory.WORK] * 8
    + [MemoryCategory.FAMILY] * 8
    + [MemoryCategory.MEDICAL] * 2
    + [MemoryCategory.MENTAL_HEALTH] * 1
    + [MemoryCategory.FINANCIAL] * 1
    + [MemoryCategory.SAFETY] * 1
)
_ORIGINS = (
    [Origin.USER_STATED] * 40
    + [Origin.USER_CONFIRMED] * 10
    + [Origin.MODEL_INFERRED] * 25
    + [Origin.SUMMARIZED_FROM_SESSION] * 15
    + [Origin.IMPORTED] * 10
)
_LIFECYCLES = (
    [Lifecycle.ACTIVE] * 86
    + [Lifecycle.SUPERSEDED] * 5
    + [Lifecycle.TOMBSTONED] * 4
    + [Lifecycle.PAUSED] * 3
    + [Lifecycle.DRAFT] * 2
)
CONSENTS = ("data_processing", "data_storage", "category:medical", "category:safety")


class Vocabulary:
    """Names and places drawn from a long tail (Zipf-like), so a bigger memory keeps
    meeting new words the way a real one does."""

    def __init__(self, rng: random.Random) -> None:
        seen: dict[str, None] = {}
        while len(seen) < 6000:
            parts = [rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(1, 3))]
            seen.setdefault(("".join(parts) + rng.choice(_CODAS)).capitalize(), None)
        self.names = list(seen)
        self.places = PLACES_COMMON + [name + "ville" for name in self.names[:2000]]

    @staticmethod
    def tail(rng: random.Random, items: list[str]) -> str:
        # Zipf-like ranks (log-uniform): the first few names are everywhere, most
        # names are rare.
        return items[int(len(items) ** rng.random()) - 1]

    def fill(self, rng: random.Random, template: str) -> str:
        return template.format(
            food=rng.choice(FOODS),
            when=rng.choice(["in the morning", "after work", "on weekends", "when it rains"]),
            relation=rng.choice(RELATIONS),
            name=self.tail(rng, self.names),
            place=self.tail(rng, self.places),
            job=rng.choice(JOBS),
            job2=rng.choice(JOBS),
            month=rng.choice(MONTHS),
            day=rng.randint(1, 28),
            event=rng.choice(EVENTS),
            hobby=rng.choice(HOBBIES),
            feeling=rng.choice(FEELINGS),
            topic=rng.choice(TOPICS),
            topic2=rng.choice(TOPICS),
            thing=rng.choice(THINGS),
            weekday=rng.choice(DAYS),
            number=rng.randint(1000, 99999),
        )


@dataclass
class Synthetic:
    """What was generated for one member, for the queries to point into."""

    member: User
    tenant: Tenant
    vocabulary: Vocabulary
    sessions: list[str] = field(default_factory=list)
    scenes: list[tuple[str, str, str]] = field(default_factory=list)
    notebooks: list[str] = field(default_factory=list)


def _scope(rng: random.Random, n: int, tenant: Tenant) -> dict[str, Any]:
    roll = rng.random()
    sessions = max(3, n // 40)
    if roll < 0.68:
        return {"kind": ScopeKind.PROFILE}
    if roll < 0.88:
        return {"kind": ScopeKind.SESSION, "session_id": f"s-{rng.randrange(sessions)}"}
    if roll < 0.92:
        s = rng.randrange(sessions)
        return {
            "kind": ScopeKind.SCENE,
            "session_id": f"s-{s}",
            "scene_id": f"scene-{s % 7}",
            "room_id": "room-1",
        }
    if roll < 0.97:
        return {"kind": ScopeKind.NOTEBOOK, "notebook_id": f"nb-{rng.randrange(12)}"}
    if roll < 0.99:
        return {"kind": ScopeKind.TENANT, "tenant_id": str(tenant.pk)}
    return {"kind": ScopeKind.CRISIS}


def populate(member: User, tenant: Tenant, n: int, *, now: datetime, seed: int) -> Synthetic:
    """N entries (with a revision each, postings and corpus statistics) in bulk."""
    # One vocabulary for every size (so the queries are the same), entries per size.
    vocabulary = Vocabulary(random.Random(seed))  # noqa: S311 - test data, not secrets
    rng = random.Random(seed + n)  # noqa: S311
    synthetic = Synthetic(member=member, tenant=tenant, vocabulary=vocabulary)
    entries: list[MemoryEntry] = []
    revisions: list[MemoryRevision] = []
    span = timedelta(days=730)
    for index in range(n):
        category = rng.choice(_CATEGORIES)
        template = SENSITIVE_TEMPLATES.get(category) or rng.choice(TEMPLATES)
        body = vocabulary.fill(rng, template)
        if rng.random() < 0.3:
            body += ". " + vocabulary.fill(rng, rng.choice(TEMPLATES))
        scope = _scope(rng, n, tenant)
        lifecycle = rng.choice(_LIFECYCLES)
        origin = rng.choice(_ORIGINS)
        # Newer memories are denser: most of them are from the last months.
        age = span * (rng.random() ** 2.5)
        updated_at = now - age - timedelta(seconds=rng.randrange(3600))
        created_at = updated_at - timedelta(days=rng.randrange(0, 30))
        references = 0 if rng.random() < 0.7 else min(40, int(rng.expovariate(0.25)) + 1)
        last_referenced = updated_at + (now - updated_at) * rng.random() if references else None
        subject = ""
        roll = rng.random()
        if roll < 0.1:
            subject = rng.choice(FOODS + HOBBIES + THINGS)
        elif roll < 0.25:
            subject = f"{rng.choice(RELATIONS)} {vocabulary.tail(rng, vocabulary.names)}"
        handle = ""
        sensitive_interaction = False
        if category in (MemoryCategory.RELATIONSHIP, MemoryCategory.FAMILY) and rng.random() < 0.5:
            handle = handles.actor_handle(
                secret=settings.IRIS_HASH_SECRET.encode(),
                member_id=member.pk,
                raw_name=f"actor-{rng.randrange(200):03d}",
            )
            sensitive_interaction = rng.random() < 0.05
        suppression = ("", None)
        if lifecycle == Lifecycle.PAUSED:
            suppression = (SuppressionReason.USER_PAUSE, None)
        elif rng.random() < 0.02:
            ends = now + timedelta(days=rng.randint(-20, 20))
            suppression = (SuppressionReason.SENSITIVE_CATEGORY, ends)
        stats = term_stats_for(body).to_json()
        entry_id, revision_id = uuid.uuid4(), uuid.uuid4()
        tenant_id = tenant.pk if scope["kind"] == ScopeKind.TENANT else None
        provenance = [
            {
                "kind": ProvenanceKind.SESSION_TURN,
                "ref": f"turn-{index}",
                "captured_at": created_at.isoformat(),
            }
        ]
        entry = MemoryEntry(
            id=entry_id,
            member=member,
            tenant_id=tenant_id,
            revision_id=revision_id,
            revision_count=1,
            scope_kind=scope["kind"],
            scope_key="",
            session_id=scope.get("session_id", ""),
            scene_id=scope.get("scene_id", ""),
            room_id=scope.get("room_id", ""),
            notebook_id=scope.get("notebook_id", ""),
            category=category,
            subject=subject,
            body=body,
            origin=origin,
            lifecycle=lifecycle,
            confidence=storage.confidence_for_origin(origin),
            conflict_key=conflicts.conflict_key(
                category=category, actor_handle=handle, subject=subject
            ),
            suppression_reason=suppression[0],
            # An elapsed suppression started before it ended.
            suppression_started_at=(
                min(created_at, suppression[1] - timedelta(days=1))
                if suppression[1]
                else created_at
            )
            if suppression[0]
            else None,
            suppression_ends_at=suppression[1],
            actor_handle=handle,
            sensitive_interaction=sensitive_interaction,
            provenance_chain=provenance,
            # As the write path stores them: a sensitive entry carries its category's
            # consent (the benchmark members hold every consent).
            consent=[
                {
                    "category": category,
                    "granted_at": created_at.isoformat(),
                    "revoked_at": None,
                    "source": "settings-toggle",
                }
            ]
            if is_sensitive_category(category)
            else [],
            term_stats=stats,
            reference_count=references,
            last_referenced_at=last_referenced,
            created_at=created_at,
            updated_at=updated_at,
        )
        entry.scope_key = ":".join(
            [scope["kind"], str(member.pk), *(str(v) for k, v in scope.items() if k != "kind")]
        )
        entries.append(entry)
        revisions.append(
            MemoryRevision(
                id=revision_id,
                entry_id=entry_id,
                member_id=member.pk,
                number=1,
                action=EntryAuditAction.CREATED,
                actor="system",
                content={"body": body, "category": category, "scope": scope},
                created_at=updated_at,
            )
        )
        if scope["kind"] == ScopeKind.SESSION:
            synthetic.sessions.append(scope["session_id"])
        elif scope["kind"] == ScopeKind.SCENE:
            synthetic.scenes.append((scope["session_id"], scope["scene_id"], scope["room_id"]))
        elif scope["kind"] == ScopeKind.NOTEBOOK:
            synthetic.notebooks.append(scope["notebook_id"])
    _supersede_duplicates(entries, rng)
    # As the write path stores them: every stem named by the member's keyed token.
    keyed = term_stats_keyed(member.pk, [TermStats.from_json(e.term_stats) for e in entries])
    for entry, stats in zip(entries, keyed, strict=True):
        entry.term_stats = stats.to_json()
    with transaction.atomic():
        # The entry and its first revision point at each other: both foreign keys are
        # checked at commit.
        _bulk_insert(MemoryEntry, entries)
        _bulk_insert(MemoryRevision, revisions)
        member_index_load(member_id=member.pk, entries=entries, insert=_bulk_insert)
    return synthetic


def _supersede_duplicates(entries: list[MemoryEntry], rng: random.Random) -> None:
    """What the write path's conflict ladder leaves: one active entry per conflict key,
    the older ones superseded, except a few duplicates (for the dedupe stage)."""
    newest: dict[str, MemoryEntry] = {}
    for entry in sorted(entries, key=lambda e: e.updated_at, reverse=True):
        if entry.lifecycle != Lifecycle.ACTIVE or not entry.subject:
            continue
        if entry.conflict_key in newest and rng.random() < 0.95:
            entry.lifecycle = Lifecycle.SUPERSEDED
        newest.setdefault(entry.conflict_key, entry)


def _bulk_insert(model, objects: Iterable) -> None:
    """Insert many rows fast: COPY on PostgreSQL, batched INSERTs elsewhere."""
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objects, batch_size=2000)
        return
    # Every column but a database-generated key.
    fields = [
        f
        for f in model._meta.concrete_fields
        if not isinstance(f, models.AutoField) and f.column is not None
    ]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for obj in objects:
            # `pre_save` as an INSERT runs it: sealed columns are sealed there.
            copy.write_row(
                [f.get_db_prep_save(f.pre_save(obj, add=True), connection) for f in fields]
            )


def consents_grant(
    member: User,
    consent_types: Iterable[str] = CONSENTS,
    *,
    witness: str = "bench",
    now: datetime | None = None,
) -> None:
    """A synthetic member's grants of ``consent_types``, in its ledger (by default the
    consents the scale bench's recalls need)."""
    for consent_type in consent_types:
        consent_event_append(
            member=member,
            consent_type=consent_type,
            kind="grant",
            legal_basis="consent",
            capture_method="settings-toggle",
            terms_version="2026-11",
            witness=f"system:{witness}",
            actor=Actor.system(witness),
            now=now,
        )
