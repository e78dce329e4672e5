"""Migration 0022: people written under the old handle keep being one person with the
new name key (their entries move to the new handle, the entity to the new digest)."""

import importlib

import pytest
from django.apps import apps
from django.conf import settings
from django.utils import timezone

from iris_site.crypto import encrypt
from memory.entities.derive import entity_digest
from memory.enums import EntityKind
from memory.models import MemoryEntity, MemoryEntry, conflict_token
from memory.policy.conflicts import conflict_key
from memory.policy.handles import actor_handle
from tests.memory.factories import consenting_member, remember

rekey_migration = importlib.import_module("memory.migrations.0022_person_names_rekey")


@pytest.mark.django_db
def test_a_person_written_under_the_old_handle_is_found_by_every_spelling_after_the_rekey():
    member = consenting_member()
    entry = remember(member, body="Lent me the kayak").entry
    old = rekey_migration._v1_handle(member.pk, "Quorvex 7")
    MemoryEntry.objects.filter(pk=entry.pk).update(actor_handle=old)
    person = MemoryEntity.objects.create(
        member=member,
        kind=EntityKind.PERSON,
        digest=rekey_migration._v1_digest(member.pk, EntityKind.PERSON, old),
        label=encrypt("Quorvex 7"),
        created_at=timezone.now(),
        state_changed_at=timezone.now(),
    )
    rekey_migration.rekey(apps, None)
    new = actor_handle(
        secret=settings.IRIS_HASH_SECRET.encode(), member_id=member.pk, raw_name="Quorvex7."
    )
    entry.refresh_from_db()
    person.refresh_from_db()
    # the conflict key moves with it (stored as the member's keyed token of the new key)
    assert entry.actor_handle == new
    assert entry.conflict_key == conflict_token(
        member.pk, conflict_key(category=entry.category, actor_handle=new, subject=entry.subject)
    )
    assert person.digest == entity_digest(member_id=member.pk, kind=EntityKind.PERSON, value=new)
