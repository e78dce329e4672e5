"""A short-term row names the long-term entry it was consolidated into
(`consolidated_to`) only to a reader the read gate shows that entry to.

The row and the entry are gated apart: a row stays readable after the entry it became is
paused by the member, or when it lies outside what the reader may read. Every door that
answers with a row is tried (list, refresh, the context bundle, the replay of the row's
own write): none names an entry its reader could not recall.
"""

from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from iris_site.audit.events import Actor
from memory.models import MemoryEntry
from memory.pauses import memory_pause
from tests.hierarchy.test_bundle import bundle
from tests.memory.factories import consenting_member, memory_settings, remember
from tests.trust.test_member_controls_attacks import surface, url

pytestmark = pytest.mark.django_db

THREE_MONTHS = timedelta(days=91)  # `months_to_days(3)`

ROW = {
    "scope_kind": "user_session",
    "scope_id": "s-1",
    "category": "preference",
    "content": "wants a café on the walk",
}


def consolidated(api, member, **headers):
    """A row written (with ``headers``) and consolidated: its answer and the entry."""
    row = api.post(url(member, "short-term/"), ROW, format="json", **headers)
    assert row.status_code == 201, row.content
    made = api.post(
        url(member, f"short-term/{row.json()['id']}/consolidate/"),
        {"subject": "cafe"},
        format="json",
    )
    assert made.status_code in (200, 201), made.content
    entry_id = made.json()["entry_id"]
    assert entry_id
    return row.json(), MemoryEntry.objects.get(pk=entry_id)


def doors(api, member, row_id):
    """What each door answers about the row: list, refresh and the bundle."""
    listed = api.get(url(member, "short-term/"), {"scope_id": "s-1"})
    refreshed = api.post(url(member, f"short-term/{row_id}/refresh/"), {}, format="json")
    bundle = api.post(url(member, "context-bundle/"), {"scope_id": "s-1"}, format="json")
    for answer in (listed, refreshed, bundle):
        assert answer.status_code == 200, answer.content
    (from_list,) = listed.json()["results"]
    (from_bundle,) = bundle.json()["stm"]
    return {
        "list": (from_list["consolidated_to"], listed.content),
        "refresh": (refreshed.json()["consolidated_to"], refreshed.content),
        "bundle": (from_bundle["consolidated_to"], bundle.content),
    }


def test_the_entry_a_row_became_is_named_while_its_reader_may_see_it():
    member = consenting_member()
    _, api = surface("assistant")
    row, entry = consolidated(api, member)

    for door, (named, _) in doors(api, member, row["id"]).items():
        assert named == str(entry.pk), door


def test_an_entry_the_member_paused_is_named_on_no_door_of_the_row_it_came_from():
    """The member pauses the memory the row became: the row itself stays readable, but no
    answer about it names the paused entry, not even a retry of the row's own write."""
    member = consenting_member()
    _, api = surface("assistant")
    row, entry = consolidated(api, member, HTTP_IDEMPOTENCY_KEY="k-row")
    assert all(named for named, _ in doors(api, member, row["id"]).values())  # cached too
    memory_pause(entry=entry, actor=Actor.of(member))

    for door, (named, content) in doors(api, member, row["id"]).items():
        assert named is None, door
        assert str(entry.pk) not in content.decode(), door
    retried = api.post(url(member, "short-term/"), ROW, format="json", HTTP_IDEMPOTENCY_KEY="k-row")
    assert retried.status_code == 201, retried.content
    assert retried.json()["id"] == row["id"]
    assert retried.json()["consolidated_to"] is None


def test_an_entry_past_the_members_auto_forget_choice_is_not_named(monkeypatch):
    """The entry a row became outlives the member's choice for its kind between two
    sweeps: from that instant the row reads without the entry's id, and a bundle that
    named it was cached no longer than until then (no change marks the moment)."""
    import hierarchy.bundle as bundle_module

    member = consenting_member()
    client, api = surface("assistant")
    row, entry = consolidated(api, member)
    for n in range(20):
        remember(member, body=f"Garden note {n}", subject=f"garden {n}")
    memory_settings(member, auto_forget_months={entry.scope_kind: 3})
    aged = timezone.now() - THREE_MONTHS + timedelta(seconds=10)
    MemoryEntry.objects.filter(pk=entry.pk).update(updated_at=aged)
    due = aged + THREE_MONTHS
    kept: list = []

    def spy(key, value, *, member_id, now, expires_at):
        kept.append(expires_at)

    monkeypatch.setattr(bundle_module, "bundle_cache_set", spy)
    before = bundle(member, client=client, now=due - timedelta(seconds=5))
    # the entry is in the bundle only as what the row became: fresher memories fill its
    # long-term part
    assert str(entry.pk) not in [e["id"] for e in before["ltm"]["entries"]]
    assert [r["consolidated_to"] for r in before["stm"]] == [str(entry.pk)]
    assert kept == [due]  # sooner than the row's TTL and the cache's 30 s
    after = bundle(member, client=client, now=due + timedelta(seconds=1))
    assert [r["consolidated_to"] for r in after["stm"]] == [None]

    MemoryEntry.objects.filter(pk=entry.pk).update(
        updated_at=F("updated_at") - timedelta(minutes=1)
    )
    for door, (named, content) in doors(api, member, row["id"]).items():
        assert named is None, door
        assert str(entry.pk) not in content.decode(), door
