"""The recall store: its certified shortlist returns exactly what the pure pipeline
returns over every entry of the member, and the stem index keeps up with writes."""

import random
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from iris_site.audit.events import Actor
from iris_site.enums import Consumer
from iris_site.keys.envelope import member_token
from memory.access.capabilities import capabilities_for
from memory.enums import (
    SENSITIVE_CATEGORIES,
    Lifecycle,
    MemoryCategory,
    Origin,
    RecallContext,
    ScopeKind,
    SuppressionReason,
)
from memory.forgetting.services import memory_tombstone
from memory.models import MemoryDeletionHold, MemoryEntry, MemoryEntryTerm, MemoryStem
from memory.pauses import memory_pause
from memory.policy.conflicts import conflict_key
from memory.recall import (
    RELEVANCE_V1,
    SEED_V1,
    CorpusStats,
    RecallRequest,
    ScopeKey,
    bm25,
    jaccard,
    resolve,
    term_stats_for,
)
from memory.recall.pipeline import (
    CONSUMER_NOT_ALLOWED,
    FULL_CLEAR_PENDING,
    OFF_THE_RECORD,
    SCOPE_SUPPRESSED,
)
from memory.recall.rankers import TermStats
from memory.recall.service import recall_request_build, recall_run
from memory.recall.store import (
    bounds,
    corpus_stats_get,
    entry_terms_index,
    member_candidates,
    member_index_load,
    plan,
    recall_candidates,
    recall_reference,
    recall_resolve,
    streams,
)
from memory.services import memory_edit
from tests.iris_site.factories import MemberFactory
from tests.memory.factories import consenting_member, remember
from tests.memory.facts import alike

pytestmark = pytest.mark.django_db
# The shortlist's own behaviour: PostgreSQL only (on SQLite a recall reads every entry).
SHORTLIST = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the shortlist: PostgreSQL"
)

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
WORDS = [
    "coffee",
    "tea",
    "garden",
    "sister",
    "brother",
    "birthday",
    "trip",
    "lisbon",
    "tokyo",
    "piano",
    "guitar",
    "running",
    "doctor",
    "medication",
    "budget",
    "rent",
    "wedding",
    "concert",
    "project",
    "deadline",
    "dog",
    "cat",
    "keys",
    "phone",
    "breakfast",
    "dinner",
    "morning",
    "evening",
    "happy",
    "tired",
    "plan",
    "call",
    "book",
    "movie",
]
NAMES = ["Ada", "Bo", "Cyd", "Dee", "Eun", "Fay"]
STOP = ["the", "and", "my", "is", "a", "to", "with"]
# Longer than the index's stem prefix: two such words share a prefix, not a stem.
LONG = ["x" * 70 + "alpha", "x" * 70 + "omega"]
SESSIONS, SCENES, ROOMS, POSES = ["s-0", "s-1", "s-2"], ["sc-0", "sc-1"], ["r-0", "r-1"], ["p-0"]
NOTEBOOKS = ["nb-0", "nb-1"]
OPERATORS = [str(uuid.UUID(int=1)), str(uuid.UUID(int=2))]
TENANTS = [str(uuid.UUID(int=11)), str(uuid.UUID(int=12))]
CATEGORIES = (
    MemoryCategory.FACT,
    MemoryCategory.PREFERENCE,
    MemoryCategory.SAFETY,
    MemoryCategory.FAMILY,
    MemoryCategory.RELATIONSHIP,
    *sorted(SENSITIVE_CATEGORIES)[::3],
)
SURFACES = ["assistant", "shell", "notebook", "admin", "watch-face"]
BASE_CONSENTS = frozenset({"data_processing", "data_storage", "sensitive_data"})
ASSISTANT = capabilities_for(Consumer.ASSISTANT)


def _body(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 12))]
    words += [rng.choice(NAMES)] * rng.randint(0, 2) + [rng.choice(STOP)] * rng.randint(0, 3)
    if rng.random() < 0.05:
        words.append(rng.choice(LONG))
    rng.shuffle(words)
    return " ".join(words)


def _scope(rng: random.Random) -> dict:
    kind = rng.choice(
        [ScopeKind.PROFILE] * 6
        + [ScopeKind.SESSION] * 3
        + [ScopeKind.SCENE, ScopeKind.POSE, ScopeKind.NOTEBOOK, ScopeKind.NOTEBOOK]
        + [ScopeKind.CRISIS, ScopeKind.OPERATOR_COPILOT, ScopeKind.TENANT, ScopeKind.TENANT]
    )
    scope: dict = {"kind": kind}
    if kind in (ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE):
        scope["session_id"] = rng.choice(SESSIONS)
    if kind in (ScopeKind.SCENE, ScopeKind.POSE):
        scope["scene_id"] = rng.choice(SCENES)
    if kind == ScopeKind.SCENE:
        scope["room_id"] = rng.choice(ROOMS)
    if kind == ScopeKind.POSE:
        scope |= {"pose_id": rng.choice(POSES), "avatar_id": "av-0"}
    if kind == ScopeKind.NOTEBOOK:
        scope["notebook_id"] = rng.choice(NOTEBOOKS)
    if kind == ScopeKind.OPERATOR_COPILOT:
        scope["operator_id"] = rng.choice(OPERATORS)
    if kind == ScopeKind.TENANT:
        scope["tenant_id"] = rng.choice(TENANTS)
    return scope


