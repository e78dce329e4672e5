"""The recall audit is exact (issue 42, item 4): for random member histories and
requests, the envelope's `suppression_counts` are exactly what a full scan finds — every
entry of the member, forgotten ones aside, through the read gate
(`memory.access.gate.decide`) one by one, each withheld entry in the recall's reach
counted under its reason — whatever the certified shortlist happened to read. Entries out
of reach (another tenant, another session, a kind the recall's scope does not reach) are
counted by neither; `evaluated_count` is the withheld ones plus the visible entries the
ranking weighed, never more than every entry in reach."""

import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iris_site.enums import Consumer
from memory.access.capabilities import capabilities_for
from memory.access.gate import decide
from memory.enums import (
    SENSITIVE_CATEGORIES,
    Lifecycle,
    MemoryCategory,
    Origin,
    RecallContext,
    ScopeKind,
    SuppressionReason,
)
from memory.models import MemoryDeletionHold, MemoryEntry
from memory.policy.conflicts import conflict_key
from memory.recall import RecallRequest, ScopeKey, term_stats_for
from memory.recall.store import member_candidates, member_index_load, recall_resolve
from tests.iris_site.factories import MemberFactory

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
OUT_OF_REACH = frozenset({"tenant-mismatch", "user-mismatch", "scope-mismatch"})
TENANTS = [str(uuid.UUID(int=11)), str(uuid.UUID(int=12))]
OPERATORS = [str(uuid.UUID(int=1)), str(uuid.UUID(int=2))]
CATEGORIES = [
    MemoryCategory.FACT,
    MemoryCategory.PREFERENCE,
    MemoryCategory.SAFETY,
    MemoryCategory.RELATIONSHIP,
    MemoryCategory.MENTAL_HEALTH,
    MemoryCategory.MEDICAL,
    MemoryCategory.IMMIGRATION_STATUS,
    MemoryCategory.SPIRITUAL,
]
WORDS = ["coffee", "tea", "garden", "sister", "therapy", "trip", "piano", "rent"]
CONSENTS = ["data_processing", "data_storage", "sensitive_data"]


@st.composite
def scopes(draw) -> dict:
    kind = draw(st.sampled_from(ScopeKind.values))
    scope: dict = {"kind": kind}
    if kind in (ScopeKind.SESSION, ScopeKind.SCENE, ScopeKind.POSE):
        scope["session_id"] = draw(st.sampled_from(["s-0", "s-1"]))
    if kind in (ScopeKind.SCENE, ScopeKind.POSE):
        scope["scene_id"] = draw(st.sampled_from(["sc-0", "sc-1"]))
    if kind == ScopeKind.SCENE:
        scope["room_id"] = "r-0"
    if kind == ScopeKind.POSE:
        scope |= {"pose_id": "p-0", "avatar_id": "av-0"}
    if kind == ScopeKind.NOTEBOOK:
        scope["notebook_id"] = draw(st.sampled_from(["nb-0", "nb-1"]))
    if kind == ScopeKind.OPERATOR_COPILOT:
        scope["operator_id"] = draw(st.sampled_from(OPERATORS))
    if kind == ScopeKind.TENANT:
        scope["tenant_id"] = draw(st.sampled_from(TENANTS))
    return scope


@st.composite
def entries(draw) -> dict:
    suppressed = draw(st.booleans())
    return {
        "scope": draw(scopes()),
        "tenant": draw(st.sampled_from([None, None, None, TENANTS[0]])),
        "category": draw(st.sampled_from(CATEGORIES)),
        "lifecycle": draw(st.sampled_from([Lifecycle.ACTIVE] * 4 + list(Lifecycle.values))),
        "suppression": draw(st.sampled_from(SuppressionReason.values)) if suppressed else "",
        "ends": draw(st.sampled_from([None, -3.0, -0.001, 0.001, 3.0])),
        "held": draw(st.booleans()) and draw(st.booleans()),
        "actor": draw(st.sampled_from(["", "", "actor-a"])),
        "sensitive_interaction": draw(st.booleans()),
        "age_days": draw(st.sampled_from([0.5, 5, 29.9, 30.1, 90, 400])),
        "body": " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))),
    }


@st.composite
def requests(draw) -> dict:
    crisis = draw(st.booleans()) and draw(st.booleans())
    consumer = draw(st.sampled_from(Consumer.values))
    return {
        "scope": draw(scopes()),
        "consumer": consumer,
        "tenant": draw(st.sampled_from([None, *TENANTS])),
        "context": draw(st.sampled_from(RecallContext.values)),
        "crisis_frame": crisis,
        "safety_critical_context": crisis and draw(st.booleans()),
        "consents": draw(st.sets(st.sampled_from(CONSENTS))) | {"data_processing"},
        "categories": draw(st.sets(st.sampled_from(sorted(SENSITIVE_CATEGORIES)))),
        "multi_actor": draw(st.booleans()),
        "clear_pending": draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans()),
        "off_the_record": draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans()),
        "stopped_use": draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans()),
        "paused": draw(st.booleans()) and draw(st.booleans()),
        "auto_forget": draw(
            st.lists(
                st.tuples(st.sampled_from(ScopeKind.values), st.sampled_from([0, 1, 30, 60])),
                max_size=3,
            )
        ),
        "query": " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=3))),
        "surface": draw(st.sampled_from(["assistant", "shell", "notebook"])),
        "budget": draw(st.sampled_from([None, None, 0, 1, 3])),
    }


