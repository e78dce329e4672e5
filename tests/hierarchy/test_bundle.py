"""The context bundle: STM + LTM recall + episodic events, the 30-second cache and its
invalidation, and the count-only `memory.bundle.resolved` audit on every resolve."""

import json

import pytest
from django.core.cache import cache

from hierarchy.bundle import get_context_bundle
from iris_site.errors import NotPermitted
from tests.hierarchy.stm_factories import events, member_with, service_actor, write
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()
    yield
    cache.clear()


def bundle(member, **kwargs):
    return get_context_bundle(
        member=member,
        scope_id=kwargs.pop("scope_id", "s-1"),
        actor=service_actor(),
        consumer="assistant",
        **kwargs,
    )


def test_a_bundle_blends_working_memory_recall_and_the_events_about_them():
    # given
    member = member_with()
    entry = remember(member, subject="walks", body="I walk every morning").entry
    row = write(member, content="wants a route for tomorrow", related_entry_ids=[entry.pk])
    write(member, scope_id="other-scope", content="unrelated")
    # when
    result = bundle(member, query="morning walk")
    # then
    assert [r["id"] for r in result["stm"]] == [str(row.pk)]
    assert result["stm"][0]["content"] == "wants a route for tomorrow"
    assert [e["id"] for e in result["ltm"]["entries"]] == [str(entry.pk)]
    assert 0 < result["ltm"]["entries"][0]["freshness"] <= 1
    actions = {e["action"] for e in result["episodic"]}
    assert {"memory.stm.write", "memory.entry.created"} <= actions
    assert result["cached"] is False


def test_a_repeat_within_30_seconds_is_served_from_the_cache_and_still_audited():
    # given
    member = member_with()
    remember(member, subject="walks", body="I walk every morning")
    write(member, content="wants a route for tomorrow")
    # when
    first = bundle(member, query="walk")
    second = bundle(member, query="walk")
    # then
    assert first["cached"] is False and second["cached"] is True
    assert second["stm"] == first["stm"]
    assert len(events("memory.recall.resolved")) == 1  # recall ran once
    resolved = events("memory.bundle.resolved")
    assert [e.payload["cache_hit"] for e in resolved] == [False, True]
    for event in resolved:
        assert event.payload["stm_count"] == 1
        assert event.payload["ltm_count"] == 1
        assert event.payload["query_provided"] is True
        text = json.dumps(event.payload)
        assert "walk" not in text and "route" not in text
        assert set(event.payload) == {
            "scope_id_digest",
            "query_provided",
            "include_episodic",
            "cache_hit",
            "transition",
            "stm_count",
            "ltm_count",
            "episodic_count",
        }


def test_the_cache_is_keyed_on_scope_member_and_query():
    member, other = member_with(), member_with()
    bundle(member, query="walk")
    assert bundle(member, query="coffee")["cached"] is False
    assert bundle(member, query="walk", scope_id="s-2")["cached"] is False
    assert bundle(other, query="walk")["cached"] is False
    assert bundle(member, query="walk")["cached"] is True


def test_a_write_to_the_member_invalidates_their_bundles(django_capture_on_commit_callbacks):
    member = member_with()
    bundle(member, query="walk")
    with django_capture_on_commit_callbacks(execute=True):
        write(member, content="a new thought")
    fresh = bundle(member, query="walk")
    assert fresh["cached"] is False
    assert len(fresh["stm"]) == 1
    with django_capture_on_commit_callbacks(execute=True):
        remember(member, subject="coffee")
    assert bundle(member, query="walk")["cached"] is False


def test_episodic_events_can_be_left_out():
    member = member_with()
    write(member)
    assert bundle(member, include_episodic=False)["episodic"] == []


def test_the_admin_surface_and_unknown_consumers_are_refused():
    member = member_with()
    with pytest.raises(NotPermitted):
        bundle(member, surface="admin")
    assert not events("memory.bundle.resolved")
