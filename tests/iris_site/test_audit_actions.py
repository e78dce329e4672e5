"""The audit vocabulary (`iris_site.audit.actions`): every action declared once in one
scheme, `audit_event_append` refusing any other, one policy-id spelling, and rows stored
under an action's former name still verified and still found where events are read."""

import ast
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from consent.enums import ConsentEventKind
from datarights.enums import TrailEvent
from datarights.summary import action_words
from hierarchy.operator import (
    AUDIT_TRENDS,
    TIME_RANGES,
    audit_trend,
    stm_reconstruct,
    stm_replay,
    write_refusal_counts,
)
from hierarchy.stm import scope_digest
from iris_site.audit import events as audit_events
from iris_site.audit.actions import (
    ACTION_SCHEME,
    APPS,
    LEGACY_NAMES,
    POLICY_ID_SCHEME,
    AuditAction,
    current_name,
    names_under,
    stored_names,
)
from iris_site.audit.checkpoint import audit_checkpoint_seal
from iris_site.audit.events import Actor, audit_event_append
from iris_site.audit.seal import private_key_pem
from iris_site.audit.selectors import audit_chain_verify
from iris_site.enums import OperatorRole
from iris_site.errors import InvalidInput
from iris_site.models import AuditEvent
from memory.enums import EntryAuditAction
from tests.conftest import bearer_client
from tests.iris_site.factories import OperatorFactory

ROOT = Path(__file__).resolve().parents[2]
AUDIT_URL = "/api/v1/operator/audit-events/"
MEMBER = uuid.UUID("00000000-0000-4000-8000-0000000000a1")


# --- the catalogue (pure) -----------------------------------------------------------------


def test_every_declared_action_follows_the_one_scheme_and_is_named_by_its_value():
    for action in AuditAction:
        assert ACTION_SCHEME.match(action), action
        assert action.value.split(".")[0] in APPS, action
        assert action.name == action.value.upper().replace(".", "_"), action


def test_every_former_name_maps_to_a_declared_action_and_is_no_longer_declared():
    for old, action in LEGACY_NAMES.items():
        assert isinstance(action, AuditAction), old
        assert old not in set(AuditAction), old  # one name per action going forward
        assert current_name(old) == action
        assert set(stored_names(action)) >= {action.value, old}
        assert set(stored_names(old)) == set(stored_names(action))
    assert current_name("never.declared.anywhere") == "never.declared.anywhere"
    assert stored_names("never.declared.anywhere") == ("never.declared.anywhere",)


def test_a_read_by_a_former_prefix_finds_the_renamed_actions_and_only_those():
    stm = set(names_under("memory.stm."))
    assert {"memory.stm.write", "hierarchy.stm.written", "hierarchy.stm.purged"} <= stm
    # justified operator reads were never `memory.stm.*`: the replay still leaves them out
    assert not stm & {"hierarchy.stm.admin_read", "memory.govern.admin_stm_read"}
    inspections = set(names_under("inspection."))
    assert {"inspection.snapshot.read", "iris.admin_inspection.read"} <= inspections


@pytest.mark.parametrize(
    ("entity", "values"),
    [
        ("memory.entry", EntryAuditAction.values),
        ("datarights.request", TrailEvent.values),
        ("consent.event", ConsentEventKind.values),
    ],
)
def test_every_value_of_an_enum_that_names_a_verb_is_a_declared_action(entity, values):
    for value in values:
        assert AuditAction.of(entity, value) in set(AuditAction), value


def _policy_ids() -> dict[str, str]:
    """Every `…POLICY_ID = "…"` constant in the apps' production modules."""
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Constant):
                    continue
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.endswith("POLICY_ID"):
                        found[f"{path.relative_to(ROOT)}:{target.id}"] = node.value.value
    return found


def test_every_policy_id_has_the_one_spelling():
    policy_ids = _policy_ids()
    assert len(policy_ids) >= 15
    for where, policy_id in policy_ids.items():
        assert POLICY_ID_SCHEME.match(policy_id), (where, policy_id)


WRITERS = {
    "audit_event_append",  # the one writer, and the helpers that call it
    "access_record_append",
    "operator_read_audit",
    "stm_audit",
    "entity_audit",
    "entry_audit",
    "_alert",
    "_audit",
    "_job_event",
}


def test_no_writer_spells_an_action_itself():
    """Writers name actions through the catalogue (`AuditAction.…`), never as a string of
    their own: a literal or an f-string passed as the action is how vocabularies drift."""
    spelt = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name not in WRITERS:
                    continue
                given = [k.value for k in node.keywords if k.arg == "action"] + node.args[:1]
                if any(isinstance(v, ast.Constant | ast.JoinedStr) for v in given):
                    spelt.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert spelt == []


# --- the writer refuses what is not declared ------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "action", ["memory.surprise.happened", "memory.stm.write", "Memory.Entry.Created", ""]
)
def test_append_refuses_an_undeclared_action_and_writes_nothing(action):
    with pytest.raises(InvalidInput) as refused:
        audit_event_append(action=action, policy_id="iris.memory.entries.v1", actor=Actor.system())
    assert refused.value.code == "audit_action_undeclared"
    assert refused.value.status_code == 400 and "action" in refused.value.fields
    assert not AuditEvent.objects.exists()


@pytest.mark.django_db
def test_append_takes_a_declared_action_as_member_or_as_its_value():
    first = audit_event_append(
        action=AuditAction.MEMORY_RECALL_RESOLVED,
        policy_id="iris.memory.recall.v1",
        actor=Actor.system(),
    )
    second = audit_event_append(
        action="memory.recall.resolved", policy_id="iris.memory.recall.v1", actor=Actor.system()
    )
    stored = AuditEvent.objects.filter(pk__in=[first.pk, second.pk]).values_list(
        "action", flat=True
    )
    assert list(stored) == ["memory.recall.resolved"] * 2


