"""Attacks on two rules that just landed, door by door.

1. *Forget automatically after…* (`memory.access.gate` `member-auto-forget`): from the instant a
   long-term entry is older than the member's choice for its kind, no service client
   uses it, nor a short-term copy of it, though the hourly sweep has not erased it yet.
   Every door a surface reads, writes or consolidates through is tried with an entry whose
   time has come between two sweeps (aged as in `test_member_controls_attacks`: the
   choice is set first, then `updated_at` moved back).
2. Retention reviews' tenant rule (`memory.sweeps.reviews.retention_reviews_visible`): a
   tenant-bound operator sees and decides only its own tenant's tenant-scope memory, as an
   inspection would let it read, never a member's consumer memory. The other operator
   doors (the memory-hierarchy API and the `memory_inspect` CLI) are tried with a member
   of the operator's tenant and that member's consumer memory.

Each door found open by this attack is closed and tested here: the conflict ladder and
a consolidation's answer (1), the memory-hierarchy lookup, the admin short-term doors and
the `memory_inspect` CLI (2).
"""

import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F
from django.test import Client
from django.utils import timezone

from hierarchy.models import ShortTermMemory
from iris_site.enums import OperatorRole
from memory.models import MemoryEntity, MemoryEntry
from memory.sweeps.auto_forget import member_auto_forget
from memory.sweeps.retention import retention_sweep
from tests.conftest import bearer_client
from tests.hierarchy.stm_factories import member_with
from tests.hierarchy.stm_factories import write as stm_write
from tests.iris_site.factories import OperatorFactory, TenantFactory
from tests.memory.factories import consenting_member, memory_settings, remember
from tests.trust.test_member_controls_attacks import recall, surface, url

pytestmark = pytest.mark.django_db

THREE_MONTHS = timedelta(days=91)  # `months_to_days(3)`
OLD_BODY = "I take my coffee black"
WHY = "incident 12: checking what the agent was given"


def due_entry(member, *, kind="profile", **fields):
    """An entry whose auto-forget time (3 months for `kind`) has just come, between two
    sweeps: written 5 minutes short of the choice, the choice made (nothing erased), then
    aged 10 minutes."""
    scope = {"kind": kind} if kind == "profile" else {"kind": kind, "session_id": "s-1"}
    entry = remember(
        member,
        body=OLD_BODY,
        subject="coffee",
        scope=scope,
        now=timezone.now() - THREE_MONTHS + timedelta(minutes=5),
        **fields,
    ).entry
    memory_settings(member, auto_forget_months={kind: 3})
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "active"  # not erased
    MemoryEntry.objects.filter(pk=entry.pk).update(
        updated_at=F("updated_at") - timedelta(minutes=10)
    )
    return entry


def test_pausing_and_resuming_a_memory_does_not_restart_its_auto_forget_clock():
    """A pause and a resume (the member's, or the system's when a timed pause ends) change
    whether a memory is used, not what it says: the member's choice still counts from when
    it was stated, on the recall and in the sweep, not from the resume."""
    member = consenting_member()
    entry = remember(
        member,
        body=OLD_BODY,
        subject="coffee",
        now=timezone.now() - THREE_MONTHS + timedelta(minutes=5),
    ).entry
    memory_settings(member, auto_forget_months={"profile": 3})
    stated = MemoryEntry.objects.get(pk=entry.pk).updated_at
    own = bearer_client(member)
    for step in ("pause", "resume"):
        answer = own.post(f"/api/v1/me/memories/{entry.pk}/{step}/", format="json")
        assert answer.status_code == 200, answer.content
    assert MemoryEntry.objects.get(pk=entry.pk).updated_at == stated
    _, api = surface("assistant")
    assert [e["id"] for e in recall(api, member, "assistant").json()["entries"]] == [str(entry.pk)]

    MemoryEntry.objects.filter(pk=entry.pk).update(
        updated_at=F("updated_at") - timedelta(minutes=10)
    )  # its time comes, 10 minutes ago
    data = recall(api, member, "assistant").json()
    assert data["entries"] == []
    assert data["audit_envelope"]["suppression_counts"] == {"member-auto-forget": 1}
    member_auto_forget(now=timezone.now())
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "tombstoned"


