"""Recall benchmarks: evidence recall on LoCoMo, and latency at scale.

``--locomo [PATH]``: LoCoMo (Maharana et al., "Evaluating Very Long-Term
Conversational Memory of LLM Agents", ACL 2024; CC BY-NC 4.0), read from
``../shared/benchmarks/locomo/`` where it lies, never copied. The product's figure:
each conversation written through the services a surface calls (turns appended, one
memory per turn quoting it, consent in the ledger; `locomo_ingest`) and every question
recalled by a service client through the recall service (`locomo_recall`), all rolled
back. Beside it, the previous figures: candidates the benchmark builds itself through
the pure pipeline (``memory.bench.locomo``). ``--peers``: the same corpus in
PostgreSQL full-text search, recall and latency side by side.

``--scale N [N ...]``: one synthetic member with N entries on the configured database
(PostgreSQL for the real figures), recall latency in-process and over HTTP, peak
memory, and the production path against the straightforward reference (every entry of
the member through the pure pipeline), which must return the same ranked ids; the
index's size (`pg_total_relation_size` of its tables) and what the write path spends
keeping it current per new entry.

The benchmarks write to the configured database: on PostgreSQL only one named for it
(``*bench*``, ``*scratch*``).

Each part prints human-readable lines, then one JSON object on its last line.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import random
import resource
import statistics
import sys
import threading
import time
import tracemalloc
import urllib.request
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.management.base import BaseCommand, CommandError
from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection, connections, models, transaction
from django.utils import timezone

from consent.services import consent_event_append
from iris_site.appendonly import purge_bypass
from iris_site.audit.events import Actor
from iris_site.enums import Consumer, UserKind
from iris_site.errors import DomainError
from iris_site.models import ServiceClient, Tenant, TenantMembership, User
from iris_site.services import token_issue
from memory import policy
from memory.access.capabilities import capabilities_for
from memory.bench import locomo
from memory.contracts import MemoryWriteRequest
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
from memory.models import (
    MemoryContextAnchor,
    MemoryCorpusShard,
    MemoryEntry,
    MemoryEntryTerm,
    MemoryRevision,
    MemoryStem,
    RecallRecord,
)
from memory.recall import resolve, term_stats_for
from memory.recall.rankers import bm25_v1
from memory.recall.service import recall_request_build, recall_run
from memory.recall.store import (
    corpus_stats_apply,
    corpus_stats_get,
    entry_terms_index,
    member_candidates,
    member_index_load,
    recall_resolve,
)
from memory.selectors import principal_capabilities
from memory.services import memory_remember
from memory.turns import conversation_turn_append

DEFAULT_LOCOMO = Path(settings.BASE_DIR).parent / "shared/benchmarks/locomo/locomo_dev.json"

# --- a deterministic generator of one member's memory ---------------------------------

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
            handle = policy.actor_handle(
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
            confidence=policy.confidence_for_origin(origin),
            conflict_key=policy.conflict_key(
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
            copy.write_row(
                [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields]
            )


# --- the benchmark queries --------------------------------------------------------------

QUERY_TEMPLATES = (
    "what does my {relation} {name} like to eat",
    "when is {name}'s birthday",
    "{food}",
    "do I like {food}",
    "trip to {place}",
    "how did I feel after the {event}",
    "what did {name} recommend about {topic}",
    "where did I leave my {thing}",
    "{hobby} plans with {name}",
    "what do I know about {topic}",
    "who is {name}",
    "remind me what I said about {topic} and {topic2}",
    "my {relation}'s job",
    "what happened in {place} during the {event}",
)


@dataclass(frozen=True)
class BenchQuery:
    surface: str
    scope: dict[str, str]
    query: str
    context: str = "general"
    crisis_frame: bool = False
    safety_critical_context: bool = False

    def payload(self) -> dict[str, Any]:
        return {
            "surface": self.surface,
            "scope": self.scope,
            "query": self.query,
            "context": self.context,
            "crisis_frame": self.crisis_frame,
            "safety_critical_context": self.safety_critical_context,
        }


def bench_queries(synthetic: Synthetic, count: int, *, seed: int) -> list[BenchQuery]:
    """Varied requests of the `assistant` consumer, within its capabilities: mostly its
    own surface, a quarter the shell's, about a tenth without a query; profile, session,
    scene and notebook scopes; a few in a health or financial context and one crisis
    frame. (Before the read gate a sixth of them claimed the notebook surface with a
    budget of 25, which the assistant may not: they are the assistant's own now.)"""
    rng = random.Random(seed)  # noqa: S311 - deterministic test data, not secrets
    vocabulary = synthetic.vocabulary
    queries = []
    for index in range(count):
        surface = "shell" if rng.random() < 0.25 else "assistant"
        text = "" if rng.random() < 0.1 else vocabulary.fill(rng, rng.choice(QUERY_TEMPLATES))
        scope: dict[str, str] = {"kind": ScopeKind.PROFILE}
        roll = rng.random()
        if roll < 0.15 and synthetic.sessions:
            scope = {"kind": ScopeKind.SESSION, "session_id": rng.choice(synthetic.sessions)}
        elif roll < 0.2 and synthetic.scenes:
            session, scene, room = rng.choice(synthetic.scenes)
            scope = {"kind": ScopeKind.SCENE, "session_id": session, "scene_id": scene}
            scope["room_id"] = room
        elif roll < 0.28 and synthetic.notebooks:
            scope = {"kind": ScopeKind.NOTEBOOK, "notebook_id": rng.choice(synthetic.notebooks)}
        context = rng.choice(["general"] * 8 + ["health", "financial"])
        if index == count // 2:
            queries.append(
                BenchQuery(
                    "assistant",
                    {"kind": ScopeKind.CRISIS},
                    "",
                    context="crisis",
                    crisis_frame=True,
                    safety_critical_context=True,
                )
            )
            continue
        queries.append(BenchQuery(surface, scope, text, context=context))
    return queries


# --- measuring ----------------------------------------------------------------------------


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 2)


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": _ms(statistics.median(ordered)), "p95": _ms(p95)}


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