def synthetic_member(seed: int, n: int):
    """A member with ``n`` entries of every kind the gates and the ranking care about,
    written in bulk with their postings and corpus statistics."""
    rng = random.Random(seed)
    member = MemberFactory()
    bodies = [_body(rng) for _ in range(n)]
    shared_time = NOW - timedelta(days=rng.randint(1, 90))
    entries = []
    for index, body in enumerate(bodies):
        scope = _scope(rng)
        category = rng.choice(CATEGORIES)
        origin = rng.choice(list(Origin.values))
        # Ties on purpose: one instant shared by many entries.
        updated = shared_time if rng.random() < 0.15 else NOW - timedelta(days=rng.uniform(-2, 400))
        references = rng.choice([0, 0, 0, 1, 2, 5, 9, 10, 14])
        last_referenced = None
        if references and rng.random() < 0.8:
            last_referenced = updated + timedelta(days=rng.uniform(0, 30))
        neighbours = [rng.choice(bodies)] if rng.random() < 0.3 else []
        subject = ""
        if rng.random() < 0.35:
            # Few subjects, varied spelling: clusters for dedupe, stored keys that fold
            # several of the pipeline's keys into one.
            subject = rng.choice(["coffee", "Coffee", "coffee ", "garden", "trip", "sister"])
        handle, sensitive_interaction = "", False
        if rng.random() < 0.2:
            handle = rng.choice(["actor-a", "actor-b"])
            sensitive_interaction = rng.random() < 0.4
        suppression = ("", None)
        if rng.random() < 0.1:
            ends = rng.choice([None, NOW + timedelta(days=rng.uniform(-5, 5))])
            suppression = (rng.choice(list(SuppressionReason.values)), ends)
        entries.append(
            MemoryEntry(
                id=uuid.UUID(int=rng.getrandbits(128)),
                member=member,
                tenant_id=scope.get("tenant_id") or (TENANTS[0] if rng.random() < 0.03 else None),
                scope_kind=scope["kind"],
                scope_key=f"{scope['kind']}:{index}",
                session_id=scope.get("session_id", ""),
                scene_id=scope.get("scene_id", ""),
                room_id=scope.get("room_id", ""),
                pose_id=scope.get("pose_id", ""),
                avatar_id=scope.get("avatar_id", ""),
                notebook_id=scope.get("notebook_id", ""),
                operator_id=scope.get("operator_id"),
                category=category,
                subject=subject,
                body=body,
                origin=origin,
                lifecycle=rng.choice([Lifecycle.ACTIVE] * 8 + list(Lifecycle.values)),
                confidence=0.8,
                conflict_key=conflict_key(category=category, actor_handle=handle, subject=subject),
                suppression_reason=suppression[0],
                suppression_ends_at=suppression[1],
                actor_handle=handle,
                sensitive_interaction=sensitive_interaction,
                term_stats=term_stats_for(body, neighbours=neighbours).to_json(),
                reference_count=references,
                last_referenced_at=last_referenced,
                created_at=updated,
                updated_at=updated,
            )
        )
    MemoryEntry.objects.bulk_create(entries)
    member_index_load(member_id=member.pk, entries=entries)
    for entry in rng.sample(entries, k=max(1, n // 50)):
        MemoryDeletionHold.objects.create(
            entry=entry,
            member_id=member.pk,
            request_id=uuid.uuid4(),
            placed_at=NOW,
            release_after=NOW + timedelta(days=7),
        )
    return member


def random_request(rng: random.Random, member) -> RecallRequest:
    scope = _scope(rng)
    words = [rng.choice(WORDS + NAMES + STOP + LONG + ["zebra"]) for _ in range(rng.randint(0, 4))]
    query = rng.choice([" ".join(words), " ".join(words), "", "   ", "the and"])
    tenant = rng.choice([None, None, *TENANTS])
    if scope["kind"] == ScopeKind.TENANT:
        tenant = scope["tenant_id"]
    crisis = rng.random() < 0.1
    consents = BASE_CONSENTS
    if rng.random() < 0.2:
        consents = frozenset(c for c in BASE_CONSENTS if rng.random() < 0.5)
    return RecallRequest(
        user_id=str(member.pk),
        surface=rng.choice(SURFACES),
        scope=ScopeKey(user_id=str(member.pk), **scope),
        # Any consumer: contexts it may not claim count as general, kinds it may not read
        # are withheld as a whole.
        capabilities=capabilities_for(rng.choice(Consumer.values)),
        consent_types=consents,
        clear_pending=rng.random() < 0.03,
        off_the_record=rng.random() < 0.03,
        tenant_id=tenant,
        query=query,
        context=rng.choice(list(RecallContext.values)),
        crisis_frame=crisis,
        safety_critical_context=crisis and rng.random() < 0.6,
        consented_categories=frozenset(c for c in SENSITIVE_CATEGORIES if rng.random() < 0.5),
        multi_actor_consented=rng.random() < 0.5,
        budget=rng.choice([None, None, None, 0, 1, 3, 7, 40]),
    )


def returned(result) -> list[tuple[str, float]]:
    return [(e.entry_id, e.score) for e in result.entries]


# The gate's boundary checks: an entry withheld for one of these is out of the recall's
# reach, which the envelope does not count (it counts every entry in reach).
OUT_OF_REACH = frozenset({"tenant-mismatch", "user-mismatch", "scope-mismatch"})


def assert_counts_cover(produced, expected) -> None:
    """The shortlist's envelope against the one over every entry: every withheld entry in
    reach counted under its reason, exactly (those out of reach not at all); evaluated,
    those plus the visible entries the ranking weighed, never more than every entry."""
    got = produced.audit_envelope.suppression_counts
    every = expected.audit_envelope.suppression_counts
    assert dict(got) == {r: n for r, n in every.items() if r not in OUT_OF_REACH}
    assert produced.audit_envelope.evaluated_count <= expected.audit_envelope.evaluated_count
    assert produced.audit_envelope.evaluated_count >= sum(got.values()) + len(produced.entries)


@pytest.fixture(params=["default", "shallow", "short-tail"])
def matching_depth(request, monkeypatch):
    """The matching stream's first join depth as shipped, as shallow as it gets (the
    budget plus a few: its bound for the matches it left unjoined then decides), and
    with a few rows joined at first and at most a few more that could still win (the
    bound then comes from past that cap)."""
    if request.param == "shallow":
        monkeypatch.setattr(plan, "MATCHING_DEPTH", 0)
    if request.param == "short-tail":
        monkeypatch.setattr(plan, "MATCHING_DEPTH", 3)
        monkeypatch.setattr(streams, "MATCHING_EXTRA_DEPTH", 5)
    return request.param


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_shortlist_returns_exactly_what_every_entry_would(seed, matching_depth, monkeypatch):
    """For random members and requests, the production path returns the same ranked
    entries, with the same scores, as the pure pipeline over every entry of the member
    (all lifecycles and scopes), under the default blend and the seed's."""
    # given (the shortlist's size: what the plan last handed the pipeline)
    handed: list[int] = []
    pipeline = plan.resolve

    def counting(candidates, *args, **kwargs):
        candidates = list(candidates)
        handed.append(len(candidates))
        return pipeline(candidates, *args, **kwargs)

    monkeypatch.setattr(plan, "resolve", counting)
    rng = random.Random(seed)
    member = synthetic_member(seed, n=300)
    everything = member_candidates(member_id=member.pk)
    corpus = corpus_stats_get(member_id=member.pk)
    shortlist_sizes = []
    for _ in range(40):
        request = random_request(rng, member)
        now = NOW + timedelta(days=rng.uniform(-6, 6))
        blend = rng.choice([RELEVANCE_V1, RELEVANCE_V1, SEED_V1])
        # when
        produced = recall_resolve(request=request, now=now, blend=blend)
        # then
        expected = resolve(everything, request, now, blend=blend, corpus_stats=corpus)
        assert returned(produced) == returned(expected), request
        assert [e.explanation for e in produced.entries] == [
            e.explanation for e in expected.entries
        ]
        assert_counts_cover(produced, expected)
        shortlist_sizes.append(handed[-1])
    # and on PostgreSQL it got there without reading everything (rows counted by kind
    # are never read); SQLite reads every entry
    if connection.vendor == "postgresql":
        assert sorted(shortlist_sizes)[len(shortlist_sizes) // 2] < len(everything) / 3


def test_the_shortlist_matches_the_reachable_pool_and_the_reference_helper():
    # given
    rng = random.Random(7)
    member = synthetic_member(7, n=200)
    for _ in range(15):
        request = random_request(rng, member)
        # when
        produced = recall_resolve(request=request, now=NOW)
        # then
        pool = resolve(
            recall_candidates(request=request),
            request,
            NOW,
            corpus_stats=corpus_stats_get(member_id=member.pk),
        )
        assert returned(produced) == returned(pool)
        assert returned(produced) == returned(recall_reference(request=request, now=NOW))


def test_a_ranker_without_the_stem_guarantee_reads_every_entry():
    # given
    rng = random.Random(11)
    member = synthetic_member(11, n=120)
    request = random_request(rng, member)
    request = RecallRequest(**{**request.__dict__, "query": "coffee garden", "budget": None})
    # when
    produced = recall_resolve(request=request, now=NOW, semantic=jaccard)
    # then
    expected = recall_reference(request=request, now=NOW, semantic=jaccard)
    assert returned(produced) == returned(expected)


def test_many_entries_alike_still_rank_exactly(matching_depth):
    """Hundreds of entries with the same words and instant: only the prior and the
    entry id order them, which the bounds must not get wrong."""
    # given
    member = MemberFactory()
    entries = [
        MemoryEntry(
            id=uuid.UUID(int=i + 1),
            member=member,
            scope_kind=ScopeKind.PROFILE,
            scope_key="profile",
            category=MemoryCategory.PREFERENCE,
            # One fact each (recall returns a fact once), all in the same words.
            body=alike("I take my coffee black", i),
            origin=Origin.USER_STATED,
            lifecycle=Lifecycle.ACTIVE,
            confidence=1.0,
            conflict_key="preference::::",
            term_stats=term_stats_for("I take my coffee black").to_json(),
            reference_count=i % 3,
            created_at=NOW - timedelta(days=1),
            updated_at=NOW - timedelta(days=1),
        )
        for i in range(300)
    ]
    MemoryEntry.objects.bulk_create(entries)
    member_index_load(member_id=member.pk, entries=entries)
    for query in ("coffee", ""):
        request = RecallRequest(
            user_id=str(member.pk),
            surface="assistant",
            scope=ScopeKey(kind=ScopeKind.PROFILE, user_id=str(member.pk)),
            capabilities=ASSISTANT,
            consent_types=BASE_CONSENTS,
            query=query,
        )
        # when
        produced = recall_resolve(request=request, now=NOW)
        # then
        expected = recall_reference(request=request, now=NOW)
        assert returned(produced) == returned(expected)
        assert len(produced.entries) == 12


def test_writes_keep_the_stem_index_in_step():
    """Remember, edit, pause, forget and recall (which moves the usage counters): after
    each, the production path agrees with the reference, and the postings mirror the
    entries' term statistics and prior."""
    # given
    member = consenting_member()
    coffee = remember(member, body="I take my coffee black", subject="coffee").entry
    tea = remember(member, body="Green tea in the morning", subject="tea").entry
    walk = remember(member, body="Long walks with my sister", category="family").entry
    remember(member, body="Coffee beans from Lisbon", category="fact")

    def agree(query: str) -> None:
        request = recall_request_build(
            member_id=member.pk,
            capabilities=capabilities_for(Consumer.NOTEBOOK),
            surface="notebook",
            scope={"kind": "profile"},
            query=query,
        )
        now = timezone.now()
        assert returned(recall_resolve(request=request, now=now)) == returned(
            recall_reference(request=request, now=now)
        )
        for entry in MemoryEntry.objects.filter(member=member):
            postings = MemoryEntryTerm.objects.filter(entry_id=entry.pk)
            if entry.lifecycle == Lifecycle.TOMBSTONED:
                assert not postings.exists()
                continue
            assert {p.stem.key for p in postings} == set(
                TermStats.from_json(entry.term_stats).terms
            )
        assert_stem_bounds_cover_postings(member)

    agree("coffee")
    # when the member edits, pauses and forgets
    memory_edit(entry=tea, actor=Actor.of(member), body="Black coffee, no sugar")
    agree("coffee sugar")
    memory_pause(entry=walk, actor=Actor.of(member))
    memory_tombstone(entry=coffee, actor=Actor.of(member))
    agree("coffee")
    # and recalls move the usage counters (the stream reads them from the entry)
    for _ in range(3):
        request = recall_request_build(
            member_id=member.pk,
            capabilities=ASSISTANT,
            surface="shell",
            scope={"kind": "profile"},
            query="coffee",
        )
        recall_run(request=request, actor=Actor.system())
    # then
    agree("coffee")
    agree("")
    assert MemoryEntry.objects.filter(member=member, reference_count=3).exists()


def assert_stem_bounds_cover_postings(member) -> None:
    """Every stem of the member bounds every posting it holds (the highest counts, the
    shortest lengths): what the shortlist's certificate rests on."""
    for stem in MemoryStem.objects.filter(member=member):
        for posting in MemoryEntryTerm.objects.filter(stem=stem):
            assert posting.own_count <= stem.max_own_count, stem.key
            assert posting.context_count <= stem.max_context_count, stem.key
            assert posting.length >= stem.min_length, stem.key
            assert posting.context_length >= stem.min_context_length, stem.key


def test_bulk_loads_and_batched_reindexing_keep_the_stem_bounds():
    # given a member loaded in bulk (the benchmark's and the fixtures' way)
    member = synthetic_member(5, n=120)
    assert_stem_bounds_cover_postings(member)
    stems = MemoryStem.objects.filter(member=member)
    # the bounds are exact after a load: some posting reaches each of them
    for stem in stems.filter(document_frequency__gt=0)[:20]:
        held = MemoryEntryTerm.objects.filter(stem=stem)
        assert max(p.own_count for p in held) == stem.max_own_count
        assert min(p.length for p in held) == stem.min_length
    # when longer entries are re-indexed with more of a stem (one batch, many entries)
    entries = list(MemoryEntry.objects.filter(member=member).exclude(lifecycle="tombstoned")[:5])
    for entry in entries:
        body = "garden " * 9 + entry.body
        entry.term_stats = term_stats_for(body, neighbours=["garden garden"]).to_json()
        entry.save(update_fields=["term_stats"])
    entry_terms_index(member_id=member.pk, entries=entries)
    # then the stem's bounds widened to cover them
    assert_stem_bounds_cover_postings(member)
    garden = MemoryStem.objects.get(member=member, key=member_token(member.pk, "garden"))
    assert garden.max_own_count >= 9 and garden.max_context_count >= 2


def stored_member(*rows: dict):
    """A member whose entries are ``rows`` (overrides of a profile preference about
    coffee), written in bulk with postings and corpus statistics; ``held`` places a
    deletion hold."""
    member = MemberFactory()
    entries, held = [], []
    for index, row in enumerate(rows):
        row = dict(row)
        hold = row.pop("held", False)
        body = row.pop("body", f"I take my coffee black, note {index}")
        fields = {
            "id": uuid.UUID(int=index + 1),
            "member": member,
            "scope_kind": ScopeKind.PROFILE,
            "scope_key": "profile",
            "category": MemoryCategory.PREFERENCE,
            "body": body,
            "origin": Origin.USER_STATED,
            "lifecycle": Lifecycle.ACTIVE,
            "confidence": 1.0,
            "conflict_key": f"preference::::{index}",
            "term_stats": term_stats_for(body).to_json(),
            "created_at": NOW - timedelta(days=2),
            "updated_at": NOW - timedelta(days=2),
        }
        entry = MemoryEntry(**{**fields, **row})
        entries.append(entry)
        if hold:
            held.append(entry)
    MemoryEntry.objects.bulk_create(entries)
    member_index_load(member_id=member.pk, entries=entries)
    for entry in held:
        MemoryDeletionHold.objects.create(
            entry=entry,
            member_id=member.pk,
            request_id=uuid.uuid4(),
            placed_at=NOW,
            release_after=NOW + timedelta(days=7),
        )
    return member


def profile_request(member, **overrides) -> RecallRequest:
    fields = {
        "user_id": str(member.pk),
        "surface": "assistant",
        "scope": ScopeKey(kind=ScopeKind.PROFILE, user_id=str(member.pk)),
        "capabilities": ASSISTANT,
        "consent_types": BASE_CONSENTS,
        "query": "coffee",
    }
    return RecallRequest(**{**fields, **overrides})


def test_matches_of_every_lifecycle_and_hold_are_weighed_and_counted():
    # given one visible match and one match in each withheld state
    member = stored_member(
        {},
        {"lifecycle": Lifecycle.PAUSED, "suppression_reason": SuppressionReason.USER_PAUSE},
        {"lifecycle": Lifecycle.PAUSED},
        {"lifecycle": Lifecycle.DRAFT},
        {"lifecycle": Lifecycle.SUPERSEDED},
        {"held": True},
        {"lifecycle": Lifecycle.TOMBSTONED},
    )
    # when
    result = recall_resolve(request=profile_request(member), now=NOW)
    # then the visible one is returned, every other one counted (a forgotten one is never
    # there), exactly as over every entry
    assert [e.entry_id for e in result.entries] == [str(uuid.UUID(int=1))]
    assert result.audit_envelope.suppression_counts == {
        "deletion-hold": 1,
        "lifecycle-draft": 1,
        "lifecycle-paused": 1,
        "lifecycle-superseded": 1,
        "user-pause": 1,
    }
    assert result.audit_envelope.evaluated_count == 6
    reference = recall_reference(request=profile_request(member), now=NOW)
    assert reference.audit_envelope.as_dict() == result.audit_envelope.as_dict()


def recall_counting_matching_statements(request: RecallRequest):
    """`recall_resolve` at NOW, and how many matching statements (the query's postings
    read for their entries' BM25) it ran."""
    with CaptureQueriesContext(connection) as queries:
        result = recall_resolve(request=request, now=NOW)
    postings = MemoryEntryTerm._meta.db_table
    statements = [q["sql"] for q in queries.captured_queries]
    return result, sum(
        1 for sql in statements if sql.startswith(("WITH r AS", "WITH g AS")) and postings in sql
    )


def prior_streams_read(monkeypatch) -> list[str]:
    """One "prior" for each read of the prior stream, in order."""
    streams = []
    prior_stream = plan.prior_stream

    def counting(*args, **kwargs):
        streams.append("prior")
        return prior_stream(*args, **kwargs)

    monkeypatch.setattr(plan, "prior_stream", counting)
    return streams


@SHORTLIST
def test_matches_the_gate_withholds_are_made_up_for_in_the_one_wider_read():
    """The best matches are paused, so the first prefix loaded leaves the result short;
    the one wider read lists and loads the next ones: two matching statements, and still
    exactly what every entry gives."""
    # given 40 paused matches that outrank 20 visible ones
    paused = {"lifecycle": Lifecycle.PAUSED, "body": "coffee black"}
    visible = "I take my coffee black with a splash of oat milk most mornings"
    member = stored_member(*[paused] * 40, *({"body": alike(visible, i)} for i in range(20)))
    request = profile_request(member)
    # when
    result, matching = recall_counting_matching_statements(request)
    # then
    assert matching == 2
    assert result.entries and all(int(e.entry_id[-12:], 16) > 40 for e in result.entries)
    assert returned(result) == returned(recall_reference(request=request, now=NOW))


@SHORTLIST
def test_near_tied_matches_only_their_priors_order_are_joined_in_one_statement():
    """Hundreds of entries share the query's one stem with the same BM25, so only their
    priors order them: every match that could still outscore the result's last entry is
    joined to its row in the statement that ranks them, instead of in a second, deeper
    one; and the rows it leaves unjoined are bounded by the best of them."""
    # given 300 alike matches whose priors differ (usage and age), 40 of them paused
    member = stored_member(
        *(
            {
                "body": alike("I take my coffee black", i),
                "reference_count": (i * 7) % 11,
                "updated_at": NOW - timedelta(hours=5 * i % 97),
                **({"lifecycle": Lifecycle.PAUSED} if i % 7 == 0 else {}),
            }
            for i in range(300)
        )
    )
    request = profile_request(member)
    # when
    result, matching = recall_counting_matching_statements(request)
    # then
    assert matching == 1
    assert len(result.entries) == 12
    assert returned(result) == returned(recall_reference(request=request, now=NOW))


@SHORTLIST
def test_holders_of_two_stems_that_weigh_alike_are_joined_in_one_statement():
    """Two words of the query are each held by many entries, and about as many: without a
    common word to lift the few that hold both, the holders of either tie on BM25 and only
    their priors order them, however many hold the rarer word; so they are joined in the
    statement that ranks them (a tail), not in a second, deeper one."""
    # given 155 entries about tea and as many about cake, whose priors differ (usage, age)
    member = stored_member(
        *(
            {
                "body": alike(f"{'green tea' if i % 2 else 'lemon cake'} after lunch", i),
                "reference_count": (i * 7) % 11,
                "updated_at": NOW - timedelta(hours=5 * i % 97),
            }
            for i in range(310)
        )
    )
    request = profile_request(member, query="tea or cake")
    # when
    result, matching = recall_counting_matching_statements(request)
    # then
    assert matching == 1
    assert len(result.entries) == 12
    assert returned(result) == returned(recall_reference(request=request, now=NOW))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_near_tied_matches_the_gate_holds_back_unseen_still_rank_exactly(seed, matching_depth):
    """The tail's threshold counts every active match of a reachable scope, but the gate
    withholds more (deletion holds, running pauses of the suppression kind): the tail
    then joins too few, and the bound of the matches it left out (the best BM25 among
    them) must send the recall deeper rather than let an unjoined match be missed."""
    # given hundreds of matches of one stem, of many lengths, priors and holds
    rng = random.Random(seed)
    member = stored_member(
        *(
            {
                "body": "coffee " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6))),
                "reference_count": rng.choice([0, 0, 1, 3, 10, 12]),
                "updated_at": NOW - timedelta(hours=rng.uniform(0.5, 2000)),
                "held": rng.random() < 0.25,
                **(
                    {"suppression_reason": SuppressionReason.SENSITIVE_CATEGORY}
                    if rng.random() < 0.1
                    else {}
                ),
            }
            for _ in range(320)
        )
    )
    for budget in (None, 3, 7):
        request = profile_request(member, budget=budget)
        # when
        result = recall_resolve(request=request, now=NOW)
        # then
        assert returned(result) == returned(recall_reference(request=request, now=NOW))


