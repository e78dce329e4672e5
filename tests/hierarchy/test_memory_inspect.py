"""`manage.py memory_inspect`: every subcommand in both output modes, justification for
member data, dry runs by default, and the audit of each invocation, which names the
operator running it (`--operator EMAIL`, an operator account with a role) as its actor."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from hierarchy.models import ShortTermMemory
from iris_site.audit.enums import ActorType
from iris_site.enums import OperatorRole
from iris_site.models import AuditEvent, User
from memory.models import MemoryEntry
from tests.hierarchy.stm_factories import events, member_with, write
from tests.iris_site.factories import MemberFactory, OperatorFactory, TenantFactory
from tests.memory.factories import remember

pytestmark = pytest.mark.django_db
WHY = "incident 77: reconstructing what the agent saw"
OPERATOR = "cli-operator@example.test"


@pytest.fixture(autouse=True)
def operator():
    return OperatorFactory(email=OPERATOR, role=OperatorRole.TRUST_AND_SAFETY)


def run(*args, operator: str | None = OPERATOR) -> str:
    out = io.StringIO()
    given = ("--operator", operator) if operator is not None else ()
    call_command("memory_inspect", *args, *given, stdout=out)
    return out.getvalue()


def run_json(*args, operator: str | None = OPERATOR):
    return json.loads(run(*args, "--json", operator=operator))


def test_counts_in_both_modes():
    member = member_with()
    write(member)
    remember(member)
    data = run_json("counts")
    assert data["stm"]["user_session"] == 1 and data["ltm"]["active"] == 1
    human = run("counts")
    assert "tier" in human and "user_session" in human and "episodic" in human
    invocations = events("hierarchy.cli.invoked")
    assert [e.payload["json"] for e in invocations] == [True, False]
    assert invocations[0].payload["subcommand"] == "counts"


def test_replay_in_both_modes_and_reconstruct():
    row = write(member_with(), scope_id="run-3", scope_kind="agent_run")
    data = run_json("replay", "--scope", "run-3", "--reconstruct")
    assert [e["stm_id"] for e in data["events"]] == [str(row.pk)]
    assert data["reconstructed"][0]["state"] == "written"
    human = run("replay", "--scope", "run-3", "--limit", "5")
    assert "hierarchy.stm.written" in human and str(row.pk) in human


def test_replay_never_writes_back():
    write(member_with(), scope_id="run-3")
    with pytest.raises(CommandError, match="illegal-transition"):
        run("replay", "--scope", "run-3", "--restore")
    assert ShortTermMemory.objects.count() == 1


@pytest.mark.parametrize(
    "args",
    [
        ("stm", "--scope", "s-1"),
        ("ltm", "--entity", "coffee"),
        ("consolidate", "--stm", "00000000-0000-0000-0000-000000000000", "--from-file", "x"),
        ("demote", "--entry", "e", "--member", "m", "--scope-id", "b"),
    ],
)
def test_reads_and_writes_of_member_data_require_a_justification(args):
    with pytest.raises(CommandError, match="justification"):
        run(*args)
    with pytest.raises(CommandError, match="justification-required"):
        run(*args, "--justification", "   ")
    assert not events("hierarchy.cli.invoked")


def test_stm_in_both_modes_shows_no_content():
    member = member_with("category:medical")
    write(member, content="prefers morning walks")
    write(member, category="medical", content="takes insulin")
    data = run_json("stm", "--scope", "s-1", "--justification", WHY)
    assert sorted(r["sensitive"] for r in data) == [False, True]
    assert all("content" not in r for r in data)
    human = run("stm", "--scope", "s-1", "--justification", WHY, "--member", str(member.pk))
    # a special category is named only as the marker (issue 42), never the content
    assert "special-category" in human and "medical" not in human
    assert "insulin" not in human and "walks" not in human
    assert len(events("hierarchy.stm.admin_read")) == 2


def test_ltm_by_entry_id_in_both_modes():
    member = member_with()
    entry = remember(member, subject="coffee").entry
    data = run_json("ltm", "--entity", str(entry.pk), "--justification", WHY, "--history")
    assert data["lookup"] == "entry-id" and data["counts"]["total"] == 1
    [row] = data["entries"]
    assert row["id"] == str(entry.pk) and row["history"] and "body" not in row
    human = run("ltm", "--entity", str(entry.pk), "--justification", WHY, "--state", "active")
    assert str(entry.pk) in human and "black" not in human and "coffee" not in human
    [event] = events("hierarchy.ltm_history.read")
    assert event.payload["entry_ids"] == [str(entry.pk)]


def test_ltm_by_subject_answers_counts_only_in_both_modes():
    # given
    member = member_with()
    entry = remember(member, subject="coffee").entry
    # when
    data = run_json("ltm", "--entity", "coffee", "--justification", WHY)
    human = run("ltm", "--entity", "Coffee", "--justification", WHY)
    # then
    assert data["lookup"] == "subject" and data["entries"] is None
    assert data["counts"]["active"] == 1 and data["counts"]["total"] == 1
    assert "lookup by subject" in human and "active" in human
    assert str(entry.pk) not in human and str(member.pk) not in human
    assert "preference" not in human
    assert [e.payload["entry_count"] for e in events("hierarchy.ltm.read")] == [1, 1]
    assert all("entry_ids" not in e.payload for e in events("hierarchy.ltm.read"))
    with pytest.raises(CommandError, match="subject-lookup-counts-only"):
        run("ltm", "--entity", "coffee", "--justification", WHY, "--member", str(member.pk))
    with pytest.raises(CommandError, match="subject-lookup-counts-only"):
        run("ltm", "--entity", "coffee", "--justification", WHY, "--history")


def test_consolidate_is_a_dry_run_unless_applied(tmp_path, operator):
    # given
    row = write(member_with())
    spec = tmp_path / "claim.json"
    # the CLI speaks for no one but its operator: neither the member's word nor a model's
    # inference is theirs to assert; refused before anything is applied
    for origin in ("user-stated", "model-inferred"):
        forged = tmp_path / f"{origin}.json"
        forged.write_text(json.dumps({"origin": origin, "subject": "walks"}))
        refused = run_json(
            "consolidate", "--stm", str(row.pk), "--from-file", str(forged), "--justification", WHY
        )
        assert refused["refusal"] == "origin-not-allowed"
    with pytest.raises(CommandError, match="origin-not-allowed"):
        run(
            "consolidate",
            "--stm",
            str(row.pk),
            "--from-file",
            str(tmp_path / "model-inferred.json"),
            "--justification",
            WHY,
            "--apply",
        )
    assert not MemoryEntry.objects.exists()
    # an operator's own note, into their copilot scope, is theirs
    note = {"kind": "operator-copilot", "operator_id": str(operator.pk)}
    spec.write_text(json.dumps({"origin": "operator-copilot", "scope": note, "subject": "walks"}))
    # when
    dry = run_json(
        "consolidate", "--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY
    )
    human = run(
        "consolidate", "--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY
    )
    # then
    assert dry["dry_run"] is True and dry["refusal"] is None
    assert "DRY RUN" in human
    assert not MemoryEntry.objects.exists()
    assert [e.payload["dry_run"] for e in events("hierarchy.cli.invoked")] == [
        True,
        True,
        True,
        True,
    ]
    # when applied
    applied = run_json(
        "consolidate",
        "--stm",
        str(row.pk),
        "--from-file",
        str(spec),
        "--justification",
        WHY,
        "--apply",
    )
    # then
    assert applied["dry_run"] is False
    entry = MemoryEntry.objects.get(pk=applied["entry_id"])
    assert entry.origin == "operator-copilot" and entry.subject == "walks"
    last = events("hierarchy.cli.invoked")[-1]
    assert (last.payload["stm_id"], last.payload["entry_id"], last.payload["dry_run"]) == (
        str(row.pk),
        applied["entry_id"],
        False,
    )
    assert (last.actor_type, last.actor_id) == (ActorType.OPERATOR, operator.pk)
    with pytest.raises(CommandError, match="already-consolidated"):
        run(
            "consolidate",
            "--stm",
            str(row.pk),
            "--from-file",
            str(spec),
            "--justification",
            WHY,
            "--apply",
        )


def test_consolidate_applies_as_the_operators_own_copilot_note_without_a_file(operator):
    # given: a member's working-memory row
    row = write(member_with())
    consolidate = ("consolidate", "--stm", str(row.pk), "--justification", WHY)
    # when: the dry run, then the same command applied
    dry = run_json(*consolidate)
    applied = run_json(*consolidate, "--apply")
    # then: what the dry run showed is what was written
    own = {"kind": "operator-copilot", "operator_id": str(operator.pk)}
    assert dry["refusal"] is None and dry["target_scope"] == own
    entry = MemoryEntry.objects.get(pk=applied["entry_id"])
    assert (entry.member_id, entry.origin, entry.scope_kind) == (
        row.member_id,
        "operator-copilot",
        "operator-copilot",
    )
    assert str(entry.operator_id) == str(operator.pk)
    row.refresh_from_db()
    assert (row.consolidated_to, row.consolidation_trigger) == (entry.pk, "explicit")
    [consolidated] = events("hierarchy.stm.consolidated", stm_id=str(row.pk))
    assert (consolidated.actor_type, consolidated.actor_id) == (ActorType.OPERATOR, operator.pk)


def test_consolidate_human_mode_applies_with_a_subject_from_the_file(tmp_path):
    row = write(member_with())
    spec = tmp_path / "note.json"
    spec.write_text(json.dumps({"subject": "walks"}))
    args = ("consolidate", "--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY)
    human = run(*args, "--apply")
    entry = MemoryEntry.objects.get()
    assert f"Consolidated stm {row.pk} into entry {entry.pk}" in human
    assert (entry.subject, entry.origin) == ("walks", "operator-copilot")


def test_consolidate_refuses_another_operators_copilot_scope(tmp_path):
    row = write(member_with())
    colleague = OperatorFactory(role=OperatorRole.TRUST_AND_SAFETY)
    spec = tmp_path / "theirs.json"
    theirs = {"kind": "operator-copilot", "operator_id": str(colleague.pk)}
    spec.write_text(json.dumps({"scope": theirs}))
    args = ("consolidate", "--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY)
    for applied in ((), ("--apply",)):
        with pytest.raises(CommandError, match="their own copilot scope only"):
            run(*args, *applied)
    assert not MemoryEntry.objects.exists()


def test_an_invalid_consolidation_names_its_fields(tmp_path):
    row = write(member_with())
    spec = tmp_path / "bad.json"
    spec.write_text(json.dumps({"confidence": 7}))
    with pytest.raises(CommandError, match=r"invalid: .*\n  confidence: "):
        run(
            "consolidate",
            "--stm",
            str(row.pk),
            "--from-file",
            str(spec),
            "--justification",
            WHY,
            "--apply",
        )


def test_consolidate_refuses_unknown_fields_and_rewrites(tmp_path):
    row = write(member_with())
    spec = tmp_path / "claim.json"
    spec.write_text(json.dumps({"body": "something else"}))
    with pytest.raises(CommandError, match="unknown fields"):
        run("consolidate", "--stm", str(row.pk), "--from-file", str(spec), "--justification", WHY)
    spec.write_text(json.dumps({"entry_id": str(row.pk)}))
    with pytest.raises(CommandError, match="illegal-transition"):
        run(
            "consolidate",
            "--stm",
            str(row.pk),
            "--from-file",
            str(spec),
            "--justification",
            WHY,
            "--apply",
        )


def test_demote_seeds_a_workbench_row_only_when_applied():
    member = member_with()
    entry = remember(member).entry
    args = (
        "demote",
        "--entry",
        str(entry.pk),
        "--member",
        str(member.pk),
        "--scope-id",
        "bench-1",
        "--justification",
        WHY,
    )
    dry = run_json(*args)
    assert dry["dry_run"] is True and dry["scope_kind"] == "admin_session"
    assert "DRY RUN" in run(*args)
    assert not ShortTermMemory.objects.exists()
    applied = run_json(*args, "--apply")
    row = ShortTermMemory.objects.get(pk=applied["stm_id"])
    assert row.scope_kind == "admin_session" and row.related_entry_ids == [str(entry.pk)]
    assert events("hierarchy.stm.demoted")[0].payload["transition"] == "rc3"
    assert "Seeded admin_session row" in run(*args, "--apply")


@pytest.mark.parametrize(
    "args",
    [
        ("counts",),
        ("replay", "--scope", "run-3"),
        ("stm", "--scope", "s-1", "--justification", WHY),
        ("ltm", "--entity", "coffee", "--justification", WHY),
    ],
)
def test_every_action_names_its_operator_and_is_recorded_as_them(operator, args):
    # when
    run(*args)
    # then every audit event it wrote has the operator as its actor, none a system actor
    written = list(AuditEvent.objects.order_by("sequence"))
    assert written, args
    assert {(e.actor_type, e.actor_id, e.actor_role) for e in written} == {
        (ActorType.OPERATOR, operator.pk, OperatorRole.TRUST_AND_SAFETY)
    }
    [invocation] = events("hierarchy.cli.invoked")
    assert invocation.payload["operator_id"] == str(operator.pk)


def test_a_write_is_recorded_as_the_operator(operator):
    member = member_with()
    entry = remember(member).entry
    before = AuditEvent.objects.count()
    run(
        "demote",
        "--entry",
        str(entry.pk),
        "--member",
        str(member.pk),
        "--scope-id",
        "bench-1",
        "--justification",
        WHY,
        "--apply",
    )
    written = AuditEvent.objects.order_by("sequence")[before:]
    assert {e.action for e in written} >= {"hierarchy.stm.demoted", "hierarchy.cli.invoked"}
    assert all(e.actor_type == ActorType.OPERATOR and e.actor_id == operator.pk for e in written)


@pytest.mark.parametrize(
    "who",
    ["nobody@example.test", "member@example.test", "bare-superuser@example.test", "   "],
)
def test_an_action_without_an_operator_with_a_role_is_refused(who):
    # given a member, and an operator with no role (what createsuperuser makes)
    MemberFactory(email="member@example.test")
    User.objects.create_superuser("bare-superuser@example.test", "pw-not-used-here")
    # when / then
    with pytest.raises(CommandError, match="not an operator account with a role"):
        run("counts", operator=who)
    assert not events("hierarchy.cli.invoked")


def test_the_operator_flag_is_required():
    with pytest.raises(CommandError, match="--operator"):
        run("counts", operator=None)


def test_a_tenant_bound_operator_reaches_its_tenants_members_only():
    # given an operator bound to one tenant, and a member outside it
    bound = OperatorFactory(
        email="bound@example.test", role=OperatorRole.TRUST_AND_SAFETY, tenant=TenantFactory()
    )
    member = member_with()
    entry = remember(member).entry
    args = ("--entry", str(entry.pk), "--member", str(member.pk), "--scope-id", "bench-1")
    # when / then the member is not found for them, as if there were none
    with pytest.raises(CommandError, match="not_found"):
        run("demote", *args, "--justification", WHY, operator=bound.email)
    # and the counts they see leave the member out
    assert run_json("counts", operator=bound.email)["ltm"].get("active", 0) == 0
    assert run_json("counts")["ltm"]["active"] == 1