@contextmanager
def _rolled_back() -> Iterator[None]:
    """Run a block whose writes are undone (a savepoint inside the open transaction)."""
    savepoint = transaction.savepoint_create()
    try:
        yield
    finally:
        transaction.savepoint_rollback(savepoint)


class _SharedConnectionServer:
    """The WSGI application on 127.0.0.1 in a thread that uses this thread's database
    connection, so HTTP recalls see the benchmark's data and their writes roll back
    with it (what Django's live server does for an in-memory database)."""

    def __init__(self) -> None:
        self.server = WSGIServer(("127.0.0.1", 0), _QuietHandler, allow_reuse_address=False)
        self.server.set_app(WSGIHandler())
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self._connection = connections["default"]  # the object, not the thread-local proxy

    def _serve(self) -> None:
        connections["default"] = self._connection
        self.server.serve_forever(poll_interval=0.05)

    def __enter__(self) -> _SharedConnectionServer:
        # Django would close the shared connection after each request (it is inside a
        # transaction, so it looks "unusable" to close_old_connections).
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        self._connection.inc_thread_sharing()
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
        self._connection.dec_thread_sharing()
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _post(url: str, token: str, payload: dict) -> dict:
    request = urllib.request.Request(  # noqa: S310 - always http://127.0.0.1
        url,
        data=json.dumps(payload).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        return json.loads(response.read())


def _vacuum_analyze(*, vacuum: bool = True) -> None:
    """What autovacuum would have done after the bench's writes: the planner's statistics
    of the memory tables (and, outside a transaction, their visibility map). ``vacuum``
    False inside a transaction, where PostgreSQL analyzes the transaction's own rows."""
    if connection.vendor != "postgresql":
        return
    tables = [
        m._meta.db_table
        for m in (MemoryEntry, MemoryRevision, MemoryEntryTerm, MemoryStem, MemoryCorpusShard)
    ]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"{'VACUUM ANALYZE' if vacuum else 'ANALYZE'} {table}")


def _cleanup(member_id, tenant_id) -> None:
    with transaction.atomic(), purge_bypass(MemoryRevision):
        MemoryEntryTerm.objects.filter(entry__member_id=member_id).delete()
        RecallRecord.objects.filter(member_id=member_id).delete()
        MemoryStem.objects.filter(member_id=member_id).delete()
        MemoryCorpusShard.objects.filter(member_id=member_id).delete()
        entries = MemoryEntry.objects.filter(member_id=member_id)
        entries.update(revision=None)
        MemoryRevision.objects.filter(member_id=member_id).delete()
        entries.delete()
        TenantMembership.objects.filter(user_id=member_id).delete()
        # Straight DELETEs: the synthetic member and tenant own nothing else any more,
        # and the ORM's cascade would visit every table that could point at a user.
        with connection.cursor() as cursor:
            for model, pk in ((User, member_id), (Tenant, tenant_id)):
                table, key = model._meta.db_table, model._meta.pk
                value = key.get_db_prep_value(pk, connection)  # a UUID as this database keeps it
                cursor.execute(f'DELETE FROM "{table}" WHERE "{key.column}" = %s', [value])  # noqa: S608


# --- LoCoMo through the product ------------------------------------------------------------

LOCOMO_CONSENTS = ("data_processing", "data_storage")


@dataclass
class ProductConversation:
    """One LoCoMo conversation as a member's memory written through the write path."""

    sample_id: str
    member: User
    questions: tuple[locomo.LocomoQuestion, ...]  # evidence as entry ids
    now: datetime
    refused: int = 0