@SHORTLIST
def test_a_result_short_of_matches_reads_every_stem_in_the_wider_read(monkeypatch):
    """A rare word matches too few entries to fill the result; the query's common word,
    whose postings were left unread, holds many more. The one wider read takes every
    stem's postings, and reads the prior stream at most once."""
    # given 3 entries naming a rare place, 80 about trips, 40 about nothing asked
    member = stored_member(
        *({"body": f"our trip to Pruzulville, day {i}"} for i in range(3)),
        *({"body": f"a trip with friends, stop {i}"} for i in range(80)),
        *({"body": f"I like my tea green, cup {i}"} for i in range(40)),
    )
    monkeypatch.setattr(plan, "essential_count", lambda query, corpus, wanted: 1)
    streams = prior_streams_read(monkeypatch)
    request = profile_request(member, query="trip to Pruzulville")
    # when
    result, matching = recall_counting_matching_statements(request)
    # then
    assert matching == 2
    assert len(streams) <= 1
    assert len(result.entries) == 12
    assert returned(result) == returned(recall_reference(request=request, now=NOW))


@SHORTLIST
def test_weak_entries_the_first_load_brought_along_do_not_end_the_recall_short_of_matches(
    monkeypatch,
):
    """The best matches are paused, so the first prefix holds two visible ones, and ten
    ended pauses that match nothing (read with the first load, recalled as active) fill
    the result with weak entries. The matches the stream listed past that prefix beat
    them: the one wider read loads them, each stream read at most twice."""
    # given 30 paused matches above 15 visible ones, and 10 ended pauses about tea
    paused = {"lifecycle": Lifecycle.PAUSED, "suppression_reason": SuppressionReason.USER_PAUSE}
    member = stored_member(
        *[{**paused, "body": "coffee"}] * 30,
        *(
            {"body": f"I take my coffee black with a splash of oat milk, note {i}"}
            for i in range(15)
        ),
        *(
            {**paused, "suppression_ends_at": NOW - timedelta(hours=1), "body": f"green tea {i}"}
            for i in range(10)
        ),
    )
    streams = prior_streams_read(monkeypatch)
    request = profile_request(member)
    # when
    result, matching = recall_counting_matching_statements(request)
    # then the listed matches fill it
    assert len(streams) <= 1
    assert matching == 2
    assert len(result.entries) == 12
    assert all("coffee" in e.body for e in result.entries)
    assert returned(result) == returned(recall_reference(request=request, now=NOW))