def stm_row(api, member, **fields):
    body = {
        "scope_kind": "user_session",
        "scope_id": "s-1",
        "category": "preference",
        "content": "wants a café on the walk",
        **fields,
    }
    answer = api.post(url(member, "short-term/"), body, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


# --- 1. auto-forget: the read side ---------------------------------------------------------


def test_short_term_copies_of_a_due_entry_are_withheld_on_every_stm_door():
    """List, refresh, consolidate and the bundle: a row pointing at an entry whose time
    has come is withheld (404 where a row is named), counted under the member's choice."""
    member = consenting_member()
    entry = due_entry(member)
    _, api = surface("assistant")
    row = stm_row(api, member, related_entry_ids=[str(entry.pk)])

    listed = api.get(url(member, "short-term/"), {"scope_id": "s-1"})
    assert listed.status_code == 200, listed.content
    assert listed.json()["results"] == []
    assert listed.json()["withheld"] == {"member-auto-forget": 1}
    refreshed = api.post(url(member, f"short-term/{row['id']}/refresh/"), {}, format="json")
    assert refreshed.status_code == 404, refreshed.content
    consolidated = api.post(
        url(member, f"short-term/{row['id']}/consolidate/"), {"subject": "cafe"}, format="json"
    )
    assert consolidated.status_code == 404, consolidated.content
    bundle = api.post(
        url(member, "context-bundle/"), {"scope_id": "s-1", "query": "coffee"}, format="json"
    )
    assert bundle.status_code == 200, bundle.content
    data = bundle.json()
    assert data["stm"] == [] and data["ltm"]["entries"] == []
    assert data["stm_withheld"] == {"member-auto-forget": 1}
    assert OLD_BODY not in bundle.content.decode()


def test_entity_recall_withholds_a_due_entry_and_its_graph():
    """Recall narrowed to an entity (the narrowed pipeline, `_resolve_narrowed`) withholds
    the entry, and with it the entities and relationships it states."""
    member = consenting_member()
    due_entry(
        member,
        category="relationship",
        multi_actor={"actor_name": "Samwise Example", "relationship_note": "my sister"},
    )
    person = MemoryEntity.objects.get(member=member, kind="person")
    _, api = surface("assistant")
    answer = recall(api, member, "assistant", entity=str(person.pk))
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["entries"] == [] and data["relationships"] == [] and data["entities"] == []
    assert data["audit_envelope"]["suppression_counts"] == {"member-auto-forget": 1}
    assert "my sister" not in answer.content.decode()


def test_a_write_that_meets_a_due_entry_does_not_echo_it():
    """The conflict ladder keeps the member's word; the answer to the surface names no
    entry (the write echo asks the gate)."""
    member = consenting_member()
    entry = due_entry(member)
    _, api = surface("assistant")
    body = {
        "scope": {"kind": "session", "session_id": "s-1"},
        "category": "preference",
        "subject": "coffee",
        "body": "Takes coffee with oat milk",
        "origin": "model-inferred",
    }
    answer = api.post(url(member, "memories/") + "?session_id=s-1", body, format="json")
    assert answer.status_code in (200, 201), answer.content
    assert str(entry.pk) not in answer.content.decode()
    assert OLD_BODY not in answer.content.decode()


# --- 1. auto-forget: the write side ---------------------------------------------------------


def test_a_due_entry_meets_no_new_fact_so_nothing_revives_it_as_of_the_past():
    """A due entry is outside the conflict ladder (`memory_conflicting_entries`): the
    member's new fact on the same subject is stored beside it instead of superseding it
    (which would restart its clock, the time it last changed), and neither a plain nor an
    `as_of` recall nor an `as_of` bundle returns it; the sweep then erases it."""
    member = consenting_member()
    entry = due_entry(member)
    _, api = surface("assistant")
    plain = recall(api, member, "assistant").json()
    assert plain["entries"] == []
    assert plain["audit_envelope"]["suppression_counts"] == {"member-auto-forget": 1}

    newer = remember(member, body="I take my coffee with oat milk", subject="coffee")
    assert newer.created and newer.entry.lifecycle == "active"
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "active"  # not superseded
    as_of = (timezone.now() - timedelta(days=1)).isoformat()  # before the new fact

    answer = recall(api, member, "assistant", as_of=as_of)
    assert answer.status_code == 200, answer.content
    assert OLD_BODY not in answer.content.decode()
    assert answer.json()["entries"] == []
    assert answer.json()["audit_envelope"]["suppression_counts"] == {"member-auto-forget": 1}
    bundle = api.post(
        url(member, "context-bundle/"),
        {"scope_id": "s-1", "query": "coffee", "as_of": as_of},
        format="json",
    )
    assert bundle.status_code == 200, bundle.content
    assert OLD_BODY not in bundle.content.decode()
    member_auto_forget(now=timezone.now())  # the hourly sweep
    assert MemoryEntry.objects.get(pk=entry.pk).lifecycle == "tombstoned"
    assert MemoryEntry.objects.get(pk=newer.entry.pk).lifecycle == "active"


def test_consolidating_a_row_against_a_due_entry_neither_names_it_nor_is_kept_out_by_it():
    """The due entry decides nothing: the surface's fact is stored, as after the sweep,
    and nothing the surface reads names the forgotten one."""
    member = consenting_member()
    entry = due_entry(member)
    _, api = surface("assistant")
    row = stm_row(api, member, content="Takes coffee with oat milk")
    answer = api.post(
        url(member, f"short-term/{row['id']}/consolidate/"), {"subject": "coffee"}, format="json"
    )
    assert answer.status_code in (200, 201), answer.content
    assert str(entry.pk) not in answer.content.decode()
    listed = api.get(url(member, "short-term/"), {"scope_id": "s-1"})
    assert str(entry.pk) not in listed.content.decode()
    assert answer.json()["created"] is True
    stored = MemoryEntry.objects.get(pk=answer.json()["entry_id"])
    assert stored.lifecycle == "active"


def test_a_consolidation_kept_out_by_a_paused_memory_does_not_name_it_even_on_a_retry():
    """The conflict ladder keeps the member's own word over a surface's inference; when
    the member has paused that memory, the answer (and its idempotent replay) names no
    entry, as a write's answer does (`memory.http.replays.kept_entry_visible`)."""
    from iris_site.audit.events import Actor
    from memory.pauses import memory_pause

    member = consenting_member()
    stated = remember(member, body=OLD_BODY, subject="coffee").entry
    memory_pause(entry=stated, actor=Actor.of(member))
    _, api = surface("assistant")
    row = stm_row(api, member, content="Takes coffee with oat milk")
    path = url(member, f"short-term/{row['id']}/consolidate/")
    first = api.post(path, {"subject": "coffee"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = api.post(path, {"subject": "coffee"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    for answer in (first, again):
        assert answer.status_code == 200, answer.content
        assert answer.json()["created"] is False and answer.json()["entry_id"] is None
        assert str(stated.pk) not in answer.content.decode()
    assert first.json() == again.json()


# --- 2. tenant-bound operators and a member's consumer memory -------------------------------


@pytest.fixture
def tenant_world():
    """A tenant, a member of it with medical consumer memory (profile) and a short-term
    row of a user session, and an admin operator bound to that tenant."""
    tenant = TenantFactory()
    member = member_with("category:medical", tenants=[tenant])
    entry = remember(member, category="medical", subject="allergy", body="allergic to nuts").entry
    row = stm_write(member, content="prefers morning walks")
    bound = OperatorFactory(email="bound@example.test", role=OperatorRole.ADMIN, tenant=tenant)
    return member, entry, row, bound


def inspect(*args, operator) -> str:
    out = io.StringIO()
    call_command("memory_inspect", *args, "--operator", operator.email, "--json", stdout=out)
    return out.getvalue()


def test_the_ltm_lookup_shows_a_tenant_operator_none_of_a_members_consumer_memory(tenant_world):
    member, entry, _, bound = tenant_world
    answer = bearer_client(bound).post(
        f"/api/v1/operator/memory-hierarchy/ltm/{entry.pk}/", {"justification": WHY}, format="json"
    )
    assert answer.status_code in (200, 404), answer.content
    if answer.status_code == 200:
        assert answer.json()["entries"] == [], answer.json()["entries"]
        assert answer.json()["counts"]["total"] == 0
    cli = json.loads(
        inspect("ltm", "--entity", str(entry.pk), "--justification", WHY, operator=bound)
    )
    assert cli["entries"] == [] and cli["counts"]["total"] == 0
    assert str(member.pk) not in json.dumps(cli)


def test_a_tenant_operator_cannot_copy_a_members_consumer_memory_into_its_workbench(
    tenant_world,
):
    member, entry, _, bound = tenant_world
    args = ("--entry", str(entry.pk), "--member", str(member.pk), "--scope-id", "bench-1")
    with pytest.raises(CommandError, match="not_found"):
        inspect("demote", *args, "--justification", WHY, "--apply", operator=bound)
    assert not ShortTermMemory.objects.filter(scope_kind="admin_session").exists()


def test_a_tenant_operator_cannot_consolidate_a_members_session_row(tenant_world, tmp_path):
    member, _, row, bound = tenant_world
    note = {"kind": "operator-copilot", "operator_id": str(bound.pk)}
    spec = tmp_path / "note.json"
    spec.write_text(json.dumps({"origin": "operator-copilot", "scope": note, "subject": "walks"}))
    args = ("--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY)
    with pytest.raises(CommandError, match="not_found"):
        inspect("consolidate", *args, operator=bound)
    with pytest.raises(CommandError, match="not_found"):
        inspect("consolidate", *args, "--apply", operator=bound)
    assert not MemoryEntry.objects.filter(member=member, scope_kind="operator-copilot").exists()


def test_a_tenant_admin_cannot_move_a_members_session_row(tenant_world):
    _, _, row, bound = tenant_world
    answer = bearer_client(bound).post(
        f"/api/v1/operator/memory-hierarchy/stm-rows/{row.pk}/rescope/",
        {"scope_kind": "agent_run", "scope_id": "run-9", "justification": WHY},
        format="json",
    )
    assert answer.status_code == 404, answer.content
    assert ShortTermMemory.objects.get(pk=row.pk).scope_kind == "user_session"
    # nor lists the member's rows, even as metadata (the API and the CLI)
    listed = bearer_client(bound).post(
        f"/api/v1/operator/memory-hierarchy/stm/{row.scope_id}/",
        {"justification": WHY},
        format="json",
    )
    assert listed.status_code == 200, listed.content
    assert str(row.pk) not in listed.content.decode()
    cli = inspect("stm", "--scope", row.scope_id, "--justification", WHY, operator=bound)
    assert json.loads(cli) == []
    platform = OperatorFactory(role=OperatorRole.ADMIN)
    everyone = inspect("stm", "--scope", row.scope_id, "--justification", WHY, operator=platform)
    assert [r["id"] for r in json.loads(everyone)] == [str(row.pk)]


def test_retention_reviews_hold_for_a_tenant_operator(tenant_world):
    """The door that was fixed: the console lists a tenant operator no review of its
    member's crisis memory (consumer memory), and a decision on it is not found."""
    member, _, _, bound = tenant_world
    crisis = remember(member, category="other", subject="plan", scope={"kind": "crisis"}).entry
    retention_sweep(now=timezone.now() + timedelta(days=800))
    review = crisis.retention_reviews.filter(state="open").first()
    assert review is not None
    browser = Client()
    browser.force_login(bound)
    page = browser.get("/console/reviews/")
    assert page.status_code == 200
    assert str(review.pk) not in page.content.decode()
    decided = browser.post(f"/console/reviews/{review.pk}/decide/", {"decision": "delete"})
    assert decided.status_code == 404
    assert MemoryEntry.objects.get(pk=crisis.pk).lifecycle == "active"
