"""`seed_demo` gives every demo member a realistic memory set, once."""

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from iris_site.models import AuditEvent, User
from memory.enums import ScopeKind, is_sensitive_category
from memory.models import ChangeEvent, ConversationTurn, MemoryEntry, MemoryRevision, RecallRecord
from tests.stepup import step_up

pytestmark = pytest.mark.django_db


def _seed(capsys) -> dict:
    call_command("seed_demo", "--json")
    return json.loads(capsys.readouterr().out)


def _counts():
    return (
        MemoryEntry.objects.count(),
        MemoryRevision.objects.count(),
        ConversationTurn.objects.count(),
        AuditEvent.objects.filter(action__startswith="memory.").count(),
    )


def test_seeding_twice_writes_the_memory_set_once(capsys):
    # given
    _seed(capsys)
    first = _counts()
    # when
    _seed(capsys)
    # then
    assert first[0] > 0 and _counts() == first


def test_every_scope_kind_and_every_feature_appears(capsys):
    data = _seed(capsys)
    assert set(MemoryEntry.objects.values_list("scope_kind", flat=True)) == set(ScopeKind.values)
    for row in data["members"]:
        entries = MemoryEntry.objects.filter(member_id=row["id"])
        kinds = set(entries.values_list("scope_kind", flat=True))
        assert {"profile", "session", "scene", "notebook", "crisis", "tenant"} <= kinds
        assert "operator-copilot" in kinds
        assert entries.filter(lifecycle="paused", suppression_reason="user-pause").exists()
        assert entries.filter(revision_count=3).exists()  # created, then edited twice
        assert entries.exclude(actor_handle="").exclude(relationship_note="").exists()
        assert ConversationTurn.objects.filter(member_id=row["id"]).count() >= 3
        assert set(entries.values_list("origin", flat=True)) >= {
            "user-stated",
            "model-inferred",
            "operator-copilot",
        }
        tenant = entries.get(scope_kind="tenant")
        assert str(tenant.tenant_id) in row["tenant_ids"]
        copilot = entries.get(scope_kind="operator-copilot")
        assert str(copilot.operator_id) in {o["id"] for o in data["operators"]}
    assert AuditEvent.objects.filter(action="memory.entry.created").count() == (
        MemoryEntry.objects.count()
    )


def test_sensitive_memory_and_pose_only_where_consent_allows(capsys):
    data = _seed(capsys)
    by_email = {row["email"]: row["id"] for row in data["members"]}
    ada = MemoryEntry.objects.filter(member_id=by_email["ada@iris.example"])
    assert {"medical", "mental_health"} <= set(ada.values_list("category", flat=True))
    pose = ada.get(scope_kind="pose")
    assert not is_sensitive_category(pose.category)  # no `category:pose_alignment` consent
    # the note is sealed: found among the opened entries, not by a lookup on its text
    [sam] = [e for e in ada.exclude(relationship_note="") if e.relationship_note == "my sister"]
    assert sam.actor_handle.startswith("actor_") and "Sam" not in sam.body
    for email in ("ben@iris.example", "chloe@iris.example"):
        others = MemoryEntry.objects.filter(member_id=by_email[email])
        assert not others.filter(scope_kind="pose").exists()  # no `sensitive_data` consent
        assert not any(is_sensitive_category(c) for c in others.values_list("category", flat=True))


def test_the_assistant_was_given_memory_so_a_forget_on_the_page_tells_it(capsys):
    data = _seed(capsys)
    _seed(capsys)  # once per member, however often `make run` seeds
    for row in data["members"]:
        [given] = RecallRecord.objects.filter(member_id=row["id"], consumer="assistant")
        assert given.returned_ids and given.scope_key.startswith("profile")
    ada = User.objects.get(email="ada@iris.example")
    record = RecallRecord.objects.get(member=ada, consumer="assistant")
    entry_id = record.returned_ids[0]
    browser = Client()
    browser.force_login(ada)
    step_up(browser)
    forgot = browser.post(f"/profile/memory/{entry_id}/forget/")
    assert forgot.status_code == 302, forgot.content
    out = io.StringIO()
    call_command("changes_tail", "--consumer=assistant", "--once", "--from-start", stdout=out)
    [line] = out.getvalue().splitlines()
    assert "memory.forgotten" in line and f"entries={entry_id}" in line
    assert f"member={ada.pk}" in line
    assert not ChangeEvent.objects.exclude(consumer="assistant").exists()