@SHORTLIST
def test_a_query_few_entries_hold_reads_the_prior_stream_in_the_same_round(monkeypatch):
    """Three entries hold the query's word and the result takes twelve: entries that only
    their prior lifts fill the rest, so both streams are read, and loaded, in the first
    round instead of after a round of matches that could not fill it."""
    # given 3 entries about tea among 40 about other things, used and written variously
    origins = (Origin.USER_STATED, Origin.USER_CONFIRMED, Origin.IMPORTED, Origin.MODEL_INFERRED)
    member = stored_member(
        *({"body": f"I like my tea green, cup {i}"} for i in range(3)),
        *(
            {
                "body": f"a trip with friends, stop {i}",
                "reference_count": i % 11,
                "origin": origins[i % 4],
                "updated_at": NOW - timedelta(days=i + 1),
            }
            for i in range(40)
        ),
    )
    request = profile_request(member, query="tea")
    events: list[str] = []
    for name in ("matching_stream", "prior_stream", "entries_load"):
        read = getattr(plan, name)
        monkeypatch.setattr(
            plan, name, lambda *a, read=read, name=name, **k: events.append(name) or read(*a, **k)
        )
    # when
    result = recall_resolve(request=request, now=NOW)
    # then both streams are read before the first load, and the result is exact
    first_load = events.index("entries_load")
    assert {"matching_stream", "prior_stream"} <= set(events[:first_load])
    assert len(result.entries) == 12
    assert returned(result) == returned(recall_reference(request=request, now=NOW))