def locomo_ingest(sample: dict[str, Any], *, client: ServiceClient) -> ProductConversation:
    """A new member who granted processing and storage in the ledger (a day before the
    first session), then every turn as a surface sends it: the turn appended to the turn
    log (`conversation_turn_append`), then one memory per turn (`memory_remember`, the
    client as a service actor): a profile fact, user-stated, quoting that turn as its
    `session-turn` provenance, dated by its session. The write path indexes it with its
    neighbour context (`memory.recall.context`)."""
    conversation = sample["conversation"]
    sessions = locomo.sessions_of(conversation)
    dates = {
        n: locomo.parse_session_datetime(conversation[f"session_{n}_date_time"]) for n in sessions
    }
    member = User.objects.create_user(
        email=f"locomo-{uuid.uuid4().hex[:12]}@bench.invalid", password=None, kind=UserKind.MEMBER
    )
    consents_grant(member, LOCOMO_CONSENTS, now=min(dates.values()) - timedelta(days=1))
    actor = Actor.of(client)
    known: dict[str, str] = {}
    refused = 0
    for number in sessions:
        when, session_id = dates[number], f"session-{number}"
        for turn in conversation[f"session_{number}"]:
            body = f"{turn['speaker']}: {turn['text']}"
            stored = conversation_turn_append(
                member=member,
                session_id=session_id,
                speaker="member",
                text=body,
                consumer=client.consumer,
                actor=actor,
            )
            write = MemoryWriteRequest.model_validate(
                {
                    "scope": {"kind": ScopeKind.PROFILE},
                    "category": MemoryCategory.FACT,
                    "body": body,
                    "origin": Origin.USER_STATED,
                    "provenance": [
                        {
                            "kind": ProvenanceKind.SESSION_TURN,
                            "ref": str(stored.pk),
                            "captured_at": when.isoformat(),
                        }
                    ],
                },
                context={"user_id": member.pk},
            )
            try:
                result = memory_remember(
                    member=member,
                    write=write,
                    actor=actor,
                    consumer=client.consumer,
                    session_id=session_id,
                    now=when,
                )
            except DomainError:
                refused += 1
                continue
            known.setdefault(str(turn["dia_id"]), str(result.entry.pk))
    return ProductConversation(
        sample_id=str(sample["sample_id"]),
        member=member,
        questions=locomo.questions_of(sample, known),
        now=max(dates.values()) + timedelta(minutes=1),
        refused=refused,
    )


def _locomo_request(
    conversation: ProductConversation, question: str, *, client: ServiceClient, k: int
):
    return recall_request_build(
        member_id=conversation.member.pk,
        capabilities=principal_capabilities(client),
        surface=Consumer.ASSISTANT,
        scope={"kind": ScopeKind.PROFILE},
        query=question,
        budget=k,
        now=conversation.now,
    )


def locomo_recall(
    conversation: ProductConversation, question: str, *, client: ServiceClient, k: int
) -> list[str]:
    """The question as the client's recall (`recall_request_build` + `recall_run`, what
    the recall API calls), its writes (usage counters, record, audit) rolled back so
    every question meets the same memory."""
    with _rolled_back():
        request = _locomo_request(conversation, question, client=client, k=k)
        result = recall_run(request=request, actor=Actor.of(client), now=conversation.now)
    return list(result.audit_envelope.returned_ids)


def locomo_recall_previous(
    conversation: ProductConversation, question: str, *, client: ServiceClient, k: int
) -> list[str]:
    """The same request over the same stored memory, resolved by the store `recall_run`
    uses (`recall_resolve`, read-only) with the previous default ranker (`bm25-v1`)."""
    request = _locomo_request(conversation, question, client=client, k=k)
    result = recall_resolve(request=request, now=conversation.now, semantic=bm25_v1)
    return list(result.audit_envelope.returned_ids)