def store(rows: list[dict]):
    member = MemberFactory()
    stored, held = [], []
    for index, row in enumerate(rows):
        scope = row["scope"]
        updated = NOW - timedelta(days=row["age_days"])
        ends = None if row["ends"] is None else NOW + timedelta(days=row["ends"])
        entry = MemoryEntry(
            id=uuid.uuid4(),
            member=member,
            tenant_id=scope.get("tenant_id") or row["tenant"],
            scope_kind=scope["kind"],
            scope_key=f"{scope['kind']}:{index}",
            session_id=scope.get("session_id", ""),
            scene_id=scope.get("scene_id", ""),
            room_id=scope.get("room_id", ""),
            pose_id=scope.get("pose_id", ""),
            avatar_id=scope.get("avatar_id", ""),
            notebook_id=scope.get("notebook_id", ""),
            operator_id=scope.get("operator_id"),
            category=row["category"],
            body=row["body"],
            origin=Origin.USER_STATED,
            lifecycle=row["lifecycle"],
            confidence=1.0,
            conflict_key=conflict_key(
                category=row["category"], actor_handle=row["actor"], subject=""
            ),
            suppression_reason=row["suppression"],
            suppression_ends_at=ends if row["suppression"] else None,
            actor_handle=row["actor"],
            sensitive_interaction=bool(row["actor"]) and row["sensitive_interaction"],
            term_stats=term_stats_for(row["body"]).to_json(),
            created_at=updated,
            updated_at=updated,
        )
        stored.append(entry)
        if row["held"]:
            held.append(entry)
    MemoryEntry.objects.bulk_create(stored)
    member_index_load(member_id=member.pk, entries=stored)
    for entry in held:
        MemoryDeletionHold.objects.create(
            entry=entry,
            member_id=member.pk,
            request_id=uuid.uuid4(),
            placed_at=NOW,
            release_after=NOW + timedelta(days=7),
        )
    return member


def request_of(member, drawn: dict) -> RecallRequest:
    member_id = str(member.pk)
    scope = ScopeKey(user_id=member_id, **drawn["scope"])
    tenant = drawn["tenant"]
    if scope.kind == ScopeKind.TENANT:
        tenant = scope.tenant_id
    return RecallRequest(
        user_id=member_id,
        surface=drawn["surface"],
        scope=scope,
        capabilities=capabilities_for(drawn["consumer"]),
        consent_types=frozenset(drawn["consents"]),
        clear_pending=drawn["clear_pending"],
        off_the_record=drawn["off_the_record"],
        tenant_id=tenant,
        query=drawn["query"],
        context=drawn["context"],
        crisis_frame=drawn["crisis_frame"],
        safety_critical_context=drawn["safety_critical_context"],
        consented_categories=frozenset(drawn["categories"]),
        multi_actor_consented=drawn["multi_actor"],
        stopped_use=drawn["stopped_use"],
        paused_consumers=frozenset({drawn["consumer"]} if drawn["paused"] else ()),
        auto_forget_days=tuple(drawn["auto_forget"]),
        budget=drawn["budget"],
    )


def full_scan(member, request: RecallRequest) -> tuple[Counter, int]:
    """Every entry of the member (forgotten ones aside) through the gate, one by one:
    the withheld ones in reach, by reason, and how many are in reach at all."""
    reader, state = request.reader(), request.member_state()
    counts: Counter = Counter()
    in_reach = 0
    for candidate in member_candidates(member_id=member.pk):
        reason = decide(candidate.as_item(), reader, state, NOW)
        if reason not in OUT_OF_REACH:
            in_reach += 1
            if reason is not None:
                counts[reason] += 1
    return counts, in_reach


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(rows=st.lists(entries(), max_size=24), drawn=st.lists(requests(), min_size=1, max_size=3))
def test_the_envelope_counts_exactly_what_a_full_scan_withholds(rows, drawn):
    # given a random member history
    member = store(rows)
    for one in drawn:
        request = request_of(member, one)
        # when
        result = recall_resolve(request=request, now=NOW)
        # then every withheld entry in reach is counted under its reason, exactly
        envelope = result.audit_envelope
        expected, in_reach = full_scan(member, request)
        assert dict(envelope.suppression_counts) == dict(sorted(expected.items())), request
        # and evaluated: the withheld ones plus the visible ones the ranking weighed
        withheld = sum(expected.values())
        assert withheld + len(result.entries) <= envelope.evaluated_count <= in_reach
        assert result.anything_suppressed == bool(withheld)
