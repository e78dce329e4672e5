"""The one erasure service: what a forget keeps, what every store loses, and that no
cached context bundle outlives an erasure, whichever process ran it."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from hierarchy.bundle import get_context_bundle
from hierarchy.bundle_cache import bundle_generation
from iris_site.audit.events import Actor
from memory.forgetting.erasure import FORGOTTEN_BODY, erased_content, memory_erase
from memory.forgetting.services import memory_clear_purge_due, memory_clear_request
from memory.forgetting.stores import registered_stores
from memory.models import MemoryEntry, MemoryEntryTerm, MemoryRevision
from memory.selectors import principal_capabilities
from memory.services import memory_edit
from tests.datarights.factories import process, submit
from tests.iris_site.factories import ServiceClientFactory
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db

WALKS = "I walk along the canal every morning before work"


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()
    yield
    cache.clear()


def bundle(member, client):
    return get_context_bundle(
        member=member,
        scope_id="s-1",
        actor=Actor.of(client),
        capabilities=principal_capabilities(client),
        query="canal walk",
    )


def served_text(result) -> str:
    return " ".join(e.get("body") or "" for e in result["ltm"]["entries"])


def test_erased_content_keeps_ids_and_labels_and_drops_every_text():
    content = {
        "scope": {"kind": "profile", "user_id": "u"},
        "category": "relationship",
        "subject": "sister",
        "body": WALKS,
        "multi_actor": {"actor_handle": "actor_x", "relationship_note": "my sister"},
        "suppression": {"reason": "user-pause", "notes": "not now"},
        "provenance_chain": [{"kind": "session-turn", "ref": "t-1"}],
    }
    erased = erased_content(content)
    assert erased["body"] == FORGOTTEN_BODY and erased["subject"] == ""
    assert erased["multi_actor"] == {"actor_handle": "actor_x", "relationship_note": ""}
    assert erased["suppression"] == {"reason": "user-pause", "notes": ""}
    assert erased["scope"] == content["scope"] and erased["provenance_chain"] == [
        {"kind": "session-turn", "ref": "t-1"}
    ]
    assert erased_content(erased) == erased  # idempotent


def test_a_forget_erases_every_revision_and_keeps_a_keyed_digest():
    # given: a memory with a history of three wordings
    member = consenting_member()
    entry = remember(member, subject="walks", body=WALKS).entry
    memory_edit(entry=entry, actor=Actor.of(member), body="I walk the canal at dawn")
    # when
    report = memory_erase(
        member_id=member.pk, entry_ids=[entry.pk], actor=Actor.of(member), reason="forget"
    )
    # then
    entry.refresh_from_db()
    assert report.tombstoned_ids == (entry.pk,)
    assert entry.lifecycle == "tombstoned" and entry.body == FORGOTTEN_BODY
    assert entry.subject == "" and entry.term_stats == {} and len(entry.erased_digest) == 64
    [tombstone] = MemoryRevision.objects.filter(entry=entry)
    assert tombstone.action == "tombstoned" and tombstone.number == 3
    assert tombstone.previous_revision_id is None and entry.revision_id == tombstone.pk
    assert tombstone.content["body"] == FORGOTTEN_BODY
    assert not MemoryEntryTerm.objects.filter(entry_id=entry.pk).exists()
    assert set(report.counts) == {s.name for s in registered_stores()}
    # and erasing again finds nothing left to erase
    again = memory_erase(
        member_id=member.pk, entry_ids=[entry.pk], actor=Actor.of(member), reason="forget"
    )
    assert again.tombstoned_ids == () and again.counts["revisions"] == 0


def test_another_members_ids_are_ignored():
    member, other = consenting_member(), consenting_member()
    theirs = remember(other, body=WALKS).entry
    report = memory_erase(
        member_id=member.pk, entry_ids=[theirs.pk], actor=Actor.of(member), reason="forget"
    )
    assert report.entry_ids == ()
    assert MemoryEntry.objects.get(pk=theirs.pk).body == WALKS


@pytest.mark.parametrize("path", ["dsar-hard-delete", "full-clear-purge"])
def test_no_cached_bundle_serves_text_erased_by_the_worker(path):
    # given: a bundle with the memory, cached (as a web process would hold it)
    member = consenting_member()
    entry = remember(member, subject="walks", body=WALKS).entry
    client = ServiceClientFactory(consumer="assistant")
    assert WALKS in served_text(bundle(member, client))
    assert bundle(member, client)["cached"] is True
    before = bundle_generation(member.pk)
    # when the worker's job erases it (no commit hook, no cache call: only the database)
    if path == "dsar-hard-delete":
        delete = process(submit(member, "delete", {"mode": "hard", "scopes": ["profile"]}))
        assert delete.status == "completed"
    else:
        memory_clear_request(member=member, actor=Actor.of(member))
        memory_clear_purge_due(now=timezone.now() + timedelta(days=8))
    # then: the generation moved on in the erasing transaction, and no process asking
    # with it finds the old bundle
    assert not MemoryEntry.objects.filter(pk=entry.pk).exists()
    assert bundle_generation(member.pk) > before
    after = bundle(member, client)
    assert after["cached"] is False
    assert WALKS not in served_text(after)