def locomo_product(samples: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Evidence recall of the product on LoCoMo: ingested and recalled through the
    services (see `locomo_ingest`, `locomo_recall`), all of it rolled back."""
    k = max(locomo.KS)
    sums: dict[str, float] = {}
    per_category: dict[int, list[float]] = {}
    conversations = questions = refused = 0
    times: list[float] = []
    with transaction.atomic():
        try:
            client = ServiceClient.objects.create(
                consumer=Consumer.ASSISTANT, label=f"bench-{uuid.uuid4().hex[:12]}"
            )
            ingested = [locomo_ingest(sample, client=client) for sample in samples]
            # The planner's statistics as a live database has them after such writes (the
            # full-text peer analyzes its table too).
            _vacuum_analyze(vacuum=False)
            for conversation in ingested:
                conversations += 1
                refused += conversation.refused
                for q in conversation.questions:
                    seconds, ranked = _timed(
                        lambda q=q, c=conversation: locomo_recall(c, q.question, client=client, k=k)
                    )
                    times.append(seconds)
                    questions += 1
                    for metric, value in locomo.score(ranked, q.evidence).items():
                        sums[metric] = sums.get(metric, 0.0) + value
                    hit = locomo.score(ranked, q.evidence)[f"recall_any@{k}"]
                    per_category.setdefault(q.category, []).append(hit)
                    previous = locomo_recall_previous(conversation, q.question, client=client, k=k)
                    for metric, value in locomo.score(previous, q.evidence).items():
                        key = f"previous_default.{metric}"
                        sums[key] = sums.get(key, 0.0) + value
        finally:
            transaction.set_rollback(True)
    summary: dict[str, Any] = {"conversations": conversations, "questions": questions}
    summary["refused_writes"] = refused
    summary["recall_run_latency_ms"] = _percentiles(times) if times else None
    for metric, total in sorted(sums.items()):
        summary[metric] = round(total / questions, 4) if questions else 0.0
    for category, hits in sorted(per_category.items()):
        summary[f"recall_any@{k}.cat{category}"] = round(sum(hits) / len(hits), 4)
    return summary


# --- peers: the same corpus in another engine ----------------------------------------------

_FTS_TABLE = "bench_locomo_fts"


def locomo_postgres_fts(samples: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """PostgreSQL full-text search on the same LoCoMo corpus (one document per turn,
    ``"{speaker}: {text}"``): a `tsvector` column (English configuration) with a GIN
    index, each question's lexemes OR-ed into a `tsquery`, ranked by `ts_rank_cd` (ties
    to the earlier turn). A temporary table, dropped at the end. None off PostgreSQL."""
    if connection.vendor != "postgresql":
        return None
    conversations = [locomo.build_conversation(sample) for sample in samples]
    k = max(locomo.KS)
    sums: dict[str, float] = {}
    per_category: dict[int, list[float]] = {}
    times: list[float] = []
    with transaction.atomic(), connection.cursor() as cursor:
        try:
            cursor.execute(
                f"CREATE TEMP TABLE {_FTS_TABLE} (member text, entry_id text, body text,"
                " document tsvector) ON COMMIT DROP"
            )
            for conversation in conversations:
                cursor.executemany(
                    f"INSERT INTO {_FTS_TABLE} VALUES (%s, %s, %s,"  # noqa: S608 - fixed name
                    " to_tsvector('english', %s))",
                    [
                        (conversation.user_id, c.entry_id, c.body, c.body)
                        for c in conversation.candidates
                    ],
                )
            cursor.execute(f"CREATE INDEX ON {_FTS_TABLE} USING GIN (document)")
            cursor.execute(f"ANALYZE {_FTS_TABLE}")
            statement = (
                f"SELECT entry_id FROM {_FTS_TABLE}, "  # noqa: S608 - fixed name
                "CAST(NULLIF(replace(CAST(plainto_tsquery('english', %s) AS text), '&', '|'),"
                " '') AS tsquery) AS q WHERE member = %s AND document @@ q"
                " ORDER BY ts_rank_cd(document, q) DESC, entry_id LIMIT %s"
            )
            questions = 0
            for conversation in conversations:
                for q in conversation.questions:
                    start = time.perf_counter()
                    cursor.execute(statement, [q.question, conversation.user_id, k])
                    ranked = [entry_id for (entry_id,) in cursor.fetchall()]
                    times.append(time.perf_counter() - start)
                    questions += 1
                    scores = locomo.score(ranked, q.evidence)
                    for metric, value in scores.items():
                        sums[metric] = sums.get(metric, 0.0) + value
                    per_category.setdefault(q.category, []).append(scores[f"recall_any@{k}"])
        finally:
            transaction.set_rollback(True)
    summary: dict[str, Any] = {"engine": "postgresql-fts-ts_rank_cd", "questions": questions}
    for metric, total in sorted(sums.items()):
        summary[metric] = round(total / questions, 4) if questions else 0.0
    for category, hits in sorted(per_category.items()):
        summary[f"recall_any@{k}.cat{category}"] = round(sum(hits) / len(hits), 4)
    summary["latency_ms"] = _percentiles(times)
    return summary


# --- the index's size and its cost per write ----------------------------------------------

INDEX_MODELS = (MemoryEntryTerm, MemoryStem, MemoryCorpusShard, MemoryContextAnchor)


def index_bytes() -> dict[str, int] | None:
    """`pg_total_relation_size` (table, indexes, TOAST) of each index table: the postings,
    the vocabulary, the counter shards and the context anchors (PostgreSQL only; the
    bench takes what one member's writes add to them, in a database of its own)."""
    if connection.vendor != "postgresql":
        return None
    sizes = {}
    with connection.cursor() as cursor:
        for model in INDEX_MODELS:
            cursor.execute("SELECT pg_total_relation_size(%s)", [model._meta.db_table])
            sizes[model._meta.db_table] = cursor.fetchone()[0]
    return sizes


def write_index_cost(synthetic: Synthetic, count: int, *, seed: int) -> dict[str, float]:
    """What the write path spends keeping the index current for one new entry: the
    corpus counters and the postings (`corpus_stats_apply` + `entry_terms_index`, as
    `memory.services._create` calls them), for ``count`` new entries, in ms. The caller
    rolls the writes back."""
    rng = random.Random(seed)  # noqa: S311 - test data
    now = timezone.now()
    times = []
    for index in range(count):
        body = synthetic.vocabulary.fill(rng, rng.choice(TEMPLATES))
        entry = MemoryEntry(
            id=uuid.uuid4(),
            member=synthetic.member,
            scope_kind=ScopeKind.PROFILE,
            scope_key=f"profile:{synthetic.member.pk}",
            category=MemoryCategory.FACT,
            body=body,
            origin=Origin.USER_STATED,
            lifecycle=Lifecycle.ACTIVE,
            confidence=1.0,
            conflict_key=f"fact::::write-{index}",
            term_stats=term_stats_for(body).to_json(),
            created_at=now,
            updated_at=now,
        )
        entry.save(force_insert=True)
        seconds, _ = _timed(
            lambda entry=entry: (
                corpus_stats_apply(member_id=entry.member_id, added=[(entry.pk, entry.term_stats)]),
                entry_terms_index(member_id=entry.member_id, entries=[entry]),
            )
        )
        times.append(seconds)
    return {**_percentiles(times), "mean": _ms(statistics.mean(times))}


def _store_of(checkout: str | None):
    """Another checkout's `memory.recall.store`, loaded beside this one (the rest of the
    code is this checkout's: a comparison of the store alone), or None."""
    if checkout is None:
        return None
    # The store moved from memory/recall_store.py into the recall package; older
    # checkouts still have it at the old place.
    places = [
        Path(checkout) / "memory" / p for p in ("recall/store/__init__.py", "recall_store.py")
    ]
    path = next((p for p in places if p.is_file()), None)
    if path is None:
        raise CommandError(
            f"No recall store (memory/recall/store/ or recall_store.py) in {checkout}"
        )
    name = "memory._recall_store_against"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class _Member:
    """One size's synthetic member, as `Command._create` wrote it."""

    n: int
    synthetic: Synthetic
    insert_seconds: float
    index_bytes: dict[str, int] | None


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


def _request_builder(member: User) -> Callable[[BenchQuery, datetime], Any]:
    """A bench query as the `assistant` consumer's recall request for ``member``: the
    HTTP part's client has exactly these capabilities (the table's row, no narrowing)."""
    capabilities = capabilities_for(Consumer.ASSISTANT)

    def build(q: BenchQuery, now: datetime):
        return recall_request_build(
            member_id=member.pk,
            capabilities=capabilities,
            surface=q.surface,
            scope=q.scope,
            query=q.query,
            context=q.context,
            crisis_frame=q.crisis_frame,
            safety_critical_context=q.safety_critical_context,
            now=now,
        )

    return build


def require_scratch_database() -> None:
    """The benchmarks write (and roll back or delete) on the configured database: on
    PostgreSQL only one named for it (``*bench*`` or ``*scratch*``)."""
    name = str(connection.settings_dict.get("NAME") or "")
    if connection.vendor == "postgresql" and not ("bench" in name or "scratch" in name):
        raise CommandError(
            f"bench_recall writes to the database: {name!r} is not a bench or scratch one "
            "(its name must contain 'bench' or 'scratch')."
        )


class Command(BaseCommand):
    help = (
        "Recall benchmarks: --locomo [PATH] (evidence recall on LoCoMo) and/or --scale N "
        "[N ...] (latency for one synthetic member with N entries). Each part prints a "
        "JSON summary on its last line."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--locomo",
            nargs="?",
            const=str(DEFAULT_LOCOMO),
            metavar="PATH",
            help=f"a LoCoMo JSON file (default {DEFAULT_LOCOMO})",
        )
        parser.add_argument("--scale", nargs="+", type=int, metavar="N")
        parser.add_argument(
            "--peers",
            action="store_true",
            help="with LoCoMo: the same corpus in PostgreSQL full-text search, side by side",
        )
        parser.add_argument("--queries", type=int, default=50, help="recalls per size")
        parser.add_argument("--warmup", type=int, default=5)
        parser.add_argument(
            "--rounds",
            type=int,
            default=3,
            help="passes over the queries in process; a query's time is its median",
        )
        parser.add_argument(
            "--reference-timed",
            type=int,
            default=10,
            help="how many queries time the full reference (every query is compared)",
        )
        parser.add_argument("--seed", type=int, default=20261130)
        parser.add_argument(
            "--against",
            metavar="CHECKOUT",
            help="with --scale: also time another checkout's memory/recall/store/__init__.py (a git"
            " worktree of an earlier commit), alternating with this one query by query in"
            " the same rounds, on the same data",
        )

    def handle(self, *args, **options) -> None:
        require_scratch_database()
        if options["locomo"] is None and (options["peers"] or not options["scale"]):
            options["locomo"] = str(DEFAULT_LOCOMO)
        if options["locomo"] is not None:
            self._locomo(Path(options["locomo"]), peers=options["peers"])
        if options["scale"]:
            if any(n < 1 for n in options["scale"]):
                raise CommandError("--scale sizes must be positive")
            if options["rounds"] < 1:
                raise CommandError("--rounds must be positive")
            options["against_store"] = _store_of(options.get("against"))
            self._scale(options)

    # --- LoCoMo ---------------------------------------------------------------------

    def _locomo(self, path: Path, *, peers: bool = False) -> None:
        if not path.is_file():
            raise CommandError(f"No LoCoMo file at {path}")
        samples = locomo.load_locomo(path)
        k = max(locomo.KS)
        self.stdout.write(f"LoCoMo evidence recall on {path.name}: {locomo.CREDIT}")
        product = locomo_product(samples)
        self.stdout.write(
            f"product (write path + recall service on {connection.vendor}): "
            f"{product['conversations']} conversations, {product['questions']} questions, "
            f"{product['refused_writes']} writes refused"
        )
        self.stdout.write(
            f"  any@5 {product['recall_any@5']:.3f}  any@10 {product[f'recall_any@{k}']:.3f}"
            f"  (previous default, bm25-v1: {product[f'previous_default.recall_any@{k}']:.3f})"
            f"  frac@10 {product[f'recall_frac@{k}']:.3f}  per category @10: "
            + ", ".join(
                f"{key.rsplit('.cat', 1)[1]}: {value:.3f}"
                for key, value in product.items()
                if ".cat" in key
            )
        )
        # The previous default: candidates the benchmark builds itself (the neighbour
        # context computed by `memory.bench.locomo`), through the pure pipeline.
        summary = locomo.evaluate([locomo.build_conversation(s) for s in samples])
        self.stdout.write(
            "profiles built by the benchmark itself (the previous figures), "
            f"{summary['conversations']} conversations, {summary['questions']} questions"
        )
        self.stdout.write(f"{'config':<18}{'mode':<10}{'any@5':>8}{'any@10':>8}{'frac@10':>9}")
        for config in locomo.CONFIGS:
            for mode in ("semantic", "pipeline"):
                key = f"{config.name}.{mode}"
                self.stdout.write(
                    f"{config.name:<18}{mode:<10}"
                    f"{summary[f'{key}.recall_any@5']:>8.3f}"
                    f"{summary[f'{key}.recall_any@10']:>8.3f}"
                    f"{summary[f'{key}.recall_frac@10']:>9.3f}"
                )
        result = {**summary, "product": product}
        if peers:
            fts = locomo_postgres_fts(samples)
            result["peers"] = {"postgresql-fts": fts}
            self.stdout.write(f"{'engine':<44}{'any@10':>8}{'p50 ms':>9}{'p95 ms':>9}")
            latency = product["recall_run_latency_ms"]
            self.stdout.write(
                f"{'Iris (write path, recall_run, in process)':<44}"
                f"{product[f'recall_any@{k}']:>8.3f}{latency['p50']:>9}{latency['p95']:>9}"
            )
            if fts is None:
                self.stdout.write("PostgreSQL full-text search: skipped (not on PostgreSQL)")
            else:
                self.stdout.write(
                    f"{'PostgreSQL FTS (tsvector, GIN, ts_rank_cd)':<44}"
                    f"{fts[f'recall_any@{k}']:>8.3f}{fts['latency_ms']['p50']:>9}"
                    f"{fts['latency_ms']['p95']:>9}"
                )
        self.stdout.write(json.dumps(result))

    # --- scale ----------------------------------------------------------------------

    def _scale(self, options: dict) -> None:
        sizes = sorted(set(options["scale"]))
        self.stdout.write(
            f"Recall at scale on {connection.vendor} "
            f"({'real figures' if connection.vendor == 'postgresql' else 'not PostgreSQL'})"
        )
        figures: dict[str, Any] = {}
        identical = True
        peak_mb = 0.0
        members: dict[int, _Member] = {}
        try:
            for n in sizes:
                members[n] = self._create(n, options)
            for n in sizes:
                run = self._one_size(members[n], options)
                figures[str(n)] = run
                identical = identical and run["identical_ids"]
                peak_mb = max(peak_mb, run["peak_traced_mb_production"])
                self.stdout.write(
                    f"N={n:>7}: in-process p50 {run['in_process']['p50']} ms "
                    f"p95 {run['in_process']['p95']} ms | recall_run p50 "
                    f"{run['recall_run']['p50']} ms | HTTP p50 {run['http']['p50']} ms "
                    f"p95 {run['http']['p95']} ms | reference p50 {run['reference']['p50']} ms "
                    f"(x{run['speedup_vs_reference']}) | identical ids: {run['identical_ids']} | "
                    f"index {run['index_bytes_per_entry']} B/entry | write-path index p50 "
                    f"{run['write_index_ms']['p50']} ms"
                )
                if "in_process_against" in run:
                    self.stdout.write(
                        f"N={n:>7}: --against in-process p50 {run['in_process_against']['p50']}"
                        f" ms p95 {run['in_process_against']['p95']} ms (this code"
                        f" {run['in_process']['p50']} / {run['in_process']['p95']}, the same"
                        f" rounds) | the same ids: {run['identical_to_against']}"
                    )
            interleaved = self._interleaved([members[n] for n in sizes], options)
        finally:
            for member in members.values():
                _cleanup(member.synthetic.member.pk, member.synthetic.tenant.pk)
        smallest, largest = str(sizes[0]), str(sizes[-1])
        for name, times in interleaved.items():
            self.stdout.write(
                f"Every size in the same rounds ({name}): "
                + " | ".join(f"N={n:>7} p50 {times[n]['p50']} p95 {times[n]['p95']}" for n in times)
                + f" | ratio {round(times[largest]['p50'] / times[smallest]['p50'], 2)}"
            )
        this = interleaved["this"]
        summary = {
            "benchmark": "recall-scale",
            "database": connection.vendor,
            "queries_per_size": options["queries"],
            "in_process_means": "recall_request_build + recall_store.recall_resolve (no writes),"
            f" each query's median of {options['rounds']} rounds",
            "recall_run_means": "recall_service.recall_run in-process, writes rolled back",
            "http_means": "POST /api/v1/members/{id}/recall/ over 127.0.0.1, writes rolled back",
            "interleaved_means": "in-process as above, every size's query i in the same round"
            " one after the other (the machine's drift hits every size alike): the ratio",
            "sizes": figures,
            "interleaved": interleaved,
            f"ratio_p50_{largest}_over_{smallest}": round(
                this[largest]["p50"] / this[smallest]["p50"], 2
            ),
            f"ratio_p50_{largest}_over_{smallest}_sizes_apart": round(
                figures[largest]["in_process"]["p50"] / figures[smallest]["in_process"]["p50"], 2
            ),
            f"ratio_http_p50_{largest}_over_{smallest}": round(
                figures[largest]["http"]["p50"] / figures[smallest]["http"]["p50"], 2
            ),
            f"speedup_vs_reference_at_{largest}": figures[largest]["speedup_vs_reference"],
            "peak_traced_mb": peak_mb,
            "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "identical_ids": identical,
        }
        if "against" in interleaved:
            against = interleaved["against"]
            summary[f"ratio_p50_{largest}_over_{smallest}_against"] = round(
                against[largest]["p50"] / against[smallest]["p50"], 2
            )
        self.stdout.write(json.dumps(summary))

    def _create(self, n: int, options: dict) -> _Member:
        """A synthetic member of ``n`` entries, kept until the run ends, and what its
        writes added to the index tables."""
        tenant = Tenant.objects.create(name=f"Bench {n}", slug=f"bench-{uuid.uuid4().hex[:12]}")
        member = User.objects.create_user(
            email=f"bench-{uuid.uuid4().hex[:12]}@bench.invalid",
            password=None,
            kind=UserKind.MEMBER,
        )
        TenantMembership.objects.create(tenant=tenant, user=member)
        before = index_bytes()
        now = timezone.now()
        try:
            insert_seconds, synthetic = _timed(
                lambda: populate(member, tenant, n, now=now, seed=options["seed"])
            )
        except BaseException:
            _cleanup(member.pk, tenant.pk)
            raise
        _vacuum_analyze()
        after = index_bytes()
        added = None
        if before is not None and after is not None:
            added = {table: after[table] - before[table] for table in after}
        self.stdout.write(f"N={n:>7}: inserted in {insert_seconds:.1f} s")
        return _Member(n, synthetic, insert_seconds, added)

    def _one_size(self, sized: _Member, options: dict) -> dict[str, Any]:
        with transaction.atomic():
            try:
                run = self._measure(sized.synthetic, sized.n, options, sized.insert_seconds)
                run["write_index_ms"] = write_index_cost(sized.synthetic, 50, seed=options["seed"])
            finally:
                transaction.set_rollback(True)
        sizes = sized.index_bytes
        run["index_bytes"] = sizes
        run["index_bytes_per_entry"] = round(sum(sizes.values()) / sized.n) if sizes else None
        return run

    def _interleaved(self, sized: list[_Member], options: dict) -> dict[str, dict[str, Any]]:
        """Every size's in-process times again, the sizes alternating query by query in
        the same rounds (and, with --against, both stores): timed one size after the
        other, a machine whose speed drifts by a fifth in minutes (this one does) moves
        the ratio by as much."""
        resolvers = {"this": recall_resolve}
        if options.get("against_store") is not None:
            resolvers["against"] = options["against_store"].recall_resolve
        samples: dict[str, dict[int, list[list[float]]]] = {name: {} for name in resolvers}
        with transaction.atomic():
            try:
                plans = {}
                for member in sized:
                    consents_grant(member.synthetic.member)
                    queries = bench_queries(
                        member.synthetic, options["queries"], seed=options["seed"]
                    )
                    build = _request_builder(member.synthetic.member)
                    plans[member.n] = (queries, build, [timezone.now() for _ in queries])
                    for name, resolve_in in resolvers.items():
                        samples[name][member.n] = [[] for _ in queries]
                        for q in queries[: options["warmup"]]:
                            now = timezone.now()
                            resolve_in(request=build(q, now), now=now)
                pairs = [(n, name) for n in plans for name in resolvers]
                for round_ in range(options["rounds"]):
                    order = pairs if round_ % 2 == 0 else pairs[::-1]
                    for index in range(options["queries"]):
                        for n, name in order:
                            queries, build, moments = plans[n]
                            q, now = queries[index], moments[index]
                            seconds, _ = _timed(
                                lambda q=q, now=now, build=build, f=resolvers[name]: f(
                                    request=build(q, now), now=now
                                )
                            )
                            samples[name][n][index].append(seconds)
            finally:
                transaction.set_rollback(True)
        return {
            name: {
                str(n): _percentiles([statistics.median(s) for s in per_query])
                for n, per_query in by_size.items()
            }
            for name, by_size in samples.items()
        }

    def _measure(
        self, synthetic: Synthetic, n: int, options: dict, insert_seconds: float
    ) -> dict[str, Any]:
        member = synthetic.member
        consents_grant(member)
        queries = bench_queries(synthetic, options["queries"], seed=options["seed"])
        warmup = queries[: options["warmup"]]
        build = _request_builder(member)

        def production(q: BenchQuery, now: datetime, resolve_in=recall_resolve):
            return resolve_in(request=build(q, now), now=now)

        # In-process, read-only: the store and the pipeline, every query once per round
        # at its own instant, its time the median of its rounds (a busy machine's noise).
        # With --against, the other checkout's store runs beside it, query by query, one
        # first in even rounds, the other in odd ones: the machine's drift hits both alike.
        resolvers = {"this": recall_resolve}
        if options.get("against_store") is not None:
            resolvers["against"] = options["against_store"].recall_resolve
        for q in warmup:
            for resolve_in in resolvers.values():
                production(q, timezone.now(), resolve_in)
        moments = [timezone.now() for _ in queries]
        samples = {name: [[] for _ in queries] for name in resolvers}
        listed: dict[str, list[list[str]]] = {name: [] for name in resolvers}
        for round_ in range(options["rounds"]):
            order = list(resolvers) if round_ % 2 == 0 else list(resolvers)[::-1]
            for index, (q, now) in enumerate(zip(queries, moments, strict=True)):
                for name in order:
                    seconds, result = _timed(
                        lambda q=q, now=now, f=resolvers[name]: production(q, now, f)
                    )
                    samples[name][index].append(seconds)
                    ids = list(result.audit_envelope.returned_ids)
                    if round_ == 0:
                        listed[name].append(ids)
                    elif ids != listed[name][index]:
                        raise CommandError(
                            f"a read-only recall changed between rounds: {q.query!r}"
                        )
        times = [statistics.median(s) for s in samples["this"]]
        in_process = _percentiles(times)
        compared = {}
        if "against" in resolvers:
            compared = {
                "in_process_against": _percentiles(
                    [statistics.median(s) for s in samples["against"]]
                ),
                "identical_to_against": listed["against"] == listed["this"],
            }
        produced = listed["this"]

        # The reference on the same state and the same instants: every entry of the
        # member, whatever its lifecycle or scope, through the pure pipeline (timed like
        # the production path: request, candidates, corpus statistics, pipeline).
        corpus = corpus_stats_get(member_id=member.pk)
        reference_times = []
        identical = True
        mismatches = 0
        cached = None
        for index, (q, now) in enumerate(zip(queries, moments, strict=True)):
            request = build(q, now)
            if index < options["reference_timed"] or cached is None:

                def reference(q=q, now=now):
                    return resolve(
                        member_candidates(member_id=member.pk),
                        build(q, now),
                        now,
                        corpus_stats=corpus_stats_get(member_id=member.pk),
                    )

                gc.collect()
                seconds, result = _timed(reference)
                reference_times.append(seconds)
                if cached is None:
                    cached = member_candidates(member_id=member.pk)
            else:
                result = resolve(cached, request, now, corpus_stats=corpus)
            if list(result.audit_envelope.returned_ids) != produced[index]:
                identical = False
                mismatches += 1
        reference = _percentiles(reference_times)
        timed = len(reference_times)
        speedup = round(statistics.median(reference_times) / statistics.median(times[:timed]), 1)

        # Peak memory of one recall, production vs reference (tracemalloc, one query).
        del cached
        gc.collect()
        probe = next((q for q in queries if q.query), queries[0])
        tracemalloc.start()
        production(probe, timezone.now())
        production_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        resolve(
            member_candidates(member_id=member.pk),
            build(probe, timezone.now()),
            timezone.now(),
            corpus_stats=corpus,
        )
        reference_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()

        # The full service in-process, writes (usage counters, record, audit) undone.
        actor = Actor.system("bench")
        run_times = []
        for q in queries:
            with _rolled_back():
                seconds, _ = _timed(
                    lambda q=q: recall_run(request=build(q, timezone.now()), actor=actor)
                )
            run_times.append(seconds)

        # Over HTTP: a service client's token, real requests to 127.0.0.1.
        client = ServiceClient.objects.create(
            consumer=Consumer.ASSISTANT, label=f"bench-{uuid.uuid4().hex[:12]}"
        )
        _, token = token_issue(owner=client)
        http_times = []
        with _SharedConnectionServer() as server:
            url = f"http://127.0.0.1:{server.port}/api/v1/members/{member.pk}/recall/"
            for q in warmup:
                with _rolled_back():
                    _post(url, token, q.payload())
            for q in queries:
                with _rolled_back():
                    seconds, body = _timed(lambda q=q: _post(url, token, q.payload()))
                http_times.append(seconds)
                if "entries" not in body:
                    raise CommandError(f"HTTP recall failed: {body}")
        live = MemoryEntry.objects.filter(member=member, lifecycle=Lifecycle.ACTIVE).count()
        return {
            "entries": n,
            "active_entries": live,
            "postings": MemoryEntryTerm.objects.filter(entry__member_id=member.pk).count(),
            "insert_seconds": round(insert_seconds, 1),
            "in_process": in_process,
            "recall_run": _percentiles(run_times),
            "http": _percentiles(http_times),
            "reference": reference,
            "reference_timed_queries": timed,
            "speedup_vs_reference": speedup,
            "peak_traced_mb_production": round(production_peak / 2**20, 2),
            "peak_traced_mb_reference": round(reference_peak / 2**20, 2),
            "identical_ids": identical,
            "mismatched_queries": mismatches,
            **compared,
        }
