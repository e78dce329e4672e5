"""What a data-rights request sees of forgetting: an export made after a forget carries no
forgotten text and the consent as the ledger stands; a hard delete of every scope takes
the member's independent short-term memory too; export files are private to the server."""

import json
import os
import stat

import pytest

from consent.selectors import consent_latest_event
from datarights.export import artifact_path, member_dir, read_member
from hierarchy.models_stm import ShortTermMemory
from hierarchy.stm import stm_write
from iris_site.audit.events import Actor, iso
from memory.enums import ScopeKind
from memory.forgetting.services import memory_tombstone
from tests.consent.factories import record
from tests.datarights.factories import EXPORT, process, submit
from tests.memory.factories import consenting_member, remember

pytestmark = pytest.mark.django_db

INHALER = "My blue inhaler is the salbutamol one, two puffs"


def _bundle(member) -> tuple[dict, str]:
    export = process(submit(member, "export", EXPORT))
    assert export.status == "completed"
    raw = read_member(artifact_path(export)).decode()
    return json.loads(raw), raw


def test_an_export_a_minute_after_a_forget_has_no_text_and_says_forgotten():
    # given
    member = consenting_member()
    coffee = remember(member, subject="coffee", body="I take my coffee with cardamom").entry
    kept = remember(member, subject="tea", body="Green tea after lunch").entry
    # when
    memory_tombstone(entry=coffee, actor=Actor.of(member))
    bundle, raw = _bundle(member)
    # then: the forgotten memory is its id, its times and "forgotten", nothing more
    entries = {e["id"]: e for e in bundle["entries"]}
    forgotten = entries[str(coffee.pk)]
    assert forgotten["forgotten"] is True and forgotten["lifecycle"] == "tombstoned"
    assert set(forgotten) == {
        "id",
        "lifecycle",
        "forgotten",
        "consent",
        "created_at",
        "forgotten_at",
        "revisions",
    }
    assert "cardamom" not in raw
    assert entries[str(kept.pk)]["body"] == "Green tea after lunch"


def test_an_export_after_a_consent_withdrawal_shows_the_consent_revoked(
    django_capture_on_commit_callbacks,
):
    # given
    member = consenting_member("category:medical")
    inhaler = remember(member, category="medical", subject="inhaler", body=INHALER).entry
    assert inhaler.consent[0]["revoked_at"] is None
    # when the member withdraws the consent (the cascade forgets the memory)
    with django_capture_on_commit_callbacks(execute=True):
        record(member, "category:medical", kind="withdrawal")
    withdrawal = consent_latest_event(member_id=member.pk, consent_type="category:medical")
    bundle, raw = _bundle(member)
    # then
    [entry] = [e for e in bundle["entries"] if e["id"] == str(inhaler.pk)]
    assert entry["forgotten"] is True
    [consent] = entry["consent"]
    assert consent["category"] == "medical"
    assert consent["revoked_at"] == iso(withdrawal.occurred_at)
    assert "salbutamol" not in raw


def test_a_hard_delete_of_every_scope_takes_independent_short_term_memory():
    # given: working memory tied to no entry at all
    member = consenting_member()
    remember(member, body="I take my coffee with cardamom")
    stm_write(
        member=member,
        scope_kind="user_session",
        scope_id="s-1",
        category="preference",
        content="wants a quiet table by the window",
        actor=Actor.of(member),
    )
    # when
    delete = process(submit(member, "delete", {"mode": "hard", "scopes": ScopeKind.values}))
    # then
    assert delete.status == "completed", delete.progress
    assert not ShortTermMemory.objects.filter(member=member).exists()
    assert delete.progress["counts"]["erase-member-stores"]["short_term_memory"] == 1


def test_a_hard_delete_of_some_scopes_keeps_unrelated_short_term_memory():
    member = consenting_member()
    remember(member, body="I take my coffee with cardamom")
    stm_write(
        member=member,
        scope_kind="user_session",
        scope_id="s-1",
        category="preference",
        content="wants a quiet table by the window",
        actor=Actor.of(member),
    )
    delete = process(submit(member, "delete", {"mode": "hard", "scopes": ["profile"]}))
    assert delete.status == "completed", delete.progress
    assert ShortTermMemory.objects.filter(member=member).count() == 1


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_export_files_are_0600_in_0700_directories_whatever_the_umask(umask, export_dir):
    member = consenting_member()
    remember(member, body="I take my coffee with cardamom")
    previous = os.umask(umask)
    try:
        export = process(submit(member, "export", EXPORT))
    finally:
        os.umask(previous)
    path = artifact_path(export)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(member_dir(member.pk).stat().st_mode) == 0o700
    assert stat.S_IMODE(member_dir(member.pk).parent.stat().st_mode) == 0o700


def test_an_existing_world_readable_export_directory_is_made_private(export_dir):
    member = consenting_member()
    remember(member, body="I take my coffee with cardamom")
    member_dir(member.pk).mkdir(parents=True, mode=0o755)
    member_dir(member.pk).chmod(0o755)
    export = process(submit(member, "export", EXPORT))
    assert stat.S_IMODE(artifact_path(export).parent.stat().st_mode) == 0o700