@SHORTLIST
def test_a_fresher_entry_of_a_matching_cluster_wins_although_no_stream_lists_it():
    """Dedupe keeps a cluster's freshest entry. The clusters are read, in the statement
    that loads the listed entries, from their stalest listed entry on, per stored key, so
    a fresher entry no stream lists still wins, whichever of the spellings the stored key
    folds together was loaded."""
    # given two matches on one stored key but two of the pipeline's clusters ("coffee",
    # "Coffee"), a fresher entry of the stalest one's cluster that matches nothing and
    # that no prior reaches (used a year ago, inferred), a staler one, and fresh filler
    days = lambda n: NOW - timedelta(days=n)  # noqa: E731
    key = conflict_key(category=MemoryCategory.PREFERENCE, actor_handle="", subject="coffee")
    cluster = {"conflict_key": key}
    rows = [
        {**cluster, "subject": "coffee", "updated_at": days(100), "created_at": days(100)},
        {**cluster, "subject": "Coffee", "updated_at": days(20), "created_at": days(20)},
        {
            **cluster,
            "subject": "coffee",
            "body": "Oat milk only",
            "origin": Origin.MODEL_INFERRED,
            "updated_at": days(50),
            "created_at": days(50),
            "last_referenced_at": days(400),
            "reference_count": 0,
        },
        {**cluster, "subject": "coffee", "body": "Decaf after noon", "updated_at": days(300)},
    ]
    # The fresher entry's prior class (profile, never used, inferred) is full of fresher
    # priors, so the prior stream stops long before it.
    filler = [
        {
            "body": f"Walked the dog, day {n}",
            "origin": Origin.MODEL_INFERRED,
            "updated_at": days(1) - timedelta(minutes=n),
        }
        for n in range(60)
    ]
    member = stored_member(*rows, *filler)
    request = profile_request(member, budget=3)
    # when
    result = recall_resolve(request=request, now=NOW)
    # then the stale match gave way to its cluster's fresher entry, exactly as over every
    # entry, without reading every entry
    reference = recall_reference(request=request, now=NOW)
    assert returned(result) == returned(reference)
    ids = [e.entry_id for e in result.entries]
    stale, folded = str(uuid.UUID(int=1)), str(uuid.UUID(int=2))
    assert stale not in ids and folded in ids
    assert result.audit_envelope.evaluated_count < reference.audit_envelope.evaluated_count