# --- rows written under former names --------------------------------------------------------


def _old_row(monkeypatch, action: str, *, member_id=MEMBER, hours_ago: float = 1, **payload):
    """An event as it was written before the vocabulary: its action's former name, hashed
    and chained like any other (the writer's check is lifted for this one append)."""
    with monkeypatch.context() as patch:
        patch.setattr(audit_events, "vet_action", lambda action: None)
        return audit_event_append(
            action=action,
            policy_id="iris-hierarchy-stm-v1",  # old rows keep their policy id too
            actor=Actor.system(),
            target_member_id=member_id,
            payload=payload,
            occurred_at=timezone.now() - timedelta(hours=hours_ago),
        )


def _new_row(action: AuditAction, *, member_id=MEMBER, hours_ago: float = 0.5, **payload):
    return audit_event_append(
        action=action,
        policy_id="iris.hierarchy.stm.v1",
        actor=Actor.system(),
        target_member_id=member_id,
        payload=payload,
        occurred_at=timezone.now() - timedelta(hours=hours_ago),
    )


@pytest.mark.django_db
def test_old_name_rows_keep_their_names_and_the_chain_and_its_checkpoint_verify(
    monkeypatch, settings, tmp_path
):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    settings.AUDIT_SIGNING_KEY = private_key_pem(Ed25519PrivateKey.generate()).decode()
    settings.AUDIT_VERIFY_KEYS = []
    settings.AUDIT_SIGNING_KEY_FILE = str(tmp_path / "unused-key.pem")
    settings.AUDIT_CHECKPOINT_PATH = str(tmp_path / "sink" / "checkpoints.jsonl")
    old = _old_row(monkeypatch, "memory.stm.write", stm_id="s-1")
    _old_row(monkeypatch, "admin.memory_hierarchy.counts.read", member_id=None)
    assert audit_checkpoint_seal() is not None
    _new_row(AuditAction.HIERARCHY_STM_WRITTEN, stm_id="s-2")
    report = audit_chain_verify()
    assert report.valid and report.checked_count == 3 and report.checkpoint == 1
    assert AuditEvent.objects.get(pk=old.pk).action == "memory.stm.write"


@pytest.mark.django_db
def test_the_dashboard_counts_old_name_rows_with_new_ones(monkeypatch):
    # given a short-term write and a consolidation refusal under their former names, and
    # the same events written since under the current ones
    _old_row(monkeypatch, "memory.stm.write", stm_id="s-1")
    _new_row(AuditAction.HIERARCHY_STM_WRITTEN, stm_id="s-2")
    refusal = {"write": "consolidate", "reason": "scope-suppressed", "consumer": "shell"}
    _old_row(monkeypatch, "memory.stm.consolidation_refused", **refusal)
    _new_row(AuditAction.HIERARCHY_STM_CONSOLIDATION_REFUSED, **refusal)
    now = timezone.now()
    # when the dashboard reads its trends and the refusal counter
    key, title, actions, series_by, labels = next(t for t in AUDIT_TRENDS if t[0] == "writes")
    trend = audit_trend(
        key=key,
        title=title,
        actions=actions,
        series_by=series_by,
        labels=labels,
        span=TIME_RANGES["24h"],
        now=now,
    )
    refusals = write_refusal_counts(now=now)
    # then both rows count, under one series
    assert trend.total == 2
    assert {name for _, name in trend.counts} == {"short-term"}
    assert [(r["reason"], r["last_24h"]) for r in refusals] == [("scope-suppressed", 2)]


@pytest.mark.django_db
def test_the_replay_finds_and_reconstructs_old_name_rows(monkeypatch):
    digest = scope_digest("desk-1")
    common = {"scope_id_digest": digest, "scope_kind": "session", "category": "general"}
    _old_row(monkeypatch, "memory.stm.write", stm_id="s-1", **common)
    _new_row(AuditAction.HIERARCHY_STM_REFRESHED, stm_id="s-1", **common)
    _old_row(monkeypatch, "memory.govern.admin_stm_read", scope_id_digest=digest)
    events = stm_replay(scope_id="desk-1")
    assert [e.action for e in events] == ["memory.stm.write", "hierarchy.stm.refreshed"]
    [row] = stm_reconstruct(events)
    assert row["stm_id"] == "s-1"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["hierarchy.stm.written", "memory.stm.write"])
def test_the_audit_api_filters_by_either_name_and_finds_both_rows(monkeypatch, name):
    _old_row(monkeypatch, "memory.stm.write", stm_id="s-1")
    _new_row(AuditAction.HIERARCHY_STM_WRITTEN, stm_id="s-2")
    _new_row(AuditAction.HIERARCHY_STM_READ)
    client = bearer_client(OperatorFactory(role=OperatorRole.ADMIN))
    exact = client.get(AUDIT_URL, {"action": name}).json()["results"]
    assert sorted(e["action"] for e in exact) == ["hierarchy.stm.written", "memory.stm.write"]
    for prefix in ("memory.stm.", "hierarchy.stm."):
        found = client.get(AUDIT_URL, {"action_prefix": prefix}).json()["results"]
        assert len(found) == 3, prefix


def test_the_access_report_words_an_old_name_as_its_new_one():
    for old, action in LEGACY_NAMES.items():
        assert action_words(old, {}) == action_words(action, {}), old
    assert action_words("iris.admin_inspection.read", {}) == "looked at the memories allowed"
    moved = {"to_state": "granted"}
    assert action_words("iris.admin_inspection.transition", moved) == "was allowed to look"
