"""Freshness by source tier (pure) and the freshness/confidence job that queues stale,
low-confidence inferences for member re-confirmation."""

from datetime import UTC, datetime, timedelta

import pytest

from hierarchy.freshness_job import freshness_confidence_run, reconfirm_requests_for_member
from hierarchy.models import ReconfirmRequest
from memory.models import MemoryEntry
from memory.policy.freshness import freshness, staleness
from memory.services import memory_confirm
from tests.hierarchy.stm_factories import events, member_with, service_actor
from tests.memory.factories import remember

NOW = datetime(2026, 11, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("origin", "half_life"),
    [
        ("user-stated", 365),
        ("user-confirmed", 365),
        ("summarized-from-session", 180),
        ("imported", 180),
        ("model-inferred", 30),
        ("operator-copilot", 30),
    ],
)
def test_freshness_halves_once_per_half_life_of_the_source_tier(origin, half_life):
    assert freshness(origin=origin, asserted_at=NOW, now=NOW) == 1.0
    then = NOW - timedelta(days=half_life)
    assert freshness(origin=origin, asserted_at=then, now=NOW) == pytest.approx(0.5)
    twice = NOW - timedelta(days=2 * half_life)
    assert freshness(origin=origin, asserted_at=twice, now=NOW) == pytest.approx(0.25)


def test_a_future_timestamp_counts_as_fresh():
    assert freshness(origin="model-inferred", asserted_at=NOW + timedelta(days=1), now=NOW) == 1


def test_only_inferences_go_stale():
    old = NOW - timedelta(days=400)
    assert staleness(origin="user-stated", confidence=1.0, asserted_at=old, now=NOW).stale is False
    verdict = staleness(
        origin="model-inferred", confidence=0.5, asserted_at=NOW - timedelta(days=30), now=NOW
    )
    assert verdict.stale is True and verdict.effective_confidence == pytest.approx(0.25)
    fresh = staleness(origin="model-inferred", confidence=0.5, asserted_at=NOW, now=NOW)
    assert fresh.stale is False


@pytest.mark.django_db
def test_the_job_queues_stale_inferences_once_and_resolves_them_when_confirmed():
    # given
    member = member_with()
    inferred = remember(member, origin="model-inferred", subject="tea", body="likes green tea")
    stated = remember(member, subject="coffee")
    MemoryEntry.objects.filter(pk__in=[inferred.entry.pk, stated.entry.pk]).update(
        updated_at=NOW - timedelta(days=60)
    )
    # when
    first = freshness_confidence_run(now=NOW)
    second = freshness_confidence_run(now=NOW + timedelta(hours=1))
    # then
    assert (first.enqueued, second.enqueued) == (1, 0)
    [request] = reconfirm_requests_for_member(member_id=member.pk)
    assert request.entry_id == inferred.entry.pk
    assert request.freshness == pytest.approx(0.25)
    [enqueued] = events("hierarchy.freshness_confidence.enqueued")
    assert enqueued.payload["entry_id"] == str(inferred.entry.pk)
    assert enqueued.target_member_id == member.pk
    assert len(events("hierarchy.freshness_confidence.ticked")) == 2
    # when the member confirms it
    memory_confirm(entry=MemoryEntry.objects.get(pk=inferred.entry.pk), actor=service_actor())
    third = freshness_confidence_run(now=NOW + timedelta(hours=2))
    # then the confirm closed the request at once (memory's `reconfirm_settled`): the next
    # run has nothing left to resolve
    assert third.resolved == 0
    assert ReconfirmRequest.objects.get(pk=request.pk).state == "resolved"
    assert not reconfirm_requests_for_member(member_id=member.pk).exists()