def test_an_ended_timed_pause_is_recalled_although_no_stream_lists_it():
    # given a pause that ended an hour ago (nothing resumed it) and one still running
    pause = {"lifecycle": Lifecycle.PAUSED, "suppression_reason": SuppressionReason.USER_PAUSE}
    member = stored_member(
        {**pause, "suppression_ends_at": NOW - timedelta(hours=1), "body": "green tea"},
        {**pause, "suppression_ends_at": NOW + timedelta(hours=1), "body": "green tea too"},
    )
    for query in ("", "tea", "coffee"):
        # when
        result = recall_resolve(request=profile_request(member, query=query), now=NOW)
        # then
        assert [e.entry_id for e in result.entries] == [str(uuid.UUID(int=1))]
        assert result.audit_envelope.suppression_counts.get("user-pause", 0) <= 1
        expected = recall_reference(request=profile_request(member, query=query), now=NOW)
        assert returned(result) == returned(expected)


@SHORTLIST
def test_reading_every_live_entry_after_the_wider_read_still_reads_the_ended_pauses(
    monkeypatch,
):
    """A recall the wider read cannot certify reads every live entry instead: an ended
    timed pause, live to the gate but not in the live rows, is read beside them."""
    # given an ended pause among active entries, and bounds nothing can beat
    pause = {"lifecycle": Lifecycle.PAUSED, "suppression_reason": SuppressionReason.USER_PAUSE}
    member = stored_member(
        {**pause, "suppression_ends_at": NOW - timedelta(hours=1), "body": "green tea"},
        {"body": "green tea with mint"},
        # more than the wider read of the prior stream lists
        *({"body": f"black coffee {i}"} for i in range(150)),
    )
    monkeypatch.setattr(plan, "BOUND_MARGIN", 10.0)
    read_all = plan.pool_of

    def reading_every_entry(*args, **kwargs):
        reads.append(True)
        return read_all(*args, **kwargs)

    reads: list[bool] = []
    monkeypatch.setattr(plan, "pool_of", reading_every_entry)
    for query in ("", "tea"):
        # when
        result = recall_resolve(request=profile_request(member, query=query), now=NOW)
        # then
        assert reads.pop()
        assert str(uuid.UUID(int=1)) in [e.entry_id for e in result.entries]
        expected = recall_reference(request=profile_request(member, query=query), now=NOW)
        assert returned(result) == returned(expected)


def prior_reads_recorded(monkeypatch) -> list[dict]:
    """What each read of the prior classes is asked (partitions and depth, or the
    classes to read deeper), in order."""
    reads = []
    read = streams.prior_classes_read

    def recording(request, shape, now, partitions, **how):
        reads.append({"partitions": partitions, **how})
        return read(request, shape, now, partitions, **how)

    monkeypatch.setattr(streams, "prior_classes_read", recording)
    return reads


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prior classes: PostgreSQL")
def test_a_recall_by_prior_the_first_read_cannot_certify_reads_every_class_deeper_once(
    monkeypatch,
):
    """Without a query a recall ranks by prior, one (partition, reference bucket, origin)
    class of the prior index at a time. When one class holds most of the best entries,
    its first rows cannot certify the result: the one wider read takes every class
    `WIDER` times as deep, in one statement, and the result is exact."""
    # given 40 recently stated entries used five times (one class, not among the few
    # read deep at first), 30 imported ones never used, long ago (another class, as
    # crowded), and ten more in classes of their own (the first read fills the result)
    fresh = {"origin": Origin.USER_STATED, "reference_count": 5}
    old = {"origin": Origin.IMPORTED, "reference_count": 0}
    member = stored_member(
        *(
            {**fresh, "updated_at": NOW - timedelta(hours=i + 1), "body": f"note {i}"}
            for i in range(40)
        ),
        *({**old, "updated_at": NOW - timedelta(days=90 + i)} for i in range(30)),
        *(
            {"origin": Origin.MODEL_INFERRED, "reference_count": i, "body": f"guess {i}"}
            for i in range(1, 11)
        ),
    )
    reads = prior_reads_recorded(monkeypatch)
    request = profile_request(member, query="")
    # when
    result = recall_resolve(request=request, now=NOW)
    # then the first read asks every class of the profile, the second every class again,
    # WIDER times as deep
    assert len(reads) == 2
    assert reads[0]["partitions"] == reads[1]["partitions"] == [(ScopeKind.PROFILE, "", "")]
    assert reads[1]["depth"] == plan.WIDER * reads[0]["depth"]
    assert returned(result) == returned(recall_reference(request=request, now=NOW))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prior classes: PostgreSQL")
@pytest.mark.parametrize("origin", [Origin.USER_STATED, Origin.USER_CONFIRMED])
def test_a_recall_by_prior_reads_the_much_used_stated_classes_deep_at_once(monkeypatch, origin):
    """Recency falls alike in every class, so the much-used entries the member stated or
    confirmed hold the best priors unless they are old: their classes are read as deep
    as the prefix in the first statement, and a member whose best entries all sit in
    one of them is answered without a second read."""
    # given 40 much-used, recent entries of one such class and a few elsewhere
    member = stored_member(
        *(
            {
                "origin": origin,
                "reference_count": 12,
                "updated_at": NOW - timedelta(hours=i + 1),
                "body": f"note {i}",
            }
            for i in range(40)
        ),
        *(
            {"origin": Origin.IMPORTED, "updated_at": NOW - timedelta(days=90 + i)}
            for i in range(5)
        ),
    )
    reads = prior_reads_recorded(monkeypatch)
    request = profile_request(member, query="")
    # when
    result = recall_resolve(request=request, now=NOW)
    # then one read, and the result is the pipeline's over every entry
    assert len(reads) == 1
    assert len(result.entries) == 12
    assert returned(result) == returned(recall_reference(request=request, now=NOW))


@SHORTLIST
def test_many_ended_pauses_are_all_recalled_and_read_a_chunk_at_a_time(monkeypatch):
    """The statistics read lists every ended timed pause; the loads read them beside the
    streams' prefixes, never more ids in one statement than a chunk."""
    # given five ended pauses, no sweep since, and chunks of two
    pause = {"lifecycle": Lifecycle.PAUSED, "suppression_reason": SuppressionReason.USER_PAUSE}
    ended = {**pause, "suppression_ends_at": NOW - timedelta(hours=1)}
    member = stored_member(*[{**ended, "body": f"green tea {i}"} for i in range(5)])
    chunks = plan.chunks
    monkeypatch.setattr(plan, "chunks", lambda values: chunks(values, 2))
    # when
    with CaptureQueriesContext(connection) as queries:
        result = recall_resolve(request=profile_request(member, query="tea"), now=NOW)
    # then all five are recalled, as over every entry, in three loads of at most two
    assert len(result.entries) == 5
    expected = recall_reference(request=profile_request(member, query="tea"), now=NOW)
    assert returned(result) == returned(expected)
    loads = [q["sql"] for q in queries if q["sql"].startswith("WITH listed")]
    assert len(loads) == 3


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"consent_types": frozenset({"data_processing"})}, SCOPE_SUPPRESSED),
        ({"capabilities": capabilities_for(Consumer.VERITAS).narrowed(read_kinds=[])}, None),
        ({"clear_pending": True}, FULL_CLEAR_PENDING),
        ({"off_the_record": True}, OFF_THE_RECORD),
    ],
)
def test_a_kind_withheld_as_a_whole_is_counted_by_one_query_and_never_ranked(overrides, reason):
    # given five profile entries of every lifecycle that counts
    member = stored_member(
        {}, {}, {"lifecycle": Lifecycle.DRAFT}, {"held": True}, {"tenant_id": TENANTS[0]}
    )
    request = profile_request(member, **overrides)
    # when
    with CaptureQueriesContext(connection) as queries:
        result = recall_resolve(request=request, now=NOW)
    # then nothing is returned, the four in reach are counted under the gate's reason (the
    # other tenant's is out of reach), and the only query is the aggregate
    assert result.entries == ()
    assert result.audit_envelope.suppression_counts == {reason or CONSUMER_NOT_ALLOWED: 4}
    assert result.audit_envelope.evaluated_count == 4
    assert len(queries) == 1
    assert "memoryentryterm" not in queries[0]["sql"].lower()
    assert "count(" in queries[0]["sql"].lower()
    assert_counts_cover(result, recall_reference(request=request, now=NOW))


def test_withheld_kinds_are_counted_beside_the_ranked_ones():
    # given a scene recall by a consumer that may read profile and session memory but not
    # scene memory
    member = stored_member(
        {},
        {"scope_kind": ScopeKind.SESSION, "scope_key": "session", "session_id": "s-1"},
        *(
            {"scope_kind": ScopeKind.SCENE, "scope_key": "scene", "session_id": "s-1"}
            | {"scene_id": "sc-1", "room_id": "r-1"}
            for _ in range(3)
        ),
    )
    scope = ScopeKey(
        kind=ScopeKind.SCENE,
        user_id=str(member.pk),
        session_id="s-1",
        scene_id="sc-1",
        room_id="r-1",
    )
    shell = capabilities_for(Consumer.SHELL)
    assert ScopeKind.SCENE not in shell.read_kinds
    request = profile_request(member, scope=scope, capabilities=shell, surface="shell")
    # when
    result = recall_resolve(request=request, now=NOW)
    # then
    assert sorted(e.entry_id for e in result.entries) == [
        str(uuid.UUID(int=1)),
        str(uuid.UUID(int=2)),
    ]
    assert result.audit_envelope.suppression_counts == {CONSUMER_NOT_ALLOWED: 3}
    reference = recall_reference(request=request, now=NOW)
    assert reference.audit_envelope.as_dict() == result.audit_envelope.as_dict()


@pytest.mark.parametrize(("limit", "depth"), [(1, 64), (3, 64), (6, 128), (12, 256), (999, 256)])
def test_a_smaller_result_joins_proportionally_fewer_matches_at_first(limit, depth):
    """The first matching statement joins `MATCHING_DEPTH` matches for the assistant's
    twelve entries, proportionally fewer for a smaller result, never below a quarter."""
    assert plan.matching_depth(limit) == depth


@pytest.mark.parametrize(
    ("frequencies", "wanted", "count"),
    [
        ({"larack": 1, "birthday": 11_793}, 12, 2),  # one holder cannot fill twelve
        ({"larack": 1, "birthday": 11_793}, 1, 1),
        ({"know": 0, "pruzulvill": 11, "trip": 5_852}, 12, 3),
        ({"klem": 518, "garden": 3_195, "recommend": 6_044}, 12, 2),  # the budget holds
    ],
)
def test_the_first_read_takes_the_next_stem_while_the_rarer_cannot_fill_the_result(
    frequencies, wanted, count
):
    """The rarest stems are read at first within a budget of postings, and past it while
    fewer entries hold them than the result wants: the next round would read the next
    stem anyway (figures from the bench's 100k member)."""
    corpus = CorpusStats(100_000, 1_000_000, 0, frequencies)
    query = bounds.Query.of(frequencies, corpus, bm25, {})
    assert bounds.essential_count(query, corpus, wanted) == count


@SHORTLIST
@pytest.mark.parametrize(("query", "most"), [("coffee", 3), ("", 3), ("coffee black mornings", 7)])
def test_a_recall_reads_in_a_few_statements_whatever_its_result_size(query, most):
    """A typical recall is three statements, whatever its result's size: the corpus
    statistics with the audit's counts, one stream, the entries (with their clusters).
    Where the first read cannot certify the result (here every entry holds the query's
    common words and none its rare one, so an entry only its prior lifts could still
    outrank the last), one wider read of each stream and one load more: seven at most
    before reading every entry."""
    # given a member whose entries all hold the query's word, with priors spread
    member = stored_member(
        *(
            {
                "body": f"I take my coffee black, note {i}",
                "reference_count": i % 11,
                "updated_at": NOW - timedelta(hours=7 * i),
            }
            for i in range(120)
        )
    )
    counts = {}
    for budget in (1, 3, 12, 40):
        request = profile_request(member, query=query, budget=budget, surface="notebook")
        # when
        with CaptureQueriesContext(connection) as statements:
            result = recall_resolve(request=request, now=NOW)
        counts[budget] = len(statements)
        # then
        assert len(result.entries) == budget
        assert returned(result) == returned(recall_reference(request=request, now=NOW))
    assert max(counts.values()) <= most, counts
